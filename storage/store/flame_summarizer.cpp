#include "storage/store/flame_summarizer.h"

#include <algorithm>
#include <limits>
#include <unordered_map>

namespace strata::storage {

namespace {

using model::TimeNs;

/// What one sample, interval piece or finer entry adds to a bucket.
struct Part
{
    std::int64_t bucket;
    std::uint32_t path;
    std::uint32_t samples;  ///< stack samples it stands for
    std::int64_t weight;
};

/// Sorts `parts` by (bucket, path). Buckets span a range not much wider than the parts
/// are many (they come from time order), so a counting sort by bucket and a sort of each
/// bucket's few parts by path beat one comparison sort of them all (the hot loop of
/// tiling intervals); a wide range falls back to that sort.
void sortByBucketAndPath(std::vector<Part>& parts)
{
    auto byPath = [](const Part& a, const Part& b) {
        return a.path < b.path;
    };
    if (parts.size() < 2)
        return;
    const auto [lo, hi] = std::minmax_element(parts.begin(), parts.end(),
        [](const Part& a, const Part& b) { return a.bucket < b.bucket; });
    const std::int64_t first = lo->bucket;
    const std::uint64_t range =
        static_cast<std::uint64_t>(hi->bucket) - static_cast<std::uint64_t>(first) + 1;
    if (range > 2 * parts.size() + 1024) {
        std::sort(parts.begin(), parts.end(), [](const Part& a, const Part& b) {
            return a.bucket != b.bucket ? a.bucket < b.bucket : a.path < b.path;
        });
        return;
    }
    std::vector<std::uint32_t> starts(range + 1, 0);
    for (const Part& p : parts)
        ++starts[static_cast<std::size_t>(p.bucket - first) + 1];
    for (std::size_t b = 1; b < starts.size(); ++b)
        starts[b] += starts[b - 1];
    std::vector<Part> sorted(parts.size());
    std::vector<std::uint32_t> next(starts.begin(), starts.end() - 1);
    for (const Part& p : parts)
        sorted[next[static_cast<std::size_t>(p.bucket - first)]++] = p;
    for (std::size_t b = 0; b + 1 < starts.size(); ++b) {
        if (starts[b + 1] - starts[b] > 1)
            std::sort(sorted.begin() + starts[b], sorted.begin() + starts[b + 1], byPath);
    }
    parts.swap(sorted);
}

std::vector<FlameBucket> reduce(std::vector<Part>& parts)
{
    sortByBucketAndPath(parts);
    std::vector<FlameBucket> out;
    for (const Part& p : parts) {
        if (out.empty() || out.back().bucket != p.bucket)
            out.push_back({ p.bucket, 0, {} });
        FlameBucket& b = out.back();
        b.samples += p.samples;
        if (!b.entries.empty() && b.entries.back().path == p.path)
            b.entries.back().weight += p.weight;
        else
            b.entries.push_back({ p.path, p.weight });
    }
    return out;
}

/// The entries of one level as parts of the next (F = 2^factorLog2 buckets per bucket).
std::vector<Part> coarsen(const std::vector<FlameBucket>& buckets, int factorLog2)
{
    std::vector<Part> parts;
    const std::int64_t factor = std::int64_t(1) << factorLog2;
    for (const FlameBucket& b : buckets) {
        const std::int64_t up = model::floorDiv(b.bucket, factor);
        // The bucket's sample count rides on its first entry (in 32-bit pieces).
        std::int64_t samples = b.samples;
        constexpr std::int64_t kMaxPiece = std::numeric_limits<std::uint32_t>::max();
        for (; samples > kMaxPiece; samples -= kMaxPiece)
            parts.push_back(
                { up, b.entries.front().path, static_cast<std::uint32_t>(kMaxPiece), 0 });
        for (const FlameEntry& e : b.entries) {
            parts.push_back({ up, e.path, static_cast<std::uint32_t>(samples), e.weight });
            samples = 0;
        }
    }
    return parts;
}

std::size_t entryCount(const std::vector<FlameBucket>& buckets)
{
    std::size_t n = 0;
    for (const FlameBucket& b : buckets)
        n += b.entries.size();
    return n;
}

/// Builds levels `first`..top from `parts` (level `first`), adding `extra(level, parts)`
/// before reducing each level above the first. Levels are kept from the first that
/// compresses what went into it (samples, or interval pieces) enough.
template<typename Extra>
std::vector<FlameLevel> buildLevels(const model::LodGrid& grid, int first, int top,
    std::vector<Part> parts, const FlameSummaryOptions& options, Extra extra)
{
    std::vector<FlameLevel> levels;
    std::vector<FlameBucket> previous;
    auto raw = static_cast<std::int64_t>(parts.size());  // contributions so far
    for (int level = first; level <= top; ++level) {
        if (level > first) {
            parts = coarsen(levels.empty() ? previous : levels.back().buckets, grid.factorLog2);
            const std::size_t coarsened = parts.size();
            extra(level, parts);
            raw += static_cast<std::int64_t>(parts.size() - coarsened);
        }
        std::vector<FlameBucket> buckets = reduce(parts);
        std::vector<Part>().swap(parts);
        if (!levels.empty()
            || (!buckets.empty()
                && static_cast<std::int64_t>(entryCount(buckets)) * options.minCompression <= raw
                && static_cast<std::int64_t>(buckets.size()) * options.minEventsPerBucket <= raw))
            levels.push_back({ level, std::move(buckets) });
        else
            previous = std::move(buckets);
    }
    return levels;
}

/// The call path of each interval (and its parent's path), from the walk
/// FlameTreeBuilder::addTrackIntervals does; false when nesting is not proper.
struct Walked
{
    std::uint32_t path;
    std::uint32_t parent;  ///< 0: the root
};

bool walkPaths(
    std::span<const model::Interval> sorted, model::StackTable& paths, std::vector<Walked>& out)
{
    struct Open
    {
        std::uint32_t path;
        TimeNs endNs;
    };
    std::vector<Open> open;
    std::unordered_map<std::uint64_t, std::uint32_t> ids;
    out.reserve(sorted.size());
    for (const model::Interval& iv : sorted) {
        std::size_t depth = std::min<std::size_t>(iv.depth, open.size());
        while (depth > 0 && open[depth - 1].endNs <= iv.startNs && open[depth - 1].endNs < iv.endNs)
            --depth;
        if (depth > 0 && open[depth - 1].endNs < iv.endNs)
            return false;  // the enclosing interval ends first
        for (std::size_t k = depth; k < open.size(); ++k) {
            if (open[k].endNs > iv.startNs)
                return false;  // cuts short an interval still running
        }
        const std::uint32_t parent = depth == 0 ? 0 : open[depth - 1].path;
        const auto [it, added] = ids.try_emplace(
            (std::uint64_t(parent) << 32) | iv.name, static_cast<std::uint32_t>(paths.size()));
        if (added)
            paths.add(parent, iv.name);
        open.resize(depth);
        open.push_back({ it->second, iv.endNs });
        out.push_back({ it->second, parent });
    }
    return true;
}

void addIntervalParts(
    std::vector<Part>& parts, const model::Interval& iv, const Walked& w, TimeNs bucketNs)
{
    const std::int64_t first = model::floorDiv(iv.startNs, bucketNs);
    if (iv.endNs == iv.startNs) {
        parts.push_back({ first, w.path, 0, 0 });
        return;
    }
    const std::int64_t last = model::floorDiv(iv.endNs - 1, bucketNs);
    for (std::int64_t b = first; b <= last; ++b) {
        const TimeNs ns =
            std::min(iv.endNs, (b + 1) * bucketNs) - std::max(iv.startNs, b * bucketNs);
        parts.push_back({ b, w.path, 0, ns });
        if (w.parent != 0)
            parts.push_back({ b, w.parent, 0, -ns });
    }
}

}  // namespace

int flameTopLevel(const model::LodGrid& grid, TimeNs firstNs, TimeNs lastNs)
{
    int level = 1;
    while (grid.bucketOf(lastNs, level) - grid.bucketOf(firstNs, level) > 1
        && grid.bucketNs(level) < (std::numeric_limits<TimeNs>::max() >> (grid.factorLog2 + 2)))
        ++level;
    return level;
}

FlamePyramid summarizeFlameSamples(const model::LodGrid& grid,
    std::span<const model::StackSample> sorted, const FlameSummaryOptions& options)
{
    FlamePyramid out;
    const auto events = static_cast<std::int64_t>(sorted.size());
    if (events == 0 || events < options.minEvents)
        return out;
    const int top = flameTopLevel(grid, sorted.front().timeNs, sorted.back().timeNs);
    // Start where buckets alone are few enough: finer levels cannot compress.
    int first = 1;
    for (; first < top; ++first) {
        std::int64_t buckets = 0;
        std::int64_t last = std::numeric_limits<std::int64_t>::min();
        for (const model::StackSample& s : sorted) {
            const std::int64_t b = grid.bucketOf(s.timeNs, first);
            buckets += b != last;
            last = b;
        }
        if (buckets * std::max(options.minCompression, options.minEventsPerBucket) <= events)
            break;
    }
    std::vector<Part> parts;
    parts.reserve(sorted.size());
    for (const model::StackSample& s : sorted)
        parts.push_back({ grid.bucketOf(s.timeNs, first), s.stack, 1, s.weight });
    out.levels =
        buildLevels(grid, first, top, std::move(parts), options, [](int, std::vector<Part>&) {});
    return out;
}

FlamePyramid summarizeFlameIntervals(const model::LodGrid& grid,
    std::span<const model::Interval> sorted, const FlameSummaryOptions& options)
{
    FlamePyramid out;
    out.fromIntervals = true;
    const auto events = static_cast<std::int64_t>(sorted.size());
    std::vector<Walked> walked;
    if (events == 0 || events < options.minEvents || !walkPaths(sorted, out.paths, walked))
        return out;
    TimeNs lastNs = sorted.front().endNs;
    std::vector<std::vector<std::uint32_t>> byBand(static_cast<std::size_t>(grid.levels) + 1);
    for (std::size_t i = 0; i < sorted.size(); ++i) {
        lastNs = std::max(lastNs, sorted[i].endNs);
        byBand[static_cast<std::size_t>(grid.bandOf(sorted[i].durationNs()))].push_back(
            static_cast<std::uint32_t>(i));
    }
    const int top = flameTopLevel(grid, sorted.front().startNs, lastNs);
    // Level k holds bands < min(k, L): level k adds the band min(k, L) - 1 when k <= L.
    auto addBand = [&](int level, std::vector<Part>& parts) {
        if (level > grid.levels)
            return;
        for (std::uint32_t i : byBand[static_cast<std::size_t>(level - 1)])
            addIntervalParts(parts, sorted[i], walked[i], grid.bucketNs(level));
    };
    std::vector<Part> parts;
    addBand(1, parts);
    out.levels = buildLevels(grid, 1, top, std::move(parts), options, addBand);
    return out;
}

}  // namespace strata::storage
