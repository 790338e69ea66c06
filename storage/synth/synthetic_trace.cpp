#include "storage/synth/synthetic_trace.h"

#include "storage/store/input_error.h"
#include "storage/synth/portable_random.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

// Bit-identical traces on every platform: no fused multiply-add may change a rounding.
// GCC does not contract in ISO mode (-std=c++20), clang needs to be told.
#if defined(__clang__)
#pragma STDC FP_CONTRACT OFF
#endif

namespace strata::storage {

using model::Depth;
using model::ResourceKind;
using model::Role;
using model::StringId;
using model::TimeNs;
using model::TrackId;

namespace {

using portable::portableExp;
using portable::portableLog;
using portable::Random;

TimeNs durationNs(double ns)
{
    return std::max<TimeNs>(1, static_cast<TimeNs>(ns + 0.5));
}

void appendInt(std::string& out, std::int64_t value)
{
    char buffer[24];
    const auto result = std::to_chars(buffer, buffer + sizeof buffer, value);
    out.append(buffer, result.ptr);
}

// ---- the shape of the run ---------------------------------------------------------------

constexpr int kRanksPerNode = 4;
constexpr int kComputeStreamId = 7;
constexpr int kCommStreamId = 13;
constexpr int kMemcpyStreamId = 21;
constexpr int kMaxLayers = 32;
constexpr std::int64_t kTargetSteps = 40;  // a step holds about 1/40 of the trace...
constexpr std::int64_t kFixedEventsPerRankStep = 44 + 24;  // ...of these (incl. counters)
constexpr std::int64_t kEventsPerLayer = 56;  // ...plus these per layer (24 fwd, 32 bwd)
constexpr std::int64_t kSamplesPerNominalStep = 8;
constexpr std::int64_t kParamsPerLayer = 1572864;
constexpr std::int64_t kActivationBytesPerLayer = 160ll << 20;
constexpr std::int64_t kInputBytes = 4ll << 20;
constexpr std::int64_t kLabelBytes = 64ll << 10;
constexpr double kLaunchUs = 4.5;  // CPU time of one cudaLaunchKernel
constexpr double kLaunchLatencyUs = 3;  // launch start to the earliest kernel start
constexpr double kHeavyTailChance = 0.01;
constexpr int kCbidLaunchKernel = 211;
constexpr int kCbidMemcpyAsync = 41;
constexpr int kCbidDriverLaunch = 307;
constexpr TimeNs kPopGapNs = 100;  // CPU time between a range's end and what follows
constexpr const char* kOriginNs = "1700000000000000000";

struct Op
{
    StringId name = model::kEmptyString;
    StringId category = model::kEmptyString;
    Role role = Role::Useful;
};

struct KernelSpec
{
    Op op;
    double medianUs = 1;
    double sigma = 0.3;
    int gridX = 1;
    int gridY = 1;
    int blockX = 128;
    int registers = 32;
    int sharedMemory = 0;
};

enum class RecordKind : std::uint8_t { Interval, Instant, Flow };

/// One event of the step being generated; a step is buffered so that the all-reduce,
/// which waits for every rank, can be placed before anything is emitted.
struct Record
{
    RecordKind kind = RecordKind::Interval;
    TrackId track = model::kNoTrack;
    model::Interval interval;  ///< an instant uses startNs, name and category
    model::Flow flow;
    std::uint32_t argsBegin = 0;
    std::uint32_t argsEnd = 0;
};

/// A CPU thread's clock and its stack of open ranges (record indices).
struct CpuThread
{
    TrackId track = model::kNoTrack;
    TimeNs nowNs = 0;
    std::array<std::size_t, 8> open {};
    Depth depth = 0;
};

struct GpuStream
{
    TrackId track = model::kNoTrack;
    int id = 0;
    TimeNs freeNs = 0;  ///< the stream is busy (or waits on an event) until then
    bool countsAsBusy = false;  ///< feeds the utilization counter
};

/// Sampling of the GPU counters: sample k at k * period describes [(k-1) period, k period).
struct CounterState
{
    TimeNs nextSampleNs = 0;
    TimeNs coveredUntilNs = 0;
    TimeNs busyNs = 0;
};

struct Rank
{
    int index = 0;
    double load = 1;  ///< uneven compute: the slowest rank sets the all-reduce's end
    TrackId utilization = model::kNoTrack;
    TrackId memory = model::kNoTrack;
    TrackId clock = model::kNoTrack;
    CpuThread main;
    CpuThread autograd;
    CpuThread dataloader;
    GpuStream compute;
    GpuStream comm;
    GpuStream memcpy;
    std::uint64_t correlation = 0;
    CounterState counters;

    // The step being generated.
    std::vector<Record> records;
    std::string args;
    std::vector<std::pair<TimeNs, TimeNs>> busy;
    double stepLoad = 1;
    std::size_t stepRecord = 0;
    TimeNs stepEndNs = 0;
    TimeNs forwardStartNs = 0;
    TimeNs forwardEndNs = 0;
    TimeNs backwardStartNs = 0;
    TimeNs backwardEndNs = 0;
    TimeNs commLaunchNs = 0;
    TimeNs commArrivalNs = 0;
    std::uint64_t commCorrelation = 0;
};

/// Makes the trace one training step at a time, for all ranks together: first each rank
/// up to the launch of its gradient all-reduce (forward on the main thread, backward on
/// pt_autograd, kernels queued on the compute stream behind their launches), then the
/// all-reduce's common end (the last arrival plus the transfer), then the rest of each
/// rank's step (its NCCL kernel, AdamW, the synchronize). Only then are the step's
/// buffered records emitted, rank by rank, and the GPU counters sampled up to the step's
/// end. Per track, events are emitted in start order.
class Generator
{
public:
    Generator(const SynthOptions& options, TraceSink& sink);
    void run(const ProgressFn& progress);

private:
    Op op(std::string_view name, std::string_view category);
    KernelSpec kernel(std::string_view name, double medianUs, double sigma, int gridX, int gridY,
        int blockX, int registers, int sharedMemory);
    void createTracks();
    void generateStep(std::uint64_t step);
    void stepUntilAllReduce(Rank& r, const Op& stepOp);
    void forwardLayer(Rank& r, int layer);
    void backwardLayer(Rank& r);
    void linearBackward(Rank& r);
    void stepAfterAllReduce(Rank& r, TimeNs allReduceEndNs);

    // Building blocks; times advance on the thread's clock.
    TimeNs cpuNs(double medianUs) { return durationNs(m_random.logNormal(medianUs * 1000, 0.3)); }
    TimeNs kernelNs(const Rank& r, const KernelSpec& k, double scale = 1);
    std::size_t push(Rank& r, CpuThread& thread, const Op& op, double overheadUs);
    void pop(Rank& r, CpuThread& thread, double tailUs);
    void addInstant(Rank& r, TrackId track, TimeNs timeNs, const Op& op);
    std::size_t addKernel(Rank& r, GpuStream& stream, const KernelSpec& k, TimeNs startNs,
        TimeNs endNs, std::uint64_t correlation);
    void addFlow(Rank& r, TrackId from, TimeNs fromNs, TrackId to, TimeNs toNs);
    void setArgs(Rank& r, std::size_t record, std::size_t argsBegin);
    std::size_t pushLaunch(
        Rank& r, CpuThread& thread, const Op& api, int cbid, std::uint64_t correlation);
    TimeNs launch(Rank& r, CpuThread& thread, const KernelSpec& k, GpuStream& stream,
        double scale = 1, bool driverApi = false);
    TimeNs copyToDevice(Rank& r, std::int64_t bytes);
    void appendCollectiveFields(std::string& out) const;
    TimeNs kernelStartNs(const GpuStream& stream, TimeNs launchNs);

    void emit(Rank& r);
    void sampleCounters(Rank& r, TimeNs horizonNs);
    void emitSample(Rank& r);

    SynthOptions m_options;
    TraceSink& m_sink;
    Random m_random;
    int m_layers = 1;
    TimeNs m_samplePeriodNs = 1;
    std::int64_t m_allReduceElements = 0;
    std::uint64_t m_emitted = 0;
    std::vector<Rank> m_ranks;

    StringId m_userAnnotation;
    StringId m_flowName;
    Op m_iterationStart, m_dataloaderNext, m_pinMemory, m_pinMemoryInner, m_copy, m_memcpyAsync;
    Op m_launchKernel, m_driverLaunch;
    Op m_layerNorm, m_nativeLayerNorm, m_linear, m_addmm, m_softmax, m_softmaxInner, m_add;
    Op m_tritonAdd, m_onesLike, m_fill;
    Op m_evalAddmm, m_addmmBackward, m_mm, m_evalSoftmax, m_softmaxBackward, m_softmaxBackwardData;
    Op m_evalLayerNorm, m_layerNormBackward, m_nativeLayerNormBackward;
    Op m_allReduce, m_recordParamComms, m_optimizerStep, m_item, m_localScalarDense, m_streamSync;
    std::array<Op, 4> m_foreachOps;
    KernelSpec m_kLayerNorm, m_kQkvGemm, m_kSoftmax, m_kOutGemm, m_kAdd, m_kTritonAdd, m_kFill;
    KernelSpec m_kGemmNn, m_kGemmNt, m_kSoftmaxBackward, m_kLayerNormBackward, m_kAllReduce;
    KernelSpec m_kMemcpy;
    std::array<KernelSpec, 4> m_kOptimizer;
};

Generator::Generator(const SynthOptions& options, TraceSink& sink)
    : m_options(options)
    , m_sink(sink)
    , m_random(options.seed)
{
    // Size one step so that the trace holds about kTargetSteps of them: then stopping at a
    // step border lands within half a step (about 1.3 %) of the request.
    const auto perRank =
        static_cast<std::int64_t>(std::min<std::uint64_t>(options.events, 1ull << 62)
            / static_cast<std::uint64_t>(options.ranks));
    const std::int64_t perRankStep = perRank / kTargetSteps;
    m_layers = static_cast<int>(std::clamp<std::int64_t>(
        (perRankStep - kFixedEventsPerRankStep) / kEventsPerLayer, 1, kMaxLayers));
    // A step lasts about 1.27 ms + 0.51 ms per layer (measured on the generator's output);
    // the counters are sampled a fixed number of times per such nominal step.
    const TimeNs nominalStepNs = 1270 * model::kNsPerUs + m_layers * 510 * model::kNsPerUs;
    m_samplePeriodNs = nominalStepNs / kSamplesPerNominalStep;
    m_allReduceElements = m_layers * kParamsPerLayer;

    m_userAnnotation = m_sink.intern("user_annotation");
    m_flowName = m_sink.intern("ac2g");
    m_iterationStart = op("Iteration Start", "user_annotation");
    m_dataloaderNext =
        op("enumerate(DataLoader)#_MultiProcessingDataLoaderIter.__next__", "user_annotation");
    m_pinMemory = op("aten::pin_memory", "cpu_op");
    m_pinMemoryInner = op("aten::_pin_memory", "cpu_op");
    m_copy = op("aten::copy_", "cpu_op");
    m_memcpyAsync = op("cudaMemcpyAsync", "cuda_runtime");
    m_launchKernel = op("cudaLaunchKernel", "cuda_runtime");
    m_driverLaunch = op("cuLaunchKernel", "cuda_driver");
    m_layerNorm = op("aten::layer_norm", "cpu_op");
    m_nativeLayerNorm = op("aten::native_layer_norm", "cpu_op");
    m_linear = op("aten::linear", "cpu_op");
    m_addmm = op("aten::addmm", "cpu_op");
    m_softmax = op("aten::softmax", "cpu_op");
    m_softmaxInner = op("aten::_softmax", "cpu_op");
    m_add = op("aten::add", "cpu_op");
    m_tritonAdd = op("triton_poi_fused_add_0", "cpu_op");
    m_onesLike = op("aten::ones_like", "cpu_op");
    m_fill = op("aten::fill_", "cpu_op");
    m_evalAddmm = op("autograd::engine::evaluate_function: AddmmBackward0", "cpu_op");
    m_addmmBackward = op("AddmmBackward0", "cpu_op");
    m_mm = op("aten::mm", "cpu_op");
    m_evalSoftmax = op("autograd::engine::evaluate_function: SoftmaxBackward0", "cpu_op");
    m_softmaxBackward = op("SoftmaxBackward0", "cpu_op");
    m_softmaxBackwardData = op("aten::_softmax_backward_data", "cpu_op");
    m_evalLayerNorm = op("autograd::engine::evaluate_function: NativeLayerNormBackward0", "cpu_op");
    m_layerNormBackward = op("NativeLayerNormBackward0", "cpu_op");
    m_nativeLayerNormBackward = op("aten::native_layer_norm_backward", "cpu_op");
    m_allReduce = op("c10d::allreduce_", "cpu_op");
    m_recordParamComms = op("record_param_comms", "cpu_op");
    m_optimizerStep = op("Optimizer.step#AdamW.step", "user_annotation");
    m_item = op("aten::item", "cpu_op");
    m_localScalarDense = op("aten::_local_scalar_dense", "cpu_op");
    m_streamSync = op("cudaStreamSynchronize", "cuda_runtime");
    m_foreachOps = { op("aten::_foreach_mul_", "cpu_op"), op("aten::_foreach_add_", "cpu_op"),
        op("aten::_foreach_addcmul_", "cpu_op"), op("aten::_foreach_addcdiv_", "cpu_op") };

    m_kLayerNorm = kernel("void at::native::(anonymous namespace)::vectorized_layer_norm_kernel"
                          "<float, float>(int, float, float const*, float const*, float const*, "
                          "float*, float*, float*)",
        6, 0.25, 4096, 1, 256, 34, 0);
    m_kQkvGemm = kernel("ampere_sgemm_128x64_tn", 45, 0.3, 24, 32, 128, 122, 32768);
    m_kSoftmax = kernel("void at::native::(anonymous namespace)::cunn_SoftMaxForward<4, float, "
                        "float, float, at::native::(anonymous namespace)::SoftMaxForwardEpilogue>"
                        "(float*, float const*, int)",
        12, 0.3, 4096, 1, 1024, 32, 4096);
    m_kOutGemm =
        kernel("volta_fp16_s884gemm_fp16_128x128_ldg8_f2f_nn", 30, 0.3, 8, 32, 256, 128, 20480);
    m_kAdd = kernel("void at::native::vectorized_elementwise_kernel<4, "
                    "at::native::CUDAFunctor_add<float>, at::detail::Array<char*, 3> >(int, "
                    "at::native::CUDAFunctor_add<float>, at::detail::Array<char*, 3>)",
        4, 0.4, 8192, 1, 128, 24, 0);
    m_kTritonAdd = kernel("triton_poi_fused_add_0", 3, 0.4, 4096, 1, 128, 20, 0);
    m_kFill = kernel("void at::native::vectorized_elementwise_kernel<4, "
                     "at::native::FillFunctor<float>, at::detail::Array<char*, 1> >(int, "
                     "at::native::FillFunctor<float>, at::detail::Array<char*, 1>)",
        1.5, 0.3, 1, 1, 128, 16, 0);
    m_kGemmNn = kernel("ampere_sgemm_128x64_nn", 40, 0.3, 24, 32, 128, 122, 32768);
    m_kGemmNt = kernel("ampere_sgemm_128x128_nt", 42, 0.3, 12, 32, 256, 126, 49152);
    m_kSoftmaxBackward = kernel("void at::native::(anonymous namespace)::cunn_SoftMaxBackward<4, "
                                "float, float, float, at::native::(anonymous namespace)::"
                                "SoftMaxBackwardEpilogue>(float*, float const*, float const*, int)",
        14, 0.3, 4096, 1, 1024, 40, 4096);
    m_kLayerNormBackward = kernel("void at::native::(anonymous namespace)::"
                                  "layer_norm_grad_input_kernel<float, float>(float const*, float "
                                  "const*, float const*, float const*, float const*, float*, int)",
        9, 0.3, 4096, 1, 128, 40, 1024);
    m_kAllReduce = kernel("ncclDevKernel_AllReduce_Sum_f32_RING_LL", 0, 0, 16, 1, 640, 96, 0);
    m_kMemcpy.op = op("Memcpy HtoD (Pageable -> Device)", "gpu_memcpy");
    const char* kApply = "void at::native::(anonymous namespace)::multi_tensor_apply_kernel<at::"
                         "native::(anonymous namespace)::";
    m_kOptimizer = {
        kernel(std::string(kApply)
                + "TensorListMetadata<1>, at::native::(anonymous namespace)::"
                  "BinaryOpScalarFunctor<float, 1, 1, 0>, std::multiplies<float>, float>",
            1.2, 0.2, 320, 1, 512, 32, 0),
        kernel(std::string(kApply)
                + "TensorListMetadata<2>, at::native::(anonymous namespace)::"
                  "BinaryOpListAlphaFunctor<float, 2, 2, 0>, std::plus<float>, float>",
            1.6, 0.2, 320, 1, 512, 36, 0),
        kernel(std::string(kApply)
                + "TensorListMetadata<3>, at::native::(anonymous namespace)::"
                  "PointwiseOpScalarFunctor<float, 3, 3, 0>, std::multiplies<float>, float>",
            2.0, 0.2, 320, 1, 512, 40, 0),
        kernel(std::string(kApply)
                + "TensorListMetadata<3>, at::native::(anonymous namespace)::"
                  "PointwiseOpScalarFunctor<float, 3, 3, 0>, std::divides<float>, float>",
            2.0, 0.2, 320, 1, 512, 40, 0)
    };

    m_ranks.resize(static_cast<std::size_t>(options.ranks));
    for (std::size_t i = 0; i < m_ranks.size(); ++i) {
        Rank& r = m_ranks[i];
        r.index = static_cast<int>(i);
        r.load = 1 + 0.12 * m_random.uniform();
        r.main.nowNs = model::kNsPerMs + m_random.uniformInt(0, 20000);
        r.compute.id = kComputeStreamId;
        r.compute.countsAsBusy = true;
        r.comm.id = kCommStreamId;
        r.comm.countsAsBusy = true;
        r.memcpy.id = kMemcpyStreamId;
    }
}

Op Generator::op(std::string_view name, std::string_view category)
{
    return Op { m_sink.intern(name), m_sink.intern(category), model::classifyRole(name, category) };
}

KernelSpec Generator::kernel(std::string_view name, double medianUs, double sigma, int gridX,
    int gridY, int blockX, int registers, int sharedMemory)
{
    return KernelSpec { op(name, "kernel"), medianUs, sigma, gridX, gridY, blockX, registers,
        sharedMemory };
}

void Generator::run(const ProgressFn& progress)
{
    m_sink.setMeta("origin_ns", kOriginNs);
    m_sink.setMeta("generator", "strata synth");
    m_sink.setMeta("seed", std::to_string(m_options.seed));
    m_sink.setMeta("ranks", std::to_string(m_options.ranks));
    m_sink.setMeta("requested_events", std::to_string(m_options.events));
    createTracks();

    const std::uint64_t target = m_options.events;
    std::uint64_t lastStepEvents = 0;
    for (std::uint64_t step = 0; target > 0; ++step) {
        // Stop where the next step would overshoot by more than it would fall short.
        if (step > 0 && m_emitted + lastStepEvents / 2 >= target)
            break;
        const std::uint64_t before = m_emitted;
        generateStep(step);
        lastStepEvents = m_emitted - before;
        if (progress && !progress(std::min(m_emitted, target), target))
            throw Cancelled();
    }
    // Counters run up to the end of the last step on any rank.
    TimeNs endNs = 0;
    for (const Rank& r : m_ranks)
        endNs = std::max(endNs, r.stepEndNs);
    if (endNs > 0) {
        for (Rank& r : m_ranks)
            sampleCounters(r, endNs);
    }
    if (progress && !progress(target, target))
        throw Cancelled();
}

void Generator::createTracks()
{
    const int ranks = m_options.ranks;
    for (int node = 0; node * kRanksPerNode < ranks; ++node) {
        const TrackId nodeTrack = m_sink.addTrack(
            model::kNoTrack, ResourceKind::Node, "node " + std::to_string(node), node);
        for (int local = 0; local < kRanksPerNode && node * kRanksPerNode + local < ranks;
             ++local) {
            const int index = node * kRanksPerNode + local;
            Rank& r = m_ranks[static_cast<std::size_t>(index)];
            const std::string rank = std::to_string(index);
            // Each rank's process is followed by its GPU in the node's display order.
            const TrackId process =
                m_sink.addTrack(nodeTrack, ResourceKind::Process, "rank " + rank, 2 * local);
            r.main.track = m_sink.addTrack(process, ResourceKind::Thread, "python main", 0);
            r.autograd.track = m_sink.addTrack(process, ResourceKind::Thread, "pt_autograd", 1);
            r.dataloader.track = m_sink.addTrack(process, ResourceKind::Thread, "dataloader", 2);
            const TrackId gpu =
                m_sink.addTrack(nodeTrack, ResourceKind::Gpu, "GPU " + rank, 2 * local + 1);
            for (GpuStream* stream : { &r.compute, &r.comm, &r.memcpy }) {
                stream->track = m_sink.addTrack(
                    gpu, ResourceKind::Stream, "stream " + std::to_string(stream->id), stream->id);
            }
            r.utilization =
                m_sink.addTrack(gpu, ResourceKind::Counter, "GPU utilization", 100, "%");
            r.memory = m_sink.addTrack(gpu, ResourceKind::Counter, "memory used", 101, "B");
            r.clock = m_sink.addTrack(gpu, ResourceKind::Counter, "SM clock", 102, "MHz");
        }
    }
}

void Generator::generateStep(std::uint64_t step)
{
    const Op stepOp = op("ProfilerStep#" + std::to_string(step + 1), "user_annotation");
    for (Rank& r : m_ranks)
        stepUntilAllReduce(r, stepOp);
    // The ring all-reduce cannot finish before the last rank has joined it; then it moves
    // 2 (n - 1) / n of the gradients over an ~80 GB/s bus.
    TimeNs lastArrivalNs = 0;
    for (const Rank& r : m_ranks)
        lastArrivalNs = std::max(lastArrivalNs, r.commArrivalNs);
    const double n = static_cast<double>(m_ranks.size());
    const double bytes = static_cast<double>(m_allReduceElements) * 4;
    const double transferNs = 2 * (n - 1) / n * bytes / 80.0 * (1 + 0.1 * m_random.uniform());
    const TimeNs allReduceEndNs = lastArrivalNs + cpuNs(15) + durationNs(transferNs);
    for (Rank& r : m_ranks) {
        stepAfterAllReduce(r, allReduceEndNs);
        emit(r);
        sampleCounters(r, r.stepEndNs);
    }
}

void Generator::stepUntilAllReduce(Rank& r, const Op& stepOp)
{
    r.records.clear();
    r.args.clear();
    r.busy.clear();
    r.stepLoad = r.load * m_random.logNormal(1, 0.03);
    CpuThread& main = r.main;
    const TimeNs stepStartNs = main.nowNs;
    r.stepRecord = push(r, main, stepOp, 8);
    addInstant(r, main.track, stepStartNs, m_iterationStart);

    // The next batch; now and then a rank waits for a slow dataloader worker (a straggler).
    push(r, main, m_dataloaderNext, 20);
    if (m_random.chance(0.04))
        main.nowNs += durationNs((0.5 + 2.5 * m_random.uniform()) * model::kNsPerMs);
    pop(r, main, 2);

    // Meanwhile the dataloader thread pins the batch after it.
    CpuThread& loader = r.dataloader;
    loader.nowNs = std::max(loader.nowNs, stepStartNs + cpuNs(30));
    push(r, loader, m_pinMemory, 5);
    push(r, loader, m_pinMemoryInner, 5);
    push(r, loader, m_copy, 250);
    pop(r, loader, 2);
    pop(r, loader, 2);
    pop(r, loader, 2);

    const TimeNs inputReadyNs = copyToDevice(r, kInputBytes);
    copyToDevice(r, kLabelBytes);
    r.compute.freeNs = std::max(r.compute.freeNs, inputReadyNs);  // waits for its input

    r.forwardStartNs = main.nowNs;
    for (int layer = 0; layer < m_layers; ++layer)
        forwardLayer(r, layer);
    push(r, main, m_onesLike, 3);
    push(r, main, m_fill, 2);
    launch(r, main, m_kFill, r.compute);
    pop(r, main, 1);
    pop(r, main, 1);
    r.forwardEndNs = main.nowNs;

    // loss.backward(): the autograd thread runs the backward ops while main waits.
    CpuThread& backward = r.autograd;
    backward.nowNs = std::max(backward.nowNs, main.nowNs + cpuNs(15));
    r.backwardStartNs = backward.nowNs;
    for (int layer = 0; layer < m_layers; ++layer)
        backwardLayer(r);

    // DDP's gradient all-reduce: launched now, it starts once the gradients are computed
    // and ends when every rank has joined (generateStep knows when).
    push(r, backward, m_allReduce, 6);
    const std::size_t comms = push(r, backward, m_recordParamComms, 4);
    const std::size_t argsBegin = r.args.size();
    r.args += '{';
    appendCollectiveFields(r.args);
    r.args += '}';
    setArgs(r, comms, argsBegin);
    r.commCorrelation = ++r.correlation;
    r.commLaunchNs = backward.nowNs;
    pushLaunch(r, backward, m_launchKernel, kCbidLaunchKernel, r.commCorrelation);
    pop(r, backward, 0.3);
    pop(r, backward, 2);
    pop(r, backward, 2);
    const TimeNs launchedNs = kernelStartNs(r.comm, r.commLaunchNs);
    const TimeNs gradientsReadyNs = r.compute.freeNs + m_random.uniformInt(1000, 3000);
    r.commArrivalNs = std::max(launchedNs, gradientsReadyNs);
    r.backwardEndNs = backward.nowNs;
}

void Generator::forwardLayer(Rank& r, int layer)
{
    CpuThread& main = r.main;
    push(r, main, m_layerNorm, 3);
    push(r, main, m_nativeLayerNorm, 2);
    launch(r, main, m_kLayerNorm, r.compute);
    pop(r, main, 1);
    pop(r, main, 1);

    push(r, main, m_linear, 3);
    push(r, main, m_addmm, 3);
    launch(r, main, m_kQkvGemm, r.compute);
    pop(r, main, 1);
    pop(r, main, 1);

    push(r, main, m_softmax, 3);
    push(r, main, m_softmaxInner, 2);
    launch(r, main, m_kSoftmax, r.compute);
    pop(r, main, 1);
    pop(r, main, 1);

    push(r, main, m_linear, 3);
    push(r, main, m_addmm, 3);
    launch(r, main, m_kOutGemm, r.compute);
    pop(r, main, 1);
    pop(r, main, 1);

    // The residual add: eager on even layers, a torch.compile'd Triton kernel on odd ones.
    if (layer % 2 == 0) {
        push(r, main, m_add, 3);
        launch(r, main, m_kAdd, r.compute);
    } else {
        push(r, main, m_tritonAdd, 6);
        launch(r, main, m_kTritonAdd, r.compute, 1, true);
    }
    pop(r, main, 1);
}

void Generator::backwardLayer(Rank& r)
{
    // Reverse order of forwardLayer: output projection, softmax, QKV projection, norm.
    CpuThread& bw = r.autograd;
    linearBackward(r);
    push(r, bw, m_evalSoftmax, 4);
    push(r, bw, m_softmaxBackward, 3);
    push(r, bw, m_softmaxBackwardData, 2);
    launch(r, bw, m_kSoftmaxBackward, r.compute);
    pop(r, bw, 1);
    pop(r, bw, 1);
    pop(r, bw, 2);
    linearBackward(r);
    push(r, bw, m_evalLayerNorm, 4);
    push(r, bw, m_layerNormBackward, 3);
    push(r, bw, m_nativeLayerNormBackward, 2);
    launch(r, bw, m_kLayerNormBackward, r.compute);
    pop(r, bw, 1);
    pop(r, bw, 1);
    pop(r, bw, 2);
}

/// AddmmBackward0: one GEMM for the input's gradient, one for the weight's.
void Generator::linearBackward(Rank& r)
{
    CpuThread& bw = r.autograd;
    push(r, bw, m_evalAddmm, 4);
    push(r, bw, m_addmmBackward, 3);
    push(r, bw, m_mm, 3);
    launch(r, bw, m_kGemmNn, r.compute);
    pop(r, bw, 1);
    push(r, bw, m_mm, 3);
    launch(r, bw, m_kGemmNt, r.compute);
    pop(r, bw, 1);
    pop(r, bw, 1);
    pop(r, bw, 2);
}

void Generator::stepAfterAllReduce(Rank& r, TimeNs allReduceEndNs)
{
    addKernel(r, r.comm, m_kAllReduce, r.commArrivalNs, allReduceEndNs, r.commCorrelation);
    r.args.pop_back();  // reopen the kernel's args to add the collective's
    r.args += ',';
    appendCollectiveFields(r.args);
    r.args += '}';
    r.records.back().argsEnd = static_cast<std::uint32_t>(r.args.size());
    addFlow(r, r.autograd.track, r.commLaunchNs, r.comm.track, r.commArrivalNs);

    // optimizer.step() once backward has returned; its kernels wait for the gradients.
    CpuThread& main = r.main;
    main.nowNs = std::max(main.nowNs, r.backwardEndNs + cpuNs(5));
    r.compute.freeNs = std::max(r.compute.freeNs, allReduceEndNs);
    push(r, main, m_optimizerStep, 10);
    for (std::size_t i = 0; i < m_foreachOps.size(); ++i) {
        push(r, main, m_foreachOps[i], 4);
        launch(r, main, m_kOptimizer[i], r.compute, m_layers);
        pop(r, main, 1);
    }
    pop(r, main, 3);

    // loss.item() synchronizes with the compute stream: the step's end.
    push(r, main, m_item, 3);
    push(r, main, m_localScalarDense, 3);
    push(r, main, m_streamSync, 2);
    main.nowNs = std::max(main.nowNs, r.compute.freeNs + cpuNs(3));
    pop(r, main, 0.5);
    pop(r, main, 1);
    pop(r, main, 1);
    pop(r, main, 5);
    r.stepEndNs = r.records[r.stepRecord].interval.endNs;
    main.nowNs += cpuNs(40);
}

TimeNs Generator::kernelNs(const Rank& r, const KernelSpec& k, double scale)
{
    double us = m_random.logNormal(k.medianUs * scale * r.stepLoad, k.sigma);
    if (m_random.chance(kHeavyTailChance))
        us *= 4 * std::min(m_random.pareto(1.5), 50.0);
    return durationNs(us * 1000);
}

std::size_t Generator::push(Rank& r, CpuThread& thread, const Op& op, double overheadUs)
{
    Record record;
    record.track = thread.track;
    record.interval.startNs = thread.nowNs;
    record.interval.endNs = thread.nowNs;
    record.interval.name = op.name;
    record.interval.category = op.category;
    record.interval.depth = thread.depth;
    record.interval.role = op.role;
    const std::size_t index = r.records.size();
    r.records.push_back(record);
    thread.open.at(thread.depth++) = index;
    thread.nowNs += cpuNs(overheadUs);
    return index;
}

void Generator::pop(Rank& r, CpuThread& thread, double tailUs)
{
    thread.nowNs += cpuNs(tailUs);
    r.records[thread.open[--thread.depth]].interval.endNs = thread.nowNs;
    thread.nowNs += kPopGapNs;
}

void Generator::addInstant(Rank& r, TrackId track, TimeNs timeNs, const Op& op)
{
    Record record;
    record.kind = RecordKind::Instant;
    record.track = track;
    record.interval.startNs = timeNs;
    record.interval.name = op.name;
    record.interval.category = op.category;
    r.records.push_back(record);
}

std::size_t Generator::addKernel(Rank& r, GpuStream& stream, const KernelSpec& k, TimeNs startNs,
    TimeNs endNs, std::uint64_t correlation)
{
    Record record;
    record.track = stream.track;
    record.interval.startNs = startNs;
    record.interval.endNs = endNs;
    record.interval.name = k.op.name;
    record.interval.category = k.op.category;
    record.interval.role = k.op.role;
    const std::size_t index = r.records.size();
    r.records.push_back(record);
    stream.freeNs = endNs;
    if (stream.countsAsBusy)
        r.busy.emplace_back(startNs, endNs);

    const std::size_t argsBegin = r.args.size();
    std::string& a = r.args;
    a += "{\"device\":";
    appendInt(a, r.index);
    a += ",\"stream\":";
    appendInt(a, stream.id);
    a += ",\"correlation\":";
    appendInt(a, static_cast<std::int64_t>(correlation));
    a += ",\"registers per thread\":";
    appendInt(a, k.registers);
    a += ",\"shared memory\":";
    appendInt(a, k.sharedMemory);
    a += ",\"grid\":[";
    appendInt(a, k.gridX);
    a += ',';
    appendInt(a, k.gridY);
    a += ",1],\"block\":[";
    appendInt(a, k.blockX);
    a += ",1,1]}";
    setArgs(r, index, argsBegin);
    return index;
}

void Generator::addFlow(Rank& r, TrackId from, TimeNs fromNs, TrackId to, TimeNs toNs)
{
    Record record;
    record.kind = RecordKind::Flow;
    record.track = from;
    record.flow.fromNs = fromNs;
    record.flow.toTrack = to;
    record.flow.toNs = toNs;
    record.flow.name = m_flowName;
    r.records.push_back(record);
}

void Generator::setArgs(Rank& r, std::size_t record, std::size_t argsBegin)
{
    r.records[record].argsBegin = static_cast<std::uint32_t>(argsBegin);
    r.records[record].argsEnd = static_cast<std::uint32_t>(r.args.size());
}

std::size_t Generator::pushLaunch(
    Rank& r, CpuThread& thread, const Op& api, int cbid, std::uint64_t correlation)
{
    const std::size_t call = push(r, thread, api, kLaunchUs);
    const std::size_t argsBegin = r.args.size();
    r.args += "{\"cbid\":";
    appendInt(r.args, cbid);
    r.args += ",\"correlation\":";
    appendInt(r.args, static_cast<std::int64_t>(correlation));
    r.args += '}';
    setArgs(r, call, argsBegin);
    return call;
}

TimeNs Generator::kernelStartNs(const GpuStream& stream, TimeNs launchNs)
{
    // One random draw per statement: the order of evaluation of arguments is unspecified.
    const TimeNs afterLaunchNs = launchNs + cpuNs(kLaunchLatencyUs);
    const TimeNs afterPreviousNs = stream.freeNs + m_random.uniformInt(800, 2500);
    return std::max(afterLaunchNs, afterPreviousNs);
}

TimeNs Generator::launch(Rank& r, CpuThread& thread, const KernelSpec& k, GpuStream& stream,
    double scale, bool driverApi)
{
    const std::uint64_t correlation = ++r.correlation;
    const TimeNs launchNs = thread.nowNs;
    if (driverApi)
        pushLaunch(r, thread, m_driverLaunch, kCbidDriverLaunch, correlation);
    else
        pushLaunch(r, thread, m_launchKernel, kCbidLaunchKernel, correlation);
    pop(r, thread, 0.3);
    const TimeNs startNs = kernelStartNs(stream, launchNs);
    const TimeNs endNs = startNs + kernelNs(r, k, scale);
    addKernel(r, stream, k, startNs, endNs, correlation);
    addFlow(r, thread.track, launchNs, stream.track, startNs);
    return endNs;
}

TimeNs Generator::copyToDevice(Rank& r, std::int64_t bytes)
{
    CpuThread& main = r.main;
    push(r, main, m_copy, 3);
    const std::uint64_t correlation = ++r.correlation;
    const TimeNs launchNs = main.nowNs;
    pushLaunch(r, main, m_memcpyAsync, kCbidMemcpyAsync, correlation);
    pop(r, main, 0.5);
    pop(r, main, 1);

    const double bytesPerNs = 6 + 6 * m_random.uniform();  // pageable: 6..12 GB/s
    const TimeNs durNs = durationNs(static_cast<double>(bytes) / bytesPerNs);
    const TimeNs startNs = kernelStartNs(r.memcpy, launchNs);
    const std::size_t index = r.records.size();
    Record record;
    record.track = r.memcpy.track;
    record.interval.startNs = startNs;
    record.interval.endNs = startNs + durNs;
    record.interval.name = m_kMemcpy.op.name;
    record.interval.category = m_kMemcpy.op.category;
    record.interval.role = m_kMemcpy.op.role;
    r.records.push_back(record);
    r.memcpy.freeNs = startNs + durNs;

    const std::int64_t centiGbPerS = bytes * 100 / durNs;  // bytes/ns = GB/s, exact digits
    const std::size_t argsBegin = r.args.size();
    std::string& a = r.args;
    a += "{\"device\":";
    appendInt(a, r.index);
    a += ",\"stream\":";
    appendInt(a, r.memcpy.id);
    a += ",\"correlation\":";
    appendInt(a, static_cast<std::int64_t>(correlation));
    a += ",\"bytes\":";
    appendInt(a, bytes);
    a += ",\"memory bandwidth (GB/s)\":";
    appendInt(a, centiGbPerS / 100);
    a += centiGbPerS % 100 < 10 ? ".0" : ".";
    appendInt(a, centiGbPerS % 100);
    a += '}';
    setArgs(r, index, argsBegin);
    addFlow(r, main.track, launchNs, r.memcpy.track, startNs);
    return startNs + durNs;
}

/// The collective's fields, without braces, as Kineto writes them on record_param_comms
/// and on the NCCL kernel.
void Generator::appendCollectiveFields(std::string& out) const
{
    out += "\"Collective name\":\"allreduce\",\"dtype\":\"Float\",\"In msg nelems\":";
    appendInt(out, m_allReduceElements);
    out += ",\"Out msg nelems\":";
    appendInt(out, m_allReduceElements);
    out += ",\"Group size\":";
    appendInt(out, m_options.ranks);
    out += ",\"Process Group Name\":\"0\",\"Process Group Description\":\"default_pg\"";
}

void Generator::emit(Rank& r)
{
    const std::string_view args(r.args);
    for (const Record& record : r.records) {
        const std::string_view recordArgs =
            args.substr(record.argsBegin, record.argsEnd - record.argsBegin);
        switch (record.kind) {
        case RecordKind::Interval:
            m_sink.addInterval(record.track, record.interval, recordArgs);
            break;
        case RecordKind::Instant:
            m_sink.addInstant(record.track,
                model::Instant {
                    record.interval.startNs, record.interval.name, record.interval.category },
                recordArgs);
            break;
        case RecordKind::Flow:
            m_sink.addFlow(record.track, record.flow);
            break;
        }
    }
    m_emitted += r.records.size();
}

/// Emits every counter sample due up to `horizonNs`, the utilization of each period being
/// the part of it covered by compute or NCCL kernels (their union: busy is start-sorted).
void Generator::sampleCounters(Rank& r, TimeNs horizonNs)
{
    std::sort(r.busy.begin(), r.busy.end());
    CounterState& c = r.counters;
    for (auto [startNs, endNs] : r.busy) {
        startNs = std::max(startNs, c.coveredUntilNs);
        if (endNs <= startNs)
            continue;
        c.coveredUntilNs = endNs;
        while (startNs < endNs) {
            while (startNs >= c.nextSampleNs)
                emitSample(r);
            const TimeNs segmentEndNs = std::min(endNs, c.nextSampleNs);
            c.busyNs += segmentEndNs - startNs;
            startNs = segmentEndNs;
        }
    }
    r.busy.clear();
    while (c.nextSampleNs <= horizonNs)
        emitSample(r);
}

void Generator::emitSample(Rank& r)
{
    CounterState& c = r.counters;
    const TimeNs t = c.nextSampleNs;
    const std::int64_t utilization = std::min<std::int64_t>(100, c.busyNs * 100 / m_samplePeriodNs);

    // Parameters, gradients and two AdamW moments stay; activations grow through the
    // forward pass and are freed through the backward pass (integer maths: exact).
    const std::int64_t baseBytes = (1ll << 30) + m_layers * kParamsPerLayer * 4 * 4;
    const std::int64_t activationBytes = m_layers * kActivationBytesPerLayer;
    std::int64_t per1024 = 0;
    if (t >= r.forwardStartNs && t < r.forwardEndNs)
        per1024 = (t - r.forwardStartNs) * 1024 / (r.forwardEndNs - r.forwardStartNs);
    else if (t >= r.forwardEndNs && t < r.backwardStartNs)
        per1024 = 1024;
    else if (t >= r.backwardStartNs && t < r.backwardEndNs)
        per1024 = (r.backwardEndNs - t) * 1024 / (r.backwardEndNs - r.backwardStartNs);
    const std::int64_t memoryBytes =
        baseBytes + activationBytes / 1024 * per1024 + m_random.uniformInt(0, 15) * (2ll << 20);

    std::int64_t clockMhz = 1410;  // A100 boost clock; throttles a little under full load
    if (utilization >= 60)
        clockMhz -= 15 * m_random.uniformInt(0, 6);
    else if (utilization < 5)
        clockMhz = 1095;

    m_sink.addCounterSample(r.utilization, { t, static_cast<double>(utilization) });
    m_sink.addCounterSample(r.memory, { t, static_cast<double>(memoryBytes) });
    m_sink.addCounterSample(r.clock, { t, static_cast<double>(clockMhz) });
    m_emitted += 3;
    c.nextSampleNs += m_samplePeriodNs;
    c.busyNs = 0;
}

}  // namespace

void generateSyntheticTrace(
    const SynthOptions& options, TraceSink& sink, const ProgressFn& progress)
{
    if (options.ranks < 1)
        throw std::invalid_argument("generateSyntheticTrace: ranks must be at least 1");
    Generator generator(options, sink);
    generator.run(progress);
}

}  // namespace strata::storage
