#include "storage/store/level_summarizer.h"

#include <algorithm>
#include <array>

namespace strata::storage {

namespace {

using model::TimeNs;

/// What one interval, or one entry of a finer cell, adds to a cell.
struct Contribution
{
    std::int64_t bucket;
    TimeNs coverageNs;
    TimeNs longestStartNs;
    TimeNs longestDurationNs;  ///< -1: carries no longest event
    model::StringId name;
    model::StringId longestName;
    std::uint32_t count;
    model::Depth depth;
    model::Role role;
};

void addInterval(std::vector<Contribution>& out, const model::Interval& e, TimeNs bucketNs)
{
    const std::int64_t first = model::floorDiv(e.startNs, bucketNs);
    const std::int64_t last = e.endNs > e.startNs ? model::floorDiv(e.endNs - 1, bucketNs) : first;
    for (std::int64_t b = first; b <= last; ++b) {
        const TimeNs lo = std::max(e.startNs, b * bucketNs);
        const TimeNs hi = std::min(e.endNs, (b + 1) * bucketNs);
        out.push_back({b, hi - lo, e.startNs, e.durationNs(), e.name, e.name, b == first ? 1u : 0u, e.depth,
                       e.role});
    }
}

/// Longer wins; among equals the earlier start, so the result is order independent.
bool longer(TimeNs durationNs, TimeNs startNs, const IntervalCell& than)
{
    return durationNs > than.longestDurationNs
           || (durationNs == than.longestDurationNs && startNs < than.longestStartNs);
}

IntervalSummaryTile reduce(std::vector<Contribution>& parts, TimeNs bucketNs)
{
    // Group by (bucket, depth) through 16-byte keys (sorting them is several times
    // faster than sorting the 48-byte parts with a 4-key comparator: this is the hot loop
    // of tiling), then merge each group's entries by (name, role). The result does not
    // depend on the order of `parts`.
    struct Key
    {
        std::int64_t bucket;
        std::uint32_t index;
        model::Depth depth;
        bool operator<(const Key& o) const { return bucket != o.bucket ? bucket < o.bucket : depth < o.depth; }
        bool sameCell(const Key& o) const { return bucket == o.bucket && depth == o.depth; }
    };
    std::vector<Key> order(parts.size());
    for (std::size_t i = 0; i < parts.size(); ++i)
        order[i] = {parts[i].bucket, static_cast<std::uint32_t>(i), parts[i].depth};
    std::sort(order.begin(), order.end());
    IntervalSummaryTile level;
    level.bucketNs = bucketNs;
    for (std::size_t i = 0; i < order.size();) {
        const Contribution& head = parts[order[i].index];
        IntervalCell cell;
        cell.bucket = head.bucket;
        cell.depth = head.depth;
        cell.longestDurationNs = -1;
        cell.firstEntry = static_cast<std::uint32_t>(level.entries.size());
        for (const Key key = order[i]; i < order.size() && order[i].sameCell(key); ++i) {
            const Contribution& p = parts[order[i].index];
            cell.count += p.count;
            if (p.longestDurationNs >= 0 && longer(p.longestDurationNs, p.longestStartNs, cell)) {
                cell.longestStartNs = p.longestStartNs;
                cell.longestDurationNs = p.longestDurationNs;
                cell.longestName = p.longestName;
            }
            const auto entries = level.entries.begin() + cell.firstEntry;
            const auto same = std::find_if(entries, level.entries.end(), [&](const Coverage& c) {
                return c.name == p.name && c.role == p.role;
            });
            if (same != level.entries.end())
                same->coverageNs += p.coverageNs;
            else
                level.entries.push_back({p.name, p.role, p.coverageNs});
        }
        cell.entryCount = static_cast<std::uint32_t>(level.entries.size() - cell.firstEntry);
        std::sort(level.entries.begin() + cell.firstEntry, level.entries.end(), [](const Coverage& a, const Coverage& b) {
            if (a.coverageNs != b.coverageNs)
                return a.coverageNs > b.coverageNs;
            return a.name != b.name ? a.name < b.name : a.role < b.role;
        });
        level.cells.push_back(cell);
    }
    std::vector<Contribution>().swap(parts);
    return level;
}

} // namespace

std::vector<std::size_t> groupByBand(const model::LodGrid& grid, std::vector<model::Interval>& intervals)
{
    // A counting sort: stable, one extra copy at a time.
    std::vector<std::size_t> starts(grid.levels + 2, 0);
    for (const model::Interval& e : intervals)
        ++starts[grid.bandOf(e.durationNs()) + 1];
    for (std::size_t b = 1; b < starts.size(); ++b)
        starts[b] += starts[b - 1];
    std::vector<std::size_t> next(starts.begin(), starts.end() - 1);
    std::vector<model::Interval> grouped(intervals.size());
    for (const model::Interval& e : intervals)
        grouped[next[grid.bandOf(e.durationNs())]++] = e;
    intervals.swap(grouped);
    return starts;
}

std::vector<IntervalSummaryTile> summarizeIntervals(const model::LodGrid& grid,
                                                    std::span<const model::Interval> sortedIntervals)
{
    std::vector<model::Interval> byBand(sortedIntervals.begin(), sortedIntervals.end());
    const std::vector<std::size_t> starts = groupByBand(grid, byBand);
    return summarizeIntervals(grid, byBand, starts);
}

std::vector<IntervalSummaryTile> summarizeIntervals(const model::LodGrid& grid,
                                                    std::span<const model::Interval> byBand,
                                                    std::span<const std::size_t> bandStarts)
{
    std::vector<IntervalSummaryTile> levels(grid.levels);
    std::vector<Contribution> parts;
    for (int level = 1; level <= grid.levels; ++level) {
        if (level > 1) {
            const IntervalSummaryTile& finer = levels[level - 2];
            for (const IntervalCell& child : finer.cells) {
                const std::int64_t bucket = child.bucket >> grid.factorLog2;
                for (std::uint32_t k = 0; k < child.entryCount; ++k) {
                    const Coverage& e = finer.entries[child.firstEntry + k];
                    // The cell's count and longest event ride on its first entry.
                    parts.push_back({bucket, e.coverageNs, child.longestStartNs,
                                     k == 0 ? child.longestDurationNs : -1, e.name, child.longestName,
                                     k == 0 ? child.count : 0u, child.depth, e.role});
                }
            }
        }
        // Band level-1 is shorter than a bucket of this level: it joins here.
        for (std::size_t i = bandStarts[level - 1]; i < bandStarts[level]; ++i)
            addInterval(parts, byBand[i], grid.bucketNs(level));
        levels[level - 1] = reduce(parts, grid.bucketNs(level));
    }
    return levels;
}

IntervalSummaryTile truncatedTile(const IntervalSummaryTile& full, std::size_t firstCell, std::size_t lastCell)
{
    IntervalSummaryTile tile;
    tile.bucketNs = full.bucketNs;
    tile.cells.reserve(lastCell - firstCell);
    for (std::size_t c = firstCell; c < lastCell; ++c) {
        IntervalCell cell = full.cells[c];
        const auto entries = std::span(full.entries).subspan(cell.firstEntry, cell.entryCount);
        cell.firstEntry = static_cast<std::uint32_t>(tile.entries.size());
        const std::size_t kept = std::min<std::size_t>(entries.size(), kTopNamesPerCell);
        tile.entries.insert(tile.entries.end(), entries.begin(), entries.begin() + static_cast<std::ptrdiff_t>(kept));
        std::array<TimeNs, model::kRoleCount> other{};
        for (std::size_t i = kept; i < entries.size(); ++i)
            other[static_cast<std::size_t>(entries[i].role)] += entries[i].coverageNs;
        for (model::Role role : model::kAllRoles) {
            if (other[static_cast<std::size_t>(role)] > 0)
                tile.entries.push_back({kOtherNames, role, other[static_cast<std::size_t>(role)]});
        }
        cell.entryCount = static_cast<std::uint32_t>(tile.entries.size() - cell.firstEntry);
        tile.cells.push_back(cell);
    }
    return tile;
}

namespace {

void addConstant(CounterPiece& piece, double value, TimeNs fromNs, TimeNs toNs)
{
    if (toNs <= fromNs)
        return;
    piece.integral += value * static_cast<double>(toNs - fromNs);
    piece.cell.weightNs += toNs - fromNs;
    piece.cell.min = std::min(piece.cell.min, value);
    piece.cell.max = std::max(piece.cell.max, value);
}

void finishPiece(CounterPiece& piece)
{
    piece.cell.mean = piece.cell.weightNs > 0
                          ? piece.integral / static_cast<double>(piece.cell.weightNs)
                          : piece.cell.last;
}

/// One level from pieces that each lie inside one bucket of it, in time order.
std::vector<CounterPiece> counterLevel(const std::vector<CounterPiece>& pieces, TimeNs bucketNs)
{
    std::vector<CounterPiece> out;
    const CounterPiece* previous = nullptr;
    for (const CounterPiece& q : pieces) {
        const std::int64_t bucket = model::floorDiv(q.startNs, bucketNs);
        if (out.empty() || out.back().cell.bucket != bucket) {
            if (!out.empty()) {
                // The value of the last piece holds to the end of its bucket.
                CounterPiece& done = out.back();
                addConstant(done, previous->cell.last, previous->endNs, (done.cell.bucket + 1) * bucketNs);
                done.endNs = (done.cell.bucket + 1) * bucketNs;
                finishPiece(done);
            }
            CounterPiece& fresh = out.emplace_back();
            fresh.cell.bucket = bucket;
            fresh.cell.min = q.cell.min;
            fresh.cell.max = q.cell.max;
            fresh.startNs = previous ? bucket * bucketNs : q.startNs;
            fresh.endNs = fresh.startNs;
            if (previous)
                addConstant(fresh, previous->cell.last, bucket * bucketNs, q.startNs);
        } else {
            addConstant(out.back(), previous->cell.last, previous->endNs, q.startNs);
        }
        CounterPiece& cur = out.back();
        cur.cell.count += q.cell.count;
        cur.cell.min = std::min(cur.cell.min, q.cell.min);
        cur.cell.max = std::max(cur.cell.max, q.cell.max);
        cur.integral += q.integral;
        cur.cell.weightNs += q.cell.weightNs;
        cur.cell.last = q.cell.last;
        cur.endNs = q.endNs;
        previous = &q;
    }
    if (!out.empty())
        finishPiece(out.back());  // the track's last value holds for no time
    return out;
}

} // namespace

std::vector<std::vector<CounterPiece>> summarizeCounters(
    const model::LodGrid& grid, std::span<const model::CounterSample> sortedSamples)
{
    std::vector<std::vector<CounterPiece>> levels(grid.levels);
    std::vector<CounterPiece> pieces;
    pieces.reserve(sortedSamples.size());
    for (const model::CounterSample& s : sortedSamples) {
        CounterPiece& p = pieces.emplace_back();
        p.cell.count = 1;
        p.cell.min = p.cell.max = p.cell.mean = p.cell.last = s.value;
        p.startNs = p.endNs = s.timeNs;
    }
    for (int level = 1; level <= grid.levels; ++level) {
        levels[level - 1] = counterLevel(level == 1 ? pieces : levels[level - 2], grid.bucketNs(level));
    }
    return levels;
}

std::vector<std::vector<InstantCell>> summarizeInstants(
    const model::LodGrid& grid, std::span<const model::Instant> sortedInstants)
{
    std::vector<std::vector<InstantCell>> levels(grid.levels);
    for (int level = 1; level <= grid.levels; ++level) {
        std::vector<InstantCell>& out = levels[level - 1];
        auto add = [&out](std::int64_t bucket, std::uint32_t count, TimeNs firstNs,
                          model::StringId name) {
            if (out.empty() || out.back().bucket != bucket)
                out.push_back({bucket, 0, firstNs, name});
            out.back().count += count;
        };
        if (level == 1) {
            for (const model::Instant& i : sortedInstants)
                add(grid.bucketOf(i.timeNs, 1), 1, i.timeNs, i.name);
        } else {
            for (const InstantCell& c : levels[level - 2])
                add(c.bucket >> grid.factorLog2, c.count, c.firstNs, c.firstName);
        }
    }
    return levels;
}

} // namespace strata::storage
