#pragma once
// The synthetic run's generator, shared by its two halves: synthetic_trace.cpp (the run,
// one training step at a time) and synthetic_emit.cpp (the building blocks that put ops,
// kernels, launches and copies on the ranks' clocks, and the emission of each step's
// records and counter samples into the sink). Private to storage/synth.

#include "storage/synth/portable_random.h"
#include "storage/synth/synthetic_trace.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace strata::storage::synth_detail {

using model::Depth;
using model::ResourceKind;
using model::Role;
using model::StringId;
using model::TimeNs;
using model::TrackId;


using portable::portableExp;
using portable::portableLog;
using portable::Random;

inline TimeNs durationNs(double ns)
{
    return std::max<TimeNs>(1, static_cast<TimeNs>(ns + 0.5));
}

inline void appendInt(std::string& out, std::int64_t value)
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
inline constexpr const char* kOriginNs = "1700000000000000000";

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

}  // namespace strata::storage::synth_detail
