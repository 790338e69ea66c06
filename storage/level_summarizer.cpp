#include "storage/level_summarizer.h"

#include <algorithm>
#include <array>
#include <unordered_map>

namespace strata::storage {

namespace {

using model::TimeNs;

/// Cells of one level keyed by (bucket, depth), in first-touch order until sorted.
class CellMap
{
public:
    FullIntervalCell& at(std::int64_t bucket, model::Depth depth)
    {
        const std::uint64_t key = (static_cast<std::uint64_t>(bucket) << 16) | depth;
        auto [it, inserted] = m_index.try_emplace(key, m_cells.size());
        if (inserted) {
            FullIntervalCell& c = m_cells.emplace_back();
            c.cell.bucket = bucket;
            c.cell.depth = depth;
        }
        return m_cells[it->second];
    }

    std::vector<FullIntervalCell> take()
    {
        for (FullIntervalCell& c : m_cells) {
            std::sort(c.entries.begin(), c.entries.end(), [](const Coverage& a, const Coverage& b) {
                if (a.coverageNs != b.coverageNs)
                    return a.coverageNs > b.coverageNs;
                return a.name != b.name ? a.name < b.name : a.role < b.role;
            });
        }
        std::sort(m_cells.begin(), m_cells.end(),
                  [](const FullIntervalCell& a, const FullIntervalCell& b) {
                      return a.cell.bucket != b.cell.bucket ? a.cell.bucket < b.cell.bucket
                                                            : a.cell.depth < b.cell.depth;
                  });
        m_index.clear();
        return std::move(m_cells);
    }

private:
    std::unordered_map<std::uint64_t, std::size_t> m_index;
    std::vector<FullIntervalCell> m_cells;
};

void addCoverage(std::vector<Coverage>& entries, model::StringId name, model::Role role,
                 TimeNs ns)
{
    for (Coverage& e : entries) {
        if (e.name == name && e.role == role) {
            e.coverageNs += ns;
            return;
        }
    }
    entries.push_back({name, role, ns});
}

void offerLongest(FullIntervalCell& full, TimeNs startNs, TimeNs durationNs, model::StringId name)
{
    // Longer wins; among equals the earlier start, so the result is order independent.
    IntervalCell& cell = full.cell;
    const bool empty = !full.touched;
    full.touched = true;
    if (empty || durationNs > cell.longestDurationNs
        || (durationNs == cell.longestDurationNs && startNs < cell.longestStartNs)) {
        cell.longestStartNs = startNs;
        cell.longestDurationNs = durationNs;
        cell.longestName = name;
    }
}

void addInterval(CellMap& cells, const model::Interval& e, TimeNs bucketNs)
{
    const std::int64_t first = model::floorDiv(e.startNs, bucketNs);
    const std::int64_t last = e.endNs > e.startNs ? model::floorDiv(e.endNs - 1, bucketNs) : first;
    for (std::int64_t b = first; b <= last; ++b) {
        FullIntervalCell& c = cells.at(b, e.depth);
        const TimeNs lo = std::max(e.startNs, b * bucketNs);
        const TimeNs hi = std::min(e.endNs, (b + 1) * bucketNs);
        addCoverage(c.entries, e.name, e.role, hi - lo);
        if (b == first)
            ++c.cell.count;
        offerLongest(c, e.startNs, e.durationNs(), e.name);
    }
}

} // namespace

std::vector<std::vector<FullIntervalCell>> summarizeIntervals(
    const model::LodGrid& grid, std::span<const model::Interval> sortedIntervals)
{
    std::vector<std::vector<FullIntervalCell>> levels(grid.levels);
    // Intervals by band, so that level k+1 can add band k in one pass.
    std::vector<std::vector<const model::Interval*>> bands(grid.levels + 1);
    for (const model::Interval& e : sortedIntervals)
        bands[grid.bandOf(e.durationNs())].push_back(&e);

    for (int level = 1; level <= grid.levels; ++level) {
        CellMap cells;
        if (level > 1) {
            for (const FullIntervalCell& child : levels[level - 2]) {
                FullIntervalCell& c = cells.at(child.cell.bucket >> grid.factorLog2, child.cell.depth);
                c.cell.count += child.cell.count;
                for (const Coverage& e : child.entries)
                    addCoverage(c.entries, e.name, e.role, e.coverageNs);
                offerLongest(c, child.cell.longestStartNs, child.cell.longestDurationNs,
                             child.cell.longestName);
            }
        }
        for (const model::Interval* e : bands[level - 1])
            addInterval(cells, *e, grid.bucketNs(level));
        levels[level - 1] = cells.take();
    }
    return levels;
}

IntervalSummaryTile truncatedTile(std::span<const FullIntervalCell> cells, model::TimeNs bucketNs)
{
    IntervalSummaryTile tile;
    tile.bucketNs = bucketNs;
    tile.cells.reserve(cells.size());
    for (const FullIntervalCell& full : cells) {
        IntervalCell cell = full.cell;
        cell.firstEntry = static_cast<std::uint32_t>(tile.entries.size());
        const std::size_t kept = std::min<std::size_t>(full.entries.size(), kTopNamesPerCell);
        tile.entries.insert(tile.entries.end(), full.entries.begin(), full.entries.begin() + kept);
        std::array<TimeNs, model::kRoleCount> other{};
        for (std::size_t i = kept; i < full.entries.size(); ++i)
            other[static_cast<std::size_t>(full.entries[i].role)] += full.entries[i].coverageNs;
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
