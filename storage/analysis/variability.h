#pragma once
// Variability (`strata variability`, the Variability dock): how the durations of each
// interval name spread across its instances and workers, which worker the others wait
// for in each step (stragglers) and why, and what coincides with the slow instances.
//
// The computation has three stages so that it can run per shard and per MPI rank:
//
//   tracks of shard A --collect--> VariabilityPartial --+
//   tracks of shard B --collect--> VariabilityPartial --+--merge--> VariabilityPartial
//                                                               --finish--> VariabilityReport
//
// A partial holds, exactly, every interval that starts in the window, as (start, duration)
// per (name TEXT, track) -- text, not StringId, because each shard interns its own strings --
// and the counter samples of the window. merge() is a union (the same (name, track) from
// two partials, as from two windows, is concatenated), and finish() sorts before it
// computes, so the report is the same whichever way the tracks were grouped. Track ids are
// the run's (one resource tree for all shards). Memory: 16 bytes per interval.
//
// Statistics use the intervals' whole durations (an interval that starts in the window
// counts with its full length: clipping would invent short instances). Quantiles are by
// nearest rank: the p-quantile of n sorted durations is the ceil(p n)-th smallest (1-based),
// so every quantile is a duration that occurred. Outliers lie beyond Q3 + 1.5 IQR (Q1, Q3 by
// the same nearest rank). The variability cost of a name is the time its instances spent
// beyond the name's median, sum of max(0, duration - p50): what the run would save if no
// instance were slower than the median; names are ranked by it.

#include "model/role.h"
#include "model/workers.h"
#include "storage/store/progress.h"
#include "storage/store/store_reader.h"

#include <map>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace strata::storage {

struct DurationStats
{
    std::int64_t count = 0;
    model::TimeNs totalNs = 0;
    double meanNs = 0;
    model::TimeNs p50Ns = 0, p95Ns = 0, p99Ns = 0, maxNs = 0;
    model::TimeNs minNs = 0, q1Ns = 0, q3Ns = 0;  ///< with p50 and max: a box plot
    double stddevNs = 0;  ///< population standard deviation
    double cv = 0;  ///< stddev / mean (0 when the mean is 0)
    std::int64_t outliers = 0;  ///< instances longer than Q3 + 1.5 IQR
    model::TimeNs costNs = 0;  ///< sum of max(0, duration - p50)
    friend bool operator==(const DurationStats&, const DurationStats&) = default;
};

/// The nearest-rank p-quantile (0 < p <= 1) of ascending `sorted`; 0 when empty.
model::TimeNs nearestRankQuantile(std::span<const model::TimeNs> sorted, double p);
/// The statistics of `durations`, which it sorts.
DurationStats durationStats(std::vector<model::TimeNs>& durations);

struct VariabilityInstance
{
    model::TimeNs startNs = 0;
    model::TimeNs durationNs = 0;
    friend bool operator==(const VariabilityInstance&, const VariabilityInstance&) = default;
};

/// The instances of one name on one track.
struct TrackInstances
{
    model::Role role = model::Role::Useful;  ///< of the first instance seen
    std::vector<VariabilityInstance> instances;
    friend bool operator==(const TrackInstances&, const TrackInstances&) = default;
};

/// One hardware metric's values over the instances of one kernel (Nsight Compute).
struct MetricValues
{
    std::string unit;
    std::vector<double> values;
    friend bool operator==(const MetricValues&, const MetricValues&) = default;
};

class VariabilityPartial
{
public:
    /// Reads, exactly, the intervals of `tracks` that start in `window` and the samples of
    /// the counter tracks among them (with the last sample before the window). `progress`
    /// hears (tracks done, tracks) before each track; false throws storage::Cancelled.
    void collect(StoreReader& store, std::span<const model::TrackId> tracks,
        model::TimeRange window, const ProgressFn& progress = {});
    /// Adds `other` to this one (see the file comment).
    void merge(VariabilityPartial&& other);
    /// Sorts every list, so that equal contents compare equal whatever the grouping.
    void normalize();
    /// The partial as bytes, to send to the process that merges (an MPI rank); fromBytes
    /// reads them back equal, or throws CorruptTile for bytes that are not one.
    std::string toBytes() const;
    static VariabilityPartial fromBytes(std::string_view bytes);

    /// name text -> track -> instances
    std::map<std::string, std::map<model::TrackId, TrackInstances>, std::less<>> names;
    /// counter track -> its samples, by time
    std::map<model::TrackId, std::vector<model::CounterSample>> counters;
    /// kernel name text -> metric text -> values of the kernel's instances in the window
    std::map<std::string, std::map<std::string, MetricValues>, std::less<>> kernelMetrics;
    friend bool operator==(const VariabilityPartial&, const VariabilityPartial&) = default;

private:
    void collectKernelMetrics(StoreReader& store, model::TrackId track, model::TimeRange window);
};

struct VariabilityRequest
{
    model::TimeRange window;  ///< empty: the whole run (the activity span)
    /// Workers whose instances are compared; tracks outside every worker of the level (a
    /// GPU's streams at the process level) count for the process driving them.
    model::WorkerLevel level = model::WorkerLevel::Process;
    std::string namesRegex;  ///< ECMAScript, searched in the name; empty: every name
    int top = 10;  ///< names reported (and coincidences of the top names)
    int slowest = 5;  ///< slowest instances kept per name
};

struct WorkerVariability
{
    std::string worker;
    DurationStats stats;
    double medianRatio = 1;  ///< the worker's p50 / the name's p50
    /// medianRatio >= kSlowerWorkerRatio and at least kMinInstancesToCompare instances.
    bool systematicallySlower = false;
    friend bool operator==(const WorkerVariability&, const WorkerVariability&) = default;
};

struct SlowInstance
{
    std::string worker;
    model::TrackId track = model::kNoTrack;
    model::TimeNs startNs = 0;
    model::TimeNs durationNs = 0;
    friend bool operator==(const SlowInstance&, const SlowInstance&) = default;
};

struct NameVariability
{
    std::string name;
    /// Instances on GPU tracks. A name on both sides (Kineto mirrors every user range as a
    /// gpu_user_annotation) is two entries: host and device durations do not mix.
    bool device = false;
    model::Role role = model::Role::Useful;
    DurationStats stats;
    std::vector<WorkerVariability> workers;  ///< in worker (tree) order
    std::vector<SlowInstance> slowest;  ///< longest first
    friend bool operator==(const NameVariability&, const NameVariability&) = default;
};

struct StragglerStep
{
    std::string step;  ///< "ProfilerStep#3", or "collective 7"
    model::TimeNs startNs = 0, endNs = 0;  ///< on the straggler
    model::TimeNs excessNs = 0;
    friend bool operator==(const StragglerStep&, const StragglerStep&) = default;
};

struct StragglerCause
{
    std::string name;
    model::TimeNs excessNs = 0;
    friend bool operator==(const StragglerCause&, const StragglerCause&) = default;
};

struct Straggler
{
    std::string worker;
    model::TimeNs excessNs = 0;  ///< summed over its steps
    std::vector<StragglerStep> steps;
    std::vector<StragglerCause> causes;  ///< largest excess first
    friend bool operator==(const Straggler&, const Straggler&) = default;
};

struct Coincidence
{
    std::string name;
    bool device = false;  ///< of the device-side entry of the name
    std::string with;  ///< "memcpy", "comm", "other_process" or "counter:NAME"
    /// Shares of instances overlapping it, or counter means during the instances.
    double slow = 0, fast = 0;
    friend bool operator==(const Coincidence&, const Coincidence&) = default;
};

/// How a per-kernel hardware metric varies across the kernel's instances.
struct KernelMetricVariability
{
    std::string kernel, metric, unit;
    std::int64_t count = 0;
    double mean = 0, stddev = 0, cv = 0, min = 0, max = 0;
    friend bool operator==(
        const KernelMetricVariability&, const KernelMetricVariability&) = default;
};

/// A worker straggles in a step when its work (the step outside collectives) exceeds the
/// median of the other workers' by at least this share of the step's median length. The
/// four DDP ranks of shared/data/real/h100 (uneven batches of 8 to 24 sequences, gloo)
/// differ by at most 4.8 % of a step on the host, so 10 % leaves them even.
inline constexpr double kStragglerThreshold = 0.10;
inline constexpr double kSlowerWorkerRatio = 1.10;
inline constexpr std::int64_t kMinInstancesToCompare = 3;

struct VariabilityReport
{
    model::TimeRange window;
    model::WorkerLevel level = model::WorkerLevel::Process;
    std::vector<NameVariability> names;  ///< by decreasing cost, at most `top`
    std::string stepSource;  ///< "ProfilerStep", "collectives", or "" when no steps
    int stepsCompared = 0;  ///< steps seen on at least two workers
    std::vector<Straggler> stragglers;  ///< by decreasing excess
    std::vector<Coincidence> coincidence;
    /// Kernels with at least two instances, by decreasing CV (at most `top` per kernel).
    std::vector<KernelMetricVariability> kernelMetrics;
    friend bool operator==(const VariabilityReport&, const VariabilityReport&) = default;
};

/// The report of a (merged) partial; `tree` is the run's resource tree.
VariabilityReport finishVariability(
    VariabilityPartial partial, const model::ResourceTree& tree, const VariabilityRequest& request);

/// What a whole-store computation reads: the request with its window resolved (empty:
/// the activity span), the window read (the run's includes its last instant) and the
/// tracks (intervals or counters). Partials over any split of `tracks` (the shards of a
/// run, the ranks of strata-mpi), collected over `read` and merged, finish as the whole.
struct VariabilityScope
{
    VariabilityRequest request;
    model::TimeRange read;
    std::vector<model::TrackId> tracks;
};
VariabilityScope variabilityScope(const StoreReader& store, const VariabilityRequest& request);

/// The whole pipeline over one store: every track in one partial, then finish.
VariabilityReport computeVariability(
    StoreReader& store, const VariabilityRequest& request, const ProgressFn& progress = {});

}  // namespace strata::storage
