#include "storage/analysis/variability.h"

#include "storage/analysis/efficiency_report.h"
#include "storage/analysis/variability_p.h"
#include "storage/store/input_error.h"

#include <algorithm>
#include <cmath>
#include <regex>

namespace strata::storage {

using model::TimeNs;
using model::TrackId;

TimeNs nearestRankQuantile(std::span<const TimeNs> sorted, double p)
{
    if (sorted.empty())
        return 0;
    const double rank = std::ceil(p * static_cast<double>(sorted.size()));
    const auto index = static_cast<std::size_t>(std::max(1.0, rank)) - 1;
    return sorted[std::min(index, sorted.size() - 1)];
}

DurationStats durationStats(std::vector<TimeNs>& durations)
{
    DurationStats s;
    if (durations.empty())
        return s;
    std::sort(durations.begin(), durations.end());
    s.count = static_cast<std::int64_t>(durations.size());
    for (TimeNs d : durations)
        s.totalNs += d;
    s.meanNs = static_cast<double>(s.totalNs) / static_cast<double>(s.count);
    double squares = 0;
    for (TimeNs d : durations)
        squares += (static_cast<double>(d) - s.meanNs) * (static_cast<double>(d) - s.meanNs);
    s.stddevNs = std::sqrt(squares / static_cast<double>(s.count));
    s.cv = s.meanNs > 0 ? s.stddevNs / s.meanNs : 0;
    s.p50Ns = nearestRankQuantile(durations, 0.50);
    s.p95Ns = nearestRankQuantile(durations, 0.95);
    s.p99Ns = nearestRankQuantile(durations, 0.99);
    s.maxNs = durations.back();
    s.minNs = durations.front();
    const TimeNs q1 = s.q1Ns = nearestRankQuantile(durations, 0.25);
    const TimeNs q3 = s.q3Ns = nearestRankQuantile(durations, 0.75);
    // Doubled to stay in integers: d > q3 + 1.5 (q3 - q1)  <=>  2 d > 2 q3 + 3 (q3 - q1).
    const TimeNs fence2 = 2 * q3 + 3 * (q3 - q1);
    const auto firstOutlier = std::upper_bound(durations.begin(), durations.end(), fence2,
        [](TimeNs fence, TimeNs d) { return fence < 2 * d; });
    s.outliers = durations.end() - firstOutlier;
    for (auto it = std::upper_bound(durations.begin(), durations.end(), s.p50Ns);
         it != durations.end(); ++it)
        s.costNs += *it - s.p50Ns;
    return s;
}

void VariabilityPartial::collect(StoreReader& store, std::span<const TrackId> tracks,
    model::TimeRange window, const ProgressFn& progress)
{
    const model::StringTable& strings = store.strings();
    const bool hasKernelMetrics = !store.kernelMetricNames().empty();
    std::uint64_t done = 0;
    for (TrackId track : tracks) {
        if (progress && !progress(done++, tracks.size()))
            throw Cancelled();
        if (store.resources().track(track).kind == model::ResourceKind::Counter) {
            auto& out = counters[track];
            const std::vector<StoreReader::TileRef> tiles =
                store.exactTiles(track, TileKind::Counters);
            // Tiles span [first sample, last sample]: start at the one holding the last
            // sample before the window, whose value holds at the window start.
            auto first = std::lower_bound(tiles.begin(), tiles.end(), window.startNs,
                [](const StoreReader::TileRef& r, TimeNs t) { return r.t1 < t; });
            if (first != tiles.begin())
                --first;
            std::optional<model::CounterSample> before;
            for (auto it = first; it != tiles.end() && it->t0 < window.endNs; ++it) {
                const DecodedTile decoded = store.readTile(track, *it, TileKind::Counters);
                for (const model::CounterSample& s : std::get<CounterTile>(decoded).samples) {
                    if (s.timeNs < window.startNs)
                        before = s;
                    else if (s.timeNs < window.endNs)
                        out.push_back(s);
                }
            }
            if (before)
                out.insert(out.begin(), *before);
            continue;
        }
        // Per track, a name id resolves to its list once: the map is keyed by text.
        std::vector<TrackInstances*> listOf;
        for (int band = 0; band <= store.grid().levels; ++band) {
            if (store.bandMaxDurationNs(track, band) < 0)
                continue;
            for (const StoreReader::TileRef& ref :
                store.exactTiles(track, TileKind::Intervals, band)) {
                // t0 is the tile's first start, t1 its largest end: no start in the window
                // when t1 < window start.
                if (ref.t0 >= window.endNs || ref.t1 < window.startNs)
                    continue;
                const DecodedTile decoded = store.readTile(track, ref, TileKind::Intervals);
                for (const model::Interval& e : std::get<IntervalTile>(decoded).events) {
                    if (e.startNs < window.startNs || e.startNs >= window.endNs)
                        continue;
                    if (e.name >= listOf.size())
                        listOf.resize(e.name + 1, nullptr);
                    TrackInstances*& list = listOf[e.name];
                    if (!list) {
                        const std::string_view text = strings.text(e.name);
                        auto it = names.find(text);
                        if (it == names.end())
                            it = names.emplace(std::string(text), decltype(it->second) {}).first;
                        auto [at, added] = it->second.try_emplace(track);
                        if (added)
                            at->second.role = e.role;
                        list = &at->second;
                    }
                    list->instances.push_back({ e.startNs, e.durationNs() });
                }
            }
        }
        // Growth leaves up to half of each list unused: give it back per track, while
        // the lists this track added to are known.
        for (TrackInstances* list : listOf) {
            if (list)
                list->instances.shrink_to_fit();
        }
        if (hasKernelMetrics)
            collectKernelMetrics(store, track, window);
    }
}

void VariabilityPartial::collectKernelMetrics(
    StoreReader& store, TrackId track, model::TimeRange window)
{
    const std::vector<model::KernelMetric> metrics = store.kernelMetrics(track);
    if (metrics.empty())
        return;
    // A metric names its kernel by (track, start): the kernel is the interval there.
    std::vector<std::pair<TimeNs, model::StringId>> kernels;
    for (const model::Interval& e : store.intervals(track, window.startNs, window.endNs))
        kernels.emplace_back(e.startNs, e.name);
    std::sort(kernels.begin(), kernels.end());
    const model::StringTable& strings = store.strings();
    for (const model::KernelMetric& m : metrics) {
        if (m.startNs < window.startNs || m.startNs >= window.endNs)
            continue;
        const auto k = std::lower_bound(
            kernels.begin(), kernels.end(), std::make_pair(m.startNs, model::StringId { 0 }));
        if (k == kernels.end() || k->first != m.startNs)
            continue;
        MetricValues& values = kernelMetrics[std::string(strings.text(k->second))]
                                            [std::string(strings.text(m.metric))];
        values.unit = strings.text(m.unit);
        values.values.push_back(m.value);
    }
}

void VariabilityPartial::merge(VariabilityPartial&& other)
{
    for (auto& [name, tracks] : other.names) {
        auto& mine = names[name];
        for (auto& [track, list] : tracks) {
            auto [at, added] = mine.try_emplace(track, std::move(list));
            if (!added)
                at->second.instances.insert(
                    at->second.instances.end(), list.instances.begin(), list.instances.end());
        }
    }
    for (auto& [track, samples] : other.counters) {
        auto& mine = counters[track];
        mine.insert(mine.end(), samples.begin(), samples.end());
    }
    for (auto& [kernel, metrics] : other.kernelMetrics) {
        for (auto& [metric, values] : metrics) {
            MetricValues& mine = kernelMetrics[kernel][metric];
            mine.unit = values.unit;
            mine.values.insert(mine.values.end(), values.values.begin(), values.values.end());
        }
    }
    other = {};
}

void VariabilityPartial::normalize()
{
    for (auto& [name, tracks] : names) {
        for (auto& [track, list] : tracks) {
            std::sort(list.instances.begin(), list.instances.end(),
                [](const VariabilityInstance& a, const VariabilityInstance& b) {
                    return a.startNs != b.startNs ? a.startNs < b.startNs
                                                  : a.durationNs < b.durationNs;
                });
        }
    }
    for (auto& [track, samples] : counters) {
        std::stable_sort(samples.begin(), samples.end(),
            [](const model::CounterSample& a, const model::CounterSample& b) {
                return a.timeNs < b.timeNs;
            });
        // A window split repeats the sample carried into the second window.
        samples.erase(std::unique(samples.begin(), samples.end()), samples.end());
    }
    for (auto& [kernel, metrics] : kernelMetrics) {
        for (auto& [metric, values] : metrics)
            std::sort(values.values.begin(), values.values.end());
    }
}

namespace detail {

TimeNs medianOf(std::vector<TimeNs>& values)
{
    if (values.empty())
        return 0;
    const std::size_t mid = (values.size() - 1) / 2;
    std::nth_element(
        values.begin(), values.begin() + static_cast<std::ptrdiff_t>(mid), values.end());
    return values[mid];
}

TrackId ancestorOfKind(const model::ResourceTree& tree, TrackId track, model::ResourceKind kind)
{
    for (TrackId t = track; t != model::kNoTrack; t = tree.track(t).parent) {
        if (tree.track(t).kind == kind)
            return t;
    }
    return model::kNoTrack;
}

WorkerMap mapWorkers(
    const VariabilityPartial& partial, const model::ResourceTree& tree, model::WorkerLevel level)
{
    std::vector<bool> holds(tree.size(), false);
    for (const auto& [name, tracks] : partial.names) {
        for (const auto& [track, list] : tracks)
            holds[track] = true;
    }
    const auto hasIntervals = [&](TrackId t) {
        return holds[t];
    };
    WorkerMap map;
    map.workers = model::workersAt(tree, level, hasIntervals);
    map.workerOf.assign(tree.size(), -1);
    map.native.assign(tree.size(), false);
    for (std::size_t w = 0; w < map.workers.size(); ++w) {
        for (TrackId t : map.workers[w].tracks) {
            map.workerOf[t] = static_cast<int>(w);
            map.native[t] = true;
        }
    }
    // The other side: at a host level a GPU's streams count for the process driving it;
    // at a device level host threads count for their process.
    const bool device = model::isDeviceLevel(level);
    const auto others = model::workersAt(
        tree, device ? model::WorkerLevel::Process : model::WorkerLevel::Gpu, hasIntervals);
    const auto processes =
        device ? others : model::workersAt(tree, model::WorkerLevel::Process, hasIntervals);
    for (const model::Worker& other : others) {
        const model::Worker* target = &other;
        if (!device && level == model::WorkerLevel::Process)
            target = hostOf(other, processes);
        int index = -1;
        if (target) {
            for (std::size_t w = 0; w < map.workers.size(); ++w) {
                if (map.workers[w].resource == target->resource)
                    index = static_cast<int>(w);
            }
        }
        if (index < 0) {
            index = static_cast<int>(map.workers.size());
            map.workers.push_back({ other.resource, other.name, {} });
        }
        for (TrackId t : other.tracks) {
            if (map.workerOf[t] < 0) {
                map.workerOf[t] = index;
                map.workers[static_cast<std::size_t>(index)].tracks.push_back(t);
            }
        }
    }
    return map;
}

}  // namespace detail

namespace {

using TrackLists = std::vector<std::pair<TrackId, const TrackInstances*>>;

NameVariability nameVariability(
    const std::string& name, const TrackLists& tracks, const detail::WorkerMap& map, int slowest)
{
    NameVariability out;
    out.name = name;
    out.role = tracks.front().second->role;
    std::vector<TimeNs> all;
    std::vector<std::vector<TimeNs>> perWorker(map.workers.size());
    std::vector<SlowInstance> slow;
    for (const auto& [track, list] : tracks) {
        const int w = map.workerOf[track];
        for (const VariabilityInstance& i : list->instances) {
            all.push_back(i.durationNs);
            if (w >= 0)
                perWorker[static_cast<std::size_t>(w)].push_back(i.durationNs);
        }
        // The slowest of this track, by (duration desc, start asc): enough candidates.
        std::vector<VariabilityInstance> mine(
            std::min<std::size_t>(list->instances.size(), static_cast<std::size_t>(slowest)));
        std::partial_sort_copy(list->instances.begin(), list->instances.end(), mine.begin(),
            mine.end(), [](const VariabilityInstance& a, const VariabilityInstance& b) {
                return a.durationNs != b.durationNs ? a.durationNs > b.durationNs
                                                    : a.startNs < b.startNs;
            });
        for (const VariabilityInstance& i : mine) {
            slow.push_back(
                { w >= 0 ? map.workers[static_cast<std::size_t>(w)].name : std::to_string(track),
                    track, i.startNs, i.durationNs });
        }
    }
    out.stats = durationStats(all);
    for (std::size_t w = 0; w < perWorker.size(); ++w) {
        if (perWorker[w].empty())
            continue;
        WorkerVariability wv;
        wv.worker = map.workers[w].name;
        wv.stats = durationStats(perWorker[w]);
        wv.medianRatio = out.stats.p50Ns > 0
            ? static_cast<double>(wv.stats.p50Ns) / static_cast<double>(out.stats.p50Ns)
            : 1.0;
        wv.systematicallySlower =
            wv.medianRatio >= kSlowerWorkerRatio && wv.stats.count >= kMinInstancesToCompare;
        out.workers.push_back(std::move(wv));
    }
    std::sort(slow.begin(), slow.end(), [](const SlowInstance& a, const SlowInstance& b) {
        if (a.durationNs != b.durationNs)
            return a.durationNs > b.durationNs;
        return a.startNs != b.startNs ? a.startNs < b.startNs : a.track < b.track;
    });
    if (slow.size() > static_cast<std::size_t>(slowest))
        slow.resize(static_cast<std::size_t>(slowest));
    out.slowest = std::move(slow);
    return out;
}

/// Per kernel with two instances or more, its `top` metrics of largest CV; all by
/// decreasing CV. Values are sorted (normalize), so sums are the same for any grouping.
std::vector<KernelMetricVariability> kernelMetricVariability(
    const VariabilityPartial& partial, int top)
{
    std::vector<KernelMetricVariability> out;
    for (const auto& [kernel, metrics] : partial.kernelMetrics) {
        std::vector<KernelMetricVariability> mine;
        for (const auto& [metric, values] : metrics) {
            const std::vector<double>& v = values.values;
            if (v.size() < 2)
                continue;
            KernelMetricVariability k { kernel, metric, values.unit,
                static_cast<std::int64_t>(v.size()) };
            double sum = 0, squares = 0;
            for (double x : v)
                sum += x;
            k.mean = sum / static_cast<double>(v.size());
            for (double x : v)
                squares += (x - k.mean) * (x - k.mean);
            k.stddev = std::sqrt(squares / static_cast<double>(v.size()));
            k.cv = k.mean != 0 ? k.stddev / std::abs(k.mean) : 0;
            k.min = v.front();
            k.max = v.back();
            mine.push_back(std::move(k));
        }
        std::stable_sort(
            mine.begin(), mine.end(), [](const auto& a, const auto& b) { return a.cv > b.cv; });
        if (mine.size() > static_cast<std::size_t>(top))
            mine.resize(static_cast<std::size_t>(top));
        out.insert(out.end(), mine.begin(), mine.end());
    }
    std::stable_sort(
        out.begin(), out.end(), [](const auto& a, const auto& b) { return a.cv > b.cv; });
    return out;
}

}  // namespace

VariabilityReport finishVariability(
    VariabilityPartial partial, const model::ResourceTree& tree, const VariabilityRequest& request)
{
    partial.normalize();
    VariabilityReport report;
    report.window = request.window;
    report.level = request.level;
    const detail::WorkerMap map = detail::mapWorkers(partial, tree, request.level);

    std::optional<std::regex> filter;
    if (!request.namesRegex.empty()) {
        try {
            filter.emplace(request.namesRegex, std::regex::ECMAScript);
        } catch (const std::regex_error& e) {
            throw InputError("--names: not a regular expression: " + request.namesRegex);
        }
    }
    for (const auto& [name, tracks] : partial.names) {
        if (filter && !std::regex_search(name, *filter))
            continue;
        TrackLists sides[2];  // host, device
        for (const auto& [track, list] : tracks) {
            const bool device =
                detail::ancestorOfKind(tree, track, model::ResourceKind::Gpu) != model::kNoTrack;
            sides[device ? 1 : 0].emplace_back(track, &list);
        }
        for (int side = 0; side < 2; ++side) {
            if (sides[side].empty())
                continue;
            report.names.push_back(nameVariability(name, sides[side], map, request.slowest));
            report.names.back().device = side == 1;
        }
    }
    std::sort(report.names.begin(), report.names.end(),
        [](const NameVariability& a, const NameVariability& b) {
            if (a.stats.costNs != b.stats.costNs)
                return a.stats.costNs > b.stats.costNs;
            return a.name != b.name ? a.name < b.name : a.device < b.device;
        });
    if (report.names.size() > static_cast<std::size_t>(request.top))
        report.names.resize(static_cast<std::size_t>(request.top));

    report.stragglers =
        detail::findStragglers(partial, map, report.stepSource, report.stepsCompared);
    report.coincidence = detail::findCoincidences(partial, tree, report.names);
    report.kernelMetrics = kernelMetricVariability(partial, request.top);
    return report;
}

VariabilityScope variabilityScope(const StoreReader& store, const VariabilityRequest& request)
{
    VariabilityScope scope;
    const model::TimeRange run = store.activitySpan();
    scope.request = request;
    scope.request.window = request.window.empty() ? run : request.window;
    // The whole run includes intervals starting at its last instant.
    scope.read = request.window.empty() ? model::TimeRange { run.startNs, run.endNs + 1 } : scope.request.window;
    for (const model::TrackInfo& t : store.resources().tracks()) {
        const TrackSummary& s = store.summary(t.id);
        if (s.intervals > 0 || s.counters > 0)
            scope.tracks.push_back(t.id);
    }
    return scope;
}

VariabilityReport computeVariability(
    StoreReader& store, const VariabilityRequest& request, const ProgressFn& progress)
{
    const VariabilityScope scope = variabilityScope(store, request);
    VariabilityPartial partial;
    partial.collect(store, scope.tracks, scope.read, progress);
    return finishVariability(std::move(partial), store.resources(), scope.request);
}

}  // namespace strata::storage
