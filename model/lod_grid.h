#pragma once
// The level-of-detail grid shared by the store builder, the reader and the views.
//
// Level 0 is exact events. Summary level k >= 1 cuts time into buckets of
//     bucketNs(k) = baseBucketNs * F^(k-1),   F = 2^factorLog2 (4 by default)
// aligned at t = 0, so a bucket of level k+1 is exactly F buckets of level k and bucket
// borders are powers of two (pixel snapping is a shift).
//
// Intervals are also sorted into *duration bands*, so that no query ever scans the
// whole trace for long events:
//     band 0:            dur <  bucketNs(1)
//     band j (1..L-1):   bucketNs(j) <= dur < bucketNs(j+1)
//     band L (= levels): dur >= bucketNs(L)
// A summary bucket at level k aggregates only the intervals *shorter* than bucketNs(k)
// (bands 0..k-1: each touches at most two buckets); intervals of bands >= k are at least
// one bucket long, are drawn exactly, and are read from their band's tiles. This is
// Perfetto's mipmap idea with an exact split: coverage at level k = buckets + long events.

#include "model/time_units.h"

#include <bit>
#include <cstdint>

namespace strata::model {

/// Floor division (bucket of a possibly negative time).
inline constexpr std::int64_t floorDiv(std::int64_t a, std::int64_t b)
{
    // The grid's widths are powers of two: a shift (an arithmetic one floors) instead of
    // a 64-bit division, which takes tens of cycles; the summarizers do several for every
    // interval at every level.
    if (b > 0 && (b & (b - 1)) == 0)
        return a >> std::countr_zero(static_cast<std::uint64_t>(b));
    const std::int64_t q = a / b;
    return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}

struct LodGrid
{
    TimeNs baseBucketNs = 256;
    int factorLog2 = 2;
    int levels = 1;  ///< summary levels 1..levels

    /// Cells per summary tile (and the span unit of the top level).
    static constexpr int kBucketsPerTile = 1024;

    /// Grid for a trace of this span: levels reach the point where one tile holds it all.
    static LodGrid forSpan(TimeNs spanNs);

    TimeNs bucketNs(int level) const { return baseBucketNs << (factorLog2 * (level - 1)); }
    TimeNs tileNs(int level) const { return bucketNs(level) * kBucketsPerTile; }
    /// The duration band of an interval (see above).
    int bandOf(TimeNs durationNs) const
    {
        if (baseBucketNs <= 0 || factorLog2 <= 0)
            return bandByLoop(durationNs);  // a grid read from a damaged store
        // The j in 1..levels with durationNs >= baseBucketNs << factorLog2 * (j - 1),
        // counted at once: q = durationNs / baseBucketNs reaches 2^(factorLog2 * (j - 1))
        // for j - 1 up to floor(log2 q) / factorLog2. The summarizers ask this of every
        // interval at every level: a loop over the levels cost 5 % of a Paraver ingest.
        if (durationNs < baseBucketNs)
            return 0;
        const auto q = static_cast<std::uint64_t>(durationNs / baseBucketNs);
        const int band = (std::bit_width(q) - 1) / factorLog2 + 1;
        return band < levels ? band : levels;
    }
    /// bandOf() by its definition, a level at a time.
    int bandByLoop(TimeNs durationNs) const;
    /// Coarsest summary level whose bucket is no wider than `nsPerPx`; 0 when even
    /// level 1 is too coarse (the caller then reads exact events).
    int levelFor(double nsPerPx) const;
    std::int64_t bucketOf(TimeNs t, int level) const { return floorDiv(t, bucketNs(level)); }
    friend bool operator==(const LodGrid&, const LodGrid&) = default;
};

} // namespace strata::model
