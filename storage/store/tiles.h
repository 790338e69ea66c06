#pragma once
// The decoded contents of the store's tiles. A tile is one row of the `tiles` table; its
// payload is encoded by tile_codec.h. Exact tiles hold events in start order; summary
// tiles hold the cells of one stretch of LodGrid::kBucketsPerTile buckets of one level.

#include "model/events.h"
#include "storage/store/column.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace strata::storage {

enum class TileKind : std::uint8_t {
    Intervals = 1,  ///< exact intervals of one duration band (level = band)
    Instants = 2,
    Counters = 3,
    Flows = 4,  ///< stored with their source track, in source-time order
    Samples = 5,
    IntervalSummary = 6,  ///< level >= 1
    InstantSummary = 7,
    CounterSummary = 8,
    TrackIndex = 9,  ///< not a tile: the tile index of one track (table tile_index)
    FlameBucket = 10,  ///< not a tile: one bucket of the flame pyramid (flame_codec.h)
    FlamePaths = 11,  ///< not a tile: a track's interval call paths (flame_codec.h)
};

/// One tile as the per-track index lists it.
struct TileIndexEntry
{
    TileKind kind = TileKind::Intervals;
    int level = 0;
    std::int64_t idx = 0;
    model::TimeNs t0 = 0;
    model::TimeNs t1 = 0;
    std::int64_t n = 0;
    std::int64_t id = 0;  ///< row id in `tiles`
    friend bool operator==(const TileIndexEntry&, const TileIndexEntry&) = default;
};

/// Entry name standing for "all other names" of a cell (the top names are kept).
inline constexpr model::StringId kOtherNames = 0xFFFFFFFEu;
/// A summary cell keeps at most this many names; the rest merge per role into kOtherNames.
inline constexpr int kTopNamesPerCell = 4;

/// The args of a column of events: one byte arena, and where each row's args end.
/// Filled lazily, so rows without args cost nothing: `ends` stays empty until a row has
/// some, and rows past its end have none.
struct ArgsColumn
{
    Column<char> bytes;
    Column<std::uint64_t> ends;

    void append(std::size_t row, std::string_view args)
    {
        if (args.empty() && ends.empty())
            return;
        ends.resize(row, bytes.size());
        bytes.append(args.data(), args.size());
        ends.push_back(bytes.size());
    }
    std::string_view at(std::size_t row) const
    {
        if (row >= ends.size())
            return {};
        const std::uint64_t begin = row == 0 ? 0 : ends[row - 1];
        return view(bytes).substr(begin, ends[row] - begin);
    }
};

struct IntervalTile
{
    std::vector<model::Interval> events;
    ArgsColumn args;  ///< row i: the args of events[i]
};

struct InstantTile
{
    std::vector<model::Instant> events;
    ArgsColumn args;
};

struct CounterTile
{
    std::vector<model::CounterSample> samples;
};

struct FlowTile
{
    std::vector<model::Flow> flows;
};

struct SampleTile
{
    std::vector<model::StackSample> samples;
};

/// Time covered inside one bucket by intervals of one name and role.
struct Coverage
{
    model::StringId name = model::kEmptyString;
    model::Role role = model::Role::Useful;
    model::TimeNs coverageNs = 0;
    friend bool operator==(const Coverage&, const Coverage&) = default;
};

/// What the intervals of one nesting depth that are shorter than a bucket do inside it.
struct IntervalCell
{
    std::int64_t bucket = 0;  ///< absolute bucket index at the tile's level
    model::Depth depth = 0;
    std::uint32_t count = 0;  ///< intervals that start in this bucket
    model::TimeNs longestStartNs = 0;  ///< the longest interval touching the bucket
    model::TimeNs longestDurationNs = 0;
    model::StringId longestName = model::kEmptyString;
    std::uint32_t firstEntry = 0;  ///< its coverage entries, sorted by decreasing time
    std::uint32_t entryCount = 0;
};

struct IntervalSummaryTile
{
    model::TimeNs bucketNs = 1;  ///< bucket width of the tile's level
    std::vector<IntervalCell> cells;  ///< sorted by (bucket, depth)
    std::vector<Coverage> entries;
};

struct InstantCell
{
    std::int64_t bucket = 0;
    std::uint32_t count = 0;
    model::TimeNs firstNs = 0;
    model::StringId firstName = model::kEmptyString;
    friend bool operator==(const InstantCell&, const InstantCell&) = default;
};

struct InstantSummaryTile
{
    std::vector<InstantCell> cells;
};

/// A counter inside one bucket. The value of a sample holds until the next sample; the
/// last sample of a track holds for no time. min/max are over the values in effect for
/// some part of the bucket (the value carried in from before it included), mean is the
/// time-weighted mean over `weightNs`, the part of the bucket between the track's first
/// and last sample. Buckets without a sample are not stored: the value carried in from
/// the previous stored bucket's `last` holds there.
struct CounterCell
{
    std::int64_t bucket = 0;
    std::uint32_t count = 0;  ///< samples in the bucket
    double min = 0;
    double max = 0;
    double mean = 0;
    double last = 0;
    model::TimeNs weightNs = 0;
};

struct CounterSummaryTile
{
    std::vector<CounterCell> cells;
};

} // namespace strata::storage
