#include "storage/store/sample_flame_summarizer.h"

#include <algorithm>
#include <limits>
#include <stdexcept>
#include <vector>

namespace strata::storage {

namespace {

using model::TimeNs;

/// The weights of an open bucket's paths: open addressing, emptied through the slots used,
/// its memory kept for the next bucket (std::unordered_map's node a path was a malloc and
/// a free each: ~8 % of tiling 30 M samples in pieces).
class PathWeights
{
public:
    void add(std::uint32_t path, std::int64_t weight)
    {
        if (2 * (m_used.size() + 1) > m_slots.size())
            grow();
        std::size_t i = slotOf(path);
        while (m_slots[i].used && m_slots[i].path != path)
            i = (i + 1) & (m_slots.size() - 1);
        if (!m_slots[i].used) {
            m_slots[i] = { path, 0, true };
            m_used.push_back(static_cast<std::uint32_t>(i));
        }
        m_slots[i].weight += weight;
    }
    std::size_t size() const { return m_used.size(); }
    /// Appends the entries (in no order) to `out`, and empties.
    void take(std::vector<FlameEntry>& out)
    {
        for (const std::uint32_t i : m_used) {
            out.push_back({ m_slots[i].path, m_slots[i].weight });
            m_slots[i].used = false;
        }
        m_used.clear();
    }

private:
    struct Slot
    {
        std::uint32_t path = 0;
        std::int64_t weight = 0;
        bool used = false;
    };
    std::size_t slotOf(std::uint32_t path) const
    {
        return static_cast<std::size_t>((path * 0x9E3779B97F4A7C15ull) >> 32)
            & (m_slots.size() - 1);
    }
    void grow()
    {
        std::vector<Slot> old(std::max<std::size_t>(16, 2 * m_slots.size()));
        old.swap(m_slots);
        std::vector<std::uint32_t> used;
        used.swap(m_used);
        for (const std::uint32_t i : used)
            add(old[i].path, old[i].weight);
    }

    std::vector<Slot> m_slots;  ///< a power of two, at most half used
    std::vector<std::uint32_t> m_used;  ///< slots used, in the order first used
};

/// One level's open bucket: its samples and its paths' weights so far.
struct OpenBucket
{
    bool open = false;
    std::int64_t bucket = 0;
    std::int64_t samples = 0;
    PathWeights weights;
};

}  // namespace

struct SampleFlameSummarizer::State
{
    State(const model::LodGrid& g, const FlameSummaryOptions& o, std::int64_t n)
        : grid(g)
        , options(o)
        , events(n)
        , buckets(static_cast<std::size_t>(flameLevelCap(g)), 0)
        , lastBucket(buckets.size(), std::numeric_limits<std::int64_t>::min())
    {}

    const model::LodGrid grid;
    const FlameSummaryOptions options;
    const std::int64_t events;
    // Pass 1: the samples' span, and the buckets each level fills (index level - 1).
    std::int64_t counted = 0;
    TimeNs firstNs = 0;
    TimeNs lastNs = 0;
    std::vector<std::int64_t> buckets;
    std::vector<std::int64_t> lastBucket;
    // The levels built (first..top, once pass 1 is done) and their open buckets.
    int first = 0;
    int top = 0;
    std::vector<OpenBucket> open;  ///< index level - first
    // Pass 2: what each level holds (index level - first); then the levels stored.
    std::vector<std::int64_t> levelBuckets;
    std::vector<std::int64_t> levelEntries;
    bool measured = false;
    FlameStoredLevels stored;

    /// The pyramid's top and first level, summarizeFlameSamples()' way: the first level
    /// whose buckets are few enough for the samples to compress.
    void decideFirst()
    {
        if (first != 0)
            return;
        if (counted != events)
            throw std::logic_error("SampleFlameSummarizer: pass 1 saw another count of samples");
        top = flameTopLevel(grid, firstNs, lastNs);
        for (first = 1; first < top; ++first) {
            if (options.fewEnoughBuckets(buckets[static_cast<std::size_t>(first - 1)], events))
                break;
        }
        open.assign(static_cast<std::size_t>(top - first + 1), {});
        levelBuckets.assign(open.size(), 0);
        levelEntries.assign(open.size(), 0);
    }

    /// Level `level`'s open bucket for `bucket`, the one open before closed first.
    template<typename Closed>
    OpenBucket& openFor(int level, std::int64_t bucket, const Closed& closed)
    {
        OpenBucket& o = open[static_cast<std::size_t>(level - first)];
        if (o.open && o.bucket != bucket)
            close(level, closed);
        if (!o.open) {
            o.open = true;
            o.bucket = bucket;
            o.samples = 0;
        }
        return o;
    }

    /// Closes level `level`'s open bucket: its entries by path, added to the level above
    /// (as flame_summarizer.cpp's coarsen() and reduce() do), then given to `closed`.
    template<typename Closed>
    void close(int level, const Closed& closed)
    {
        OpenBucket& o = open[static_cast<std::size_t>(level - first)];
        if (!o.open)
            return;
        FlameBucket b { o.bucket, o.samples, {} };
        b.entries.reserve(o.weights.size());
        o.weights.take(b.entries);
        std::sort(b.entries.begin(), b.entries.end(),
            [](const FlameEntry& x, const FlameEntry& y) { return x.path < y.path; });
        o.open = false;
        if (level < top) {
            OpenBucket& up = openFor(
                level + 1, model::floorDiv(b.bucket, std::int64_t(1) << grid.factorLog2), closed);
            up.samples += b.samples;
            for (const FlameEntry& e : b.entries)
                up.weights.add(e.path, e.weight);
        }
        closed(level, b);
    }

    template<typename Closed>
    void add(std::span<const model::StackSample> piece, const Closed& closed)
    {
        for (const model::StackSample& sample : piece) {
            OpenBucket& o = openFor(first, grid.bucketOf(sample.timeNs, first), closed);
            ++o.samples;
            o.weights.add(sample.stack, sample.weight);
        }
    }

    /// Pass 2's closing: counts what the level holds.
    void tally(int level, const FlameBucket& b)
    {
        ++levelBuckets[static_cast<std::size_t>(level - first)];
        levelEntries[static_cast<std::size_t>(level - first)] +=
            static_cast<std::int64_t>(b.entries.size());
    }

    /// Pass 3's closing: a bucket of a level stored goes to the sink.
    void emit(int level, const FlameBucket& b, const FlameBucketSink& sink)
    {
        if (level < stored.finest)
            return;
        one.front() = b;
        sink(level, one);
    }
    std::vector<FlameBucket> one = std::vector<FlameBucket>(1);  ///< emit()'s

    template<typename Closed>
    void closeAll(const Closed& closed)
    {
        for (int level = first; level <= top; ++level)
            close(level, closed);
    }
};

SampleFlameSummarizer::SampleFlameSummarizer(
    const model::LodGrid& grid, const FlameSummaryOptions& options, std::int64_t events)
    : m_state(std::make_unique<State>(grid, options, events))
{}

SampleFlameSummarizer::~SampleFlameSummarizer() = default;

bool SampleFlameSummarizer::wanted() const
{
    const State& s = *m_state;
    return s.events > 0 && s.events >= s.options.minEvents;
}

void SampleFlameSummarizer::count(std::span<const model::StackSample> piece)
{
    State& s = *m_state;
    if (piece.empty())
        return;
    if (s.counted == 0)
        s.firstNs = piece.front().timeNs;
    s.lastNs = piece.back().timeNs;
    s.counted += static_cast<std::int64_t>(piece.size());
    // Level k's bucket is level 1's divided by F^(k-1) (floorDiv nests): a shift.
    const int levels = static_cast<int>(s.buckets.size());
    for (const model::StackSample& sample : piece) {
        const std::int64_t finest = s.grid.bucketOf(sample.timeNs, 1);
        for (int level = 1; level <= levels; ++level) {
            const std::int64_t b = finest >> (s.grid.factorLog2 * (level - 1));
            auto& last = s.lastBucket[static_cast<std::size_t>(level - 1)];
            if (b != last) {
                ++s.buckets[static_cast<std::size_t>(level - 1)];
                last = b;
            }
        }
    }
}

void SampleFlameSummarizer::measure(std::span<const model::StackSample> piece)
{
    State& s = *m_state;
    s.decideFirst();
    s.add(piece, [&s](int level, const FlameBucket& b) { s.tally(level, b); });
}

FlameStoredLevels SampleFlameSummarizer::levels()
{
    State& s = *m_state;
    if (s.measured)
        return s.stored;
    s.decideFirst();
    s.closeAll([&s](int level, const FlameBucket& b) { s.tally(level, b); });
    // Stored from the first level that compresses its samples enough (buildLevels' rule).
    for (int level = s.first; level <= s.top; ++level) {
        const auto at = static_cast<std::size_t>(level - s.first);
        if (s.options.worthStoring(s.levelBuckets[at], s.levelEntries[at], s.events)) {
            s.stored = { level, s.top };
            break;
        }
    }
    s.measured = true;
    // The third pass starts from empty tables, as the second did (their growth is then
    // what every pass takes).
    s.open.assign(s.open.size(), {});
    return s.stored;
}

void SampleFlameSummarizer::build(
    std::span<const model::StackSample> piece, const FlameBucketSink& sink)
{
    State& s = *m_state;
    const FlameStoredLevels stored = levels();
    if (stored.empty())
        return;
    s.add(piece, [&](int level, const FlameBucket& b) { s.emit(level, b, sink); });
}

void SampleFlameSummarizer::finish(const FlameBucketSink& sink)
{
    State& s = *m_state;
    const FlameStoredLevels stored = levels();
    if (stored.empty())
        return;
    s.closeAll([&](int level, const FlameBucket& b) { s.emit(level, b, sink); });
}

}  // namespace strata::storage
