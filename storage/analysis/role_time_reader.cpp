#include "storage/analysis/role_time_reader.h"

#include <algorithm>

namespace strata::storage {

using model::Role;
using model::RoleSpan;
using model::RoleTimes;
using model::TimeNs;
using model::TimeRange;

namespace {

std::size_t index(Role r)
{
    return static_cast<std::size_t>(r);
}

/// Coverage one layer (track of the worker, depth) adds to one bucket.
struct Contribution
{
    std::int64_t bucket;
    std::uint64_t layer;
    TimeNs ns;
    Role role;
    bool known;
};

std::uint64_t layerKey(std::size_t track, model::Depth depth)
{
    return (static_cast<std::uint64_t>(track) << 16) | depth;
}

/// Adds the part of [s, e) inside [a, b) to the buckets of width w it touches.
template<typename Fn>
void forBuckets(TimeNs s, TimeNs e, TimeNs a, TimeNs b, TimeNs w, Fn fn)
{
    s = std::max(s, a);
    e = std::min(e, b);
    if (s >= e)
        return;
    for (std::int64_t k = model::floorDiv(s, w); k * w < e; ++k)
        fn(k, std::min(e, (k + 1) * w) - std::max(s, k * w));
}

}  // namespace

void learnCategory(CategoryKnowledge& knowledge, model::StringId name, model::StringId category)
{
    auto [it, added] = knowledge.emplace(name, category);
    if (!added && it->second != category)
        it->second = kMixedCategories;
}

void learnCategories(CategoryKnowledge& knowledge, const CategoryKnowledge& more)
{
    for (const auto& [name, category] : more)
        learnCategory(knowledge, name, category);
}

RoleTimeReader::RoleTimeReader(StoreReader& store, Options options)
    : m_store(store)
    , m_options(options)
    , m_ruleSet(options.rules ? *options.rules : model::RoleRules::defaults())
{
    std::vector<model::StringId> categories;
    for (const auto& [category, totals] : store.categories())
        categories.push_back(category);
    m_ruleSet.restrictToCategories(store.strings(), categories);
}

int RoleTimeReader::slotLevel(TimeRange window) const
{
    const double nsPerSlot =
        static_cast<double>(window.durationNs()) / std::max(1, m_options.maxSlots);
    return std::max(1, m_store.grid().levelFor(nsPerSlot));
}

RoleTimeReader::Resolved RoleTimeReader::fromRule(int rule, Role stored) const
{
    if (rule < 0)
        return { stored, -1, true };
    return { m_ruleSet.rules()[static_cast<std::size_t>(rule)].role, rule, true };
}

RoleTimeReader::Resolved RoleTimeReader::resolveExact(const model::Interval& e)
{
    if (m_ruleSet.usesCategory()) {
        learnCategory(m_categoryOf, e.name, e.category);
    }
    return fromRule(m_ruleSet.match(m_store.strings(), e.name, e.category), e.role);
}

RoleTimeReader::Resolved RoleTimeReader::resolveEntry(const Coverage& c) const
{
    const bool anyLive = std::any_of(m_ruleSet.rules().begin(), m_ruleSet.rules().end(),
        [](const model::RoleRule& r) { return r.live; });
    if (!anyLive)
        return { c.role, -1, true };
    if (c.name == kOtherNames)
        return { c.role, -1, false };
    if (const auto rule = m_ruleSet.matchNameOnly(m_store.strings(), c.name))
        return fromRule(*rule, c.role);
    const auto seen = m_categoryOf.find(c.name);
    if (seen == m_categoryOf.end() || seen->second == kMixedCategories)
        return { c.role, -1, false };
    return fromRule(m_ruleSet.match(m_store.strings(), c.name, seen->second), c.role);
}

void RoleTimeReader::attribute(const Resolved& r, model::StringId name, TimeNs ns)
{
    if (!r.role)
        return;
    m_attribution.byRule[{ *r.role, r.rule }] += ns;
    m_attribution.byName[{ *r.role, name }] += ns;
}

std::vector<RoleSpan> RoleTimeReader::trackSpans(
    const std::vector<model::Interval>& intervals, TimeRange window)
{
    std::vector<RoleSpan> spans;
    for (const model::Interval& e : intervals) {
        const Resolved r = resolveExact(e);
        const TimeNs s = std::max(e.startNs, window.startNs), t = std::min(e.endNs, window.endNs);
        if (s < t && r.role) {
            attribute(r, e.name, t - s);
            spans.push_back({ s, t, *r.role });
        }
    }
    return spans;
}

RoleTimes RoleTimeReader::exactFromIntervals(
    const std::vector<std::vector<model::Interval>>& perTrack, TimeRange window,
    const model::WorkerPriority& priority, std::vector<RoleSlot>* buckets, TimeNs bucketNs)
{
    // Each track's own role first (nesting), then the tracks together.
    std::vector<RoleSpan> resolved;
    for (const auto& intervals : perTrack) {
        model::sweepRoleSegments(trackSpans(intervals, window), window, priority.within,
            [&](TimeNs s, TimeNs t, Role role) {
                resolved.push_back({ s, t, role });
            });
    }
    RoleTimes out;
    out.windowNs = window.durationNs();
    model::sweepRoleSegments(resolved, window, priority.across, [&](TimeNs s, TimeNs t, Role role) {
        out.ns[index(role)] += t - s;
        if (!buckets)
            return;
        const std::int64_t first = model::floorDiv(window.startNs, bucketNs);
        forBuckets(s, t, window.startNs, window.endNs, bucketNs, [&](std::int64_t k, TimeNs ns) {
            (*buckets)[static_cast<std::size_t>(k - first)].times.ns[index(role)] += ns;
        });
    });
    return out;
}

RoleTimes RoleTimeReader::exactRoleTimes(
    std::span<const model::TrackId> tracks, TimeRange window, const model::WorkerPriority& priority)
{
    std::vector<std::vector<model::Interval>> perTrack;
    for (model::TrackId track : tracks)
        perTrack.push_back(m_store.intervals(track, window.startNs, window.endNs));
    return exactFromIntervals(perTrack, window, priority, nullptr, 1);
}

RoleTimes RoleTimeReader::roleTimes(
    std::span<const model::TrackId> tracks, TimeRange window, const model::WorkerPriority& priority)
{
    RoleTimes total;
    for (const RoleSlot& slot : roleSlots(tracks, window, priority))
        total += slot.times;
    return total;
}

RoleTimeReader::SlotGrid RoleTimeReader::slotGrid(TimeRange window) const
{
    const TimeNs w = m_store.grid().bucketNs(slotLevel(window));
    const TimeNs a = -model::floorDiv(-window.startNs, w) * w;  // first border at or after t0
    const TimeNs b = model::floorDiv(window.endNs, w) * w;  // last border at or before t1
    return { w, a, b };
}

CategoryKnowledge RoleTimeReader::categoriesLearnedBy(
    std::span<const model::TrackId> tracks, TimeRange window)
{
    // The exact intervals roleSlots reads, through resolveExact, and only those.
    CategoryKnowledge learned;
    if (!m_ruleSet.usesCategory() || window.empty())
        return learned;
    auto learn = [&](const std::vector<model::Interval>& intervals) {
        for (const model::Interval& e : intervals)
            learnCategory(learned, e.name, e.category);
    };
    auto exactRange = [&](TimeRange range) {
        if (range.empty())
            return;
        for (model::TrackId track : tracks)
            learn(m_store.intervals(track, range.startNs, range.endNs));
    };
    const auto [w, a, b] = slotGrid(window);
    if (a >= b) {
        exactRange({ window.startNs, std::min(a, window.endNs) });
        exactRange({ std::max(a, window.startNs), window.endNs });
        return learned;
    }
    exactRange({ window.startNs, a });
    ViewportQuery q;
    q.tracks.assign(tracks.begin(), tracks.end());
    q.startNs = a;
    q.endNs = b;
    q.pixelWidth = static_cast<int>((b - a) / w);
    for (const TrackSlice& slice : m_store.query(q))
        learn(slice.intervals);
    exactRange({ b, window.endNs });
    return learned;
}

std::vector<RoleSlot> RoleTimeReader::roleSlots(
    std::span<const model::TrackId> tracks, TimeRange window, const model::WorkerPriority& priority)
{
    std::vector<RoleSlot> slots;
    if (window.empty())
        return slots;
    const auto [w, a, b] = slotGrid(window);
    auto exactSlot = [&](TimeRange range) {
        if (!range.empty())
            slots.push_back({ range, exactRoleTimes(tracks, range, priority) });
    };
    if (a >= b) {  // no whole bucket: the window is at most two partial ones
        exactSlot({ window.startNs, std::min(a, window.endNs) });
        exactSlot({ std::max(a, window.startNs), window.endNs });
        return slots;
    }
    exactSlot({ window.startNs, a });
    const std::size_t firstMiddle = slots.size();
    const std::int64_t firstBucket = a / w;
    const auto bucketCount = static_cast<std::size_t>((b - a) / w);
    for (std::size_t i = 0; i < bucketCount; ++i) {
        RoleSlot slot;
        slot.range = { a + static_cast<TimeNs>(i) * w, a + static_cast<TimeNs>(i + 1) * w };
        slot.times.windowNs = w;
        slots.push_back(slot);
    }
    auto middle = [&](std::int64_t bucket) -> RoleTimes& {
        return slots[firstMiddle + static_cast<std::size_t>(bucket - firstBucket)].times;
    };

    ViewportQuery q;
    q.tracks.assign(tracks.begin(), tracks.end());
    q.startNs = a;
    q.endNs = b;
    q.pixelWidth = static_cast<int>(bucketCount);
    std::vector<TrackSlice> slices = m_store.query(q);
    const bool allExact = std::all_of(
        slices.begin(), slices.end(), [](const TrackSlice& s) { return s.intervalLevel == 0; });
    if (allExact) {
        std::vector<std::vector<model::Interval>> perTrack;
        for (TrackSlice& slice : slices)
            perTrack.push_back(std::move(slice.intervals));
        std::vector<RoleSlot> middleSlots(
            slots.begin() + static_cast<std::ptrdiff_t>(firstMiddle), slots.end());
        exactFromIntervals(perTrack, { a, b }, priority, &middleSlots, w);
        std::copy(middleSlots.begin(), middleSlots.end(),
            slots.begin() + static_cast<std::ptrdiff_t>(firstMiddle));
    } else {
        std::vector<Contribution> parts;
        for (std::size_t ti = 0; ti < slices.size(); ++ti) {
            const TrackSlice& slice = slices[ti];
            for (const model::Interval& e : slice.intervals) {
                const Resolved r = resolveExact(e);
                if (!r.role)
                    continue;
                forBuckets(e.startNs, e.endNs, a, b, w, [&](std::int64_t k, TimeNs ns) {
                    attribute(r, e.name, ns);
                    parts.push_back({ k, layerKey(ti, e.depth), ns, *r.role, true });
                });
            }
            for (const IntervalCell& cell : slice.cells) {
                if (cell.bucket < firstBucket
                    || cell.bucket >= firstBucket + static_cast<std::int64_t>(bucketCount))
                    continue;
                for (std::uint32_t i = 0; i < cell.entryCount; ++i) {
                    const Coverage& c = slice.entries[cell.firstEntry + i];
                    const Resolved r = resolveEntry(c);
                    if (!r.role)
                        continue;
                    attribute(r, c.name, c.coverageNs);
                    parts.push_back(
                        { cell.bucket, layerKey(ti, cell.depth), c.coverageNs, *r.role, r.known });
                }
            }
        }
        std::sort(parts.begin(), parts.end(), [](const Contribution& x, const Contribution& y) {
            return x.bucket != y.bucket ? x.bucket < y.bucket : x.layer < y.layer;
        });
        // Per bucket: the depths of each track mix into the track's role times, whose
        // error bound enters the across-tracks mix as unresolved time.
        model::BucketRoleMixer within(priority.within);
        model::BucketRoleMixer across(priority.across);
        std::vector<RoleTimes> trackTimes;
        for (std::size_t i = 0; i < parts.size();) {
            const std::int64_t bucket = parts[i].bucket;
            trackTimes.clear();
            while (i < parts.size() && parts[i].bucket == bucket) {
                const std::uint64_t track = parts[i].layer >> 16;
                while (i < parts.size() && parts[i].bucket == bucket
                    && (parts[i].layer >> 16) == track) {
                    const std::uint64_t layer = parts[i].layer;
                    std::array<TimeNs, model::kRoleCount> coverage {};
                    for (; i < parts.size() && parts[i].bucket == bucket && parts[i].layer == layer;
                         ++i) {
                        coverage[index(parts[i].role)] += parts[i].ns;
                        if (!parts[i].known)
                            within.addUnresolved(parts[i].ns);
                    }
                    within.addLayer(coverage);
                }
                trackTimes.push_back(within.closeBucket(w));
            }
            if (trackTimes.size() == 1) {  // one track: nothing to mix across
                middle(bucket) = trackTimes.front();
                continue;
            }
            for (const RoleTimes& t : trackTimes) {
                across.addLayer(t.ns);
                TimeNs trackError = 0;
                for (TimeNs e : t.errorNs)
                    trackError += e;
                across.addUnresolved(trackError);
            }
            middle(bucket) = across.closeBucket(w);
        }
    }
    exactSlot({ b, window.endNs });
    return slots;
}

}  // namespace strata::storage
