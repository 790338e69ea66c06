#include "storage/analysis/useful_counters.h"

#include "model/workers.h"

#include <algorithm>

namespace strata::storage {

using model::TimeNs;
using model::TimeRange;

namespace {

/// The stretches of `window` where some useful interval of the track is open and no
/// interval of another role is, in time order (kHostPriority within one track).
std::vector<TimeRange> usefulStretches(
    const std::vector<model::Interval>& intervals, TimeRange window)
{
    struct Edge
    {
        TimeNs t;
        int delta;  ///< +1 opens, -1 closes
        bool other;  ///< of a non-useful role
    };
    std::vector<Edge> edges;
    edges.reserve(intervals.size() * 2);
    for (const model::Interval& i : intervals) {
        const TimeNs s = std::max(i.startNs, window.startNs);
        const TimeNs e = std::min(i.endNs, window.endNs);
        if (s >= e)
            continue;
        const bool other = i.role != model::Role::Useful;
        edges.push_back({ s, +1, other });
        edges.push_back({ e, -1, other });
    }
    std::sort(edges.begin(), edges.end(), [](const Edge& a, const Edge& b) { return a.t < b.t; });
    std::vector<TimeRange> out;
    int useful = 0, other = 0;
    TimeNs openedAt = 0;
    for (std::size_t i = 0; i < edges.size();) {
        const TimeNs t = edges[i].t;
        const bool wasUseful = useful > 0 && other == 0;
        for (; i < edges.size() && edges[i].t == t; ++i)
            (edges[i].other ? other : useful) += edges[i].delta;
        const bool isUseful = useful > 0 && other == 0;
        if (!wasUseful && isUseful)
            openedAt = t;
        else if (wasUseful && !isUseful)
            out.push_back({ openedAt, t });
    }
    return out;
}

/// Sum of the readings at window.startNs < t <= window.endNs that close a useful
/// stretch (the thread is useful just before t). A second reading at the same time
/// measured a call that took no traced time (Extrae writes an MPI call's begin and end
/// with one timestamp): it closes no burst, as in Paraver's "next event value".
double usefulSum(StoreReader& store, model::TrackId counter, const std::vector<TimeRange>& useful,
    TimeRange window)
{
    double sum = 0;
    std::size_t u = 0;
    TimeNs previousNs = window.startNs - 1;
    for (const StoreReader::TileRef& ref : store.exactTiles(counter, TileKind::Counters)) {
        if (ref.t1 <= window.startNs || ref.t0 > window.endNs)
            continue;
        const DecodedTile decoded = store.readTile(counter, ref, TileKind::Counters);
        for (const model::CounterSample& s : std::get<CounterTile>(decoded).samples) {
            const bool sameTime = s.timeNs == previousNs;
            previousNs = s.timeNs;
            if (sameTime || s.timeNs <= window.startNs || s.timeNs > window.endNs)
                continue;
            while (u < useful.size() && useful[u].endNs < s.timeNs)
                ++u;
            if (u < useful.size() && useful[u].startNs < s.timeNs)
                sum += s.value;
        }
    }
    return sum;
}

}  // namespace

namespace {

/// The sum of one field over the threads.
template<typename T>
T total(const std::vector<ThreadCounters>& threads, T ThreadCounters::*field)
{
    T sum {};
    for (const ThreadCounters& t : threads)
        sum += t.*field;
    return sum;
}

}  // namespace

TimeNs UsefulCounters::usefulNs() const
{
    return total(threads, &ThreadCounters::usefulNs);
}

double UsefulCounters::instructions() const
{
    return total(threads, &ThreadCounters::instructions);
}

double UsefulCounters::cycles() const
{
    return total(threads, &ThreadCounters::cycles);
}

bool UsefulCounters::complete() const
{
    bool any = false;
    for (const ThreadCounters& t : threads) {
        if (t.usefulNs > 0 && !(t.hasInstructions && t.hasCycles))
            return false;
        any = any || t.hasInstructions;
    }
    return any;
}

namespace {

/// Extrae's readings are increments; OTF2's PAPI metrics are mostly accumulated since
/// the start (Score-P's ACCUMULATED_START), which the importer keeps as they are: summing
/// those would be wrong, so only Paraver stores are read.
bool readingsAreIncrements(const StoreReader& store)
{
    return store.meta("source_format") == "paraver";
}

}  // namespace

bool hasUsefulCounters(const StoreReader& store)
{
    if (!readingsAreIncrements(store))
        return false;
    const auto& tracks = store.resources().tracks();
    return std::any_of(tracks.begin(), tracks.end(), [](const model::TrackInfo& t) {
        return t.kind == model::ResourceKind::Counter
            && (t.name.starts_with(kInstructionsCounter) || t.name.starts_with(kCyclesCounter));
    });
}

ThreadCounters threadCounters(StoreReader& store, const model::Worker& thread, TimeRange window)
{
    const bool increments = readingsAreIncrements(store);
    const model::ResourceTree& tree = store.resources();
    ThreadCounters c;
    c.thread = thread.name;
    const model::TrackId parent = tree.track(thread.resource).parent;
    if (parent != model::kNoTrack && tree.track(parent).kind == model::ResourceKind::Process)
        c.process = tree.path(parent);
    std::vector<model::Interval> intervals;
    for (model::TrackId t : thread.tracks) {
        auto part = store.intervals(t, window.startNs, window.endNs);
        intervals.insert(intervals.end(), part.begin(), part.end());
    }
    const std::vector<TimeRange> useful = usefulStretches(intervals, window);
    for (const TimeRange& r : useful)
        c.usefulNs += r.durationNs();
    for (model::TrackId child : tree.children(thread.resource)) {
        const model::TrackInfo& info = tree.track(child);
        if (info.kind != model::ResourceKind::Counter || !increments)
            continue;
        if (info.name.starts_with(kInstructionsCounter)) {
            c.hasInstructions = true;
            c.instructions += usefulSum(store, child, useful, window);
        } else if (info.name.starts_with(kCyclesCounter)) {
            c.hasCycles = true;
            c.cycles += usefulSum(store, child, useful, window);
        }
    }
    return c;
}

std::vector<model::Worker> counterThreads(const StoreReader& store)
{
    return model::workersAt(store.resources(), model::WorkerLevel::Thread,
        [&](model::TrackId t) { return store.summary(t).intervals > 0; });
}

UsefulCounters computeUsefulCounters(StoreReader& store, TimeRange window)
{
    UsefulCounters out;
    for (const model::Worker& w : counterThreads(store))
        out.threads.push_back(threadCounters(store, w, window));
    return out;
}

}  // namespace strata::storage
