#pragma once
// Encodes the flame pyramid's rows (flame_summarizer.h) with the tile framing of
// tile_codec.h (header, zstd frame with checksum). Columns, all LEB128 varints:
//
//   bucket (FlameBucket):   samples | n | path Δ (ascending, from 0) x n | weight (zigzag) x n
//   paths  (FlamePaths):    n | (id - parent) x n | name x n        (ids 1..n, 0 is the root)
//
// Decoding checks that paths ascend, that parents precede their children and that
// counts fit the bytes; a bad payload throws CorruptTile.
//
// A track's buckets of one level are stored kFlameBucketsPerGroup to a row (store format
// version 7, store_schema.h): the row of group g holds those of buckets
// [g * kFlameBucketsPerGroup, (g + 1) * kFlameBucketsPerGroup) that have entries, each as
// encodeFlameBucket() wrote it, until the row's end:
//
//   group row:              (bucket - first bucket of the group | size | bucket payload) x m
//
// with buckets ascending. A row per bucket (~70 bytes each, 90 k of them in a two-file
// JSON ingest) cost SQLite a b-tree insertion each: ~4 % of the ingest's CPU.

#include "model/stack_table.h"
#include "storage/store/byte_io.h"
#include "storage/store/flame_summarizer.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace strata::storage {

std::string encodeFlameBucket(const FlameBucket& bucket, int zstdLevel = 3);
/// The bucket number is not in the payload (its group row holds it): it is left 0.
FlameBucket decodeFlameBucket(std::string_view payload);

inline constexpr int kFlameGroupLog2 = 6;
inline constexpr std::int64_t kFlameBucketsPerGroup = std::int64_t(1) << kFlameGroupLog2;

/// The group (row) of a bucket.
inline std::int64_t flameGroup(std::int64_t bucket)
{
    return bucket >> kFlameGroupLog2;  // floor: C++20 shifts are arithmetic
}

/// Appends bucket `bucket`, encoded, to the row of its group being written in `row`
/// (buckets of one group, ascending).
void appendToFlameGroup(ByteWriter& row, std::int64_t bucket, std::string_view payload);

/// Appends to `out` the buckets of group `group`'s row that lie in [firstBucket,
/// endBucket), decoded, with their numbers.
void decodeFlameGroup(std::string_view row, std::int64_t group, std::int64_t firstBucket,
    std::int64_t endBucket, std::vector<FlameBucket>& out);

std::string encodeFlamePaths(const model::StackTable& paths, int zstdLevel = 3);
model::StackTable decodeFlamePaths(std::string_view payload);

}  // namespace strata::storage
