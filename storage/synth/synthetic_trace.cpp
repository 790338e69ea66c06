#include "storage/synth/synthetic_trace.h"

#include "storage/store/input_error.h"
#include "storage/synth/synthetic_trace_p.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <utility>

// Bit-identical traces on every platform: no fused multiply-add may change a rounding.
// GCC does not contract in ISO mode (-std=c++20), clang needs to be told.
#if defined(__clang__)
#pragma STDC FP_CONTRACT OFF
#endif

namespace strata::storage {

namespace synth_detail {

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

}  // namespace synth_detail

int syntheticRootCount(const SynthOptions& options)
{
    return (std::max(1, options.ranks) + synth_detail::kRanksPerNode - 1) / synth_detail::kRanksPerNode;
}

void generateSyntheticTrace(
    const SynthOptions& options, TraceSink& sink, const ProgressFn& progress)
{
    if (options.ranks < 1)
        throw std::invalid_argument("generateSyntheticTrace: ranks must be at least 1");
    synth_detail::Generator generator(options, sink);
    generator.run(progress);
}

}  // namespace strata::storage
