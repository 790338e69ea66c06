#pragma once
// Encodes the flame pyramid's rows (flame_summarizer.h) with the tile framing of
// tile_codec.h (header, zstd frame with checksum). Columns, all LEB128 varints:
//
//   bucket (FlameBucket):   samples | n | path Δ (ascending, from 0) x n | weight (zigzag) x n
//   paths  (FlamePaths):    n | (id - parent) x n | name x n        (ids 1..n, 0 is the root)
//
// Decoding checks that paths ascend, that parents precede their children and that
// counts fit the bytes; a bad payload throws CorruptTile.

#include "model/stack_table.h"
#include "storage/store/flame_summarizer.h"

#include <string>
#include <string_view>

namespace strata::storage {

std::string encodeFlameBucket(const FlameBucket& bucket, int zstdLevel = 3);
/// The bucket number is not in the payload (it is the row's key): it is left 0.
FlameBucket decodeFlameBucket(std::string_view payload);

std::string encodeFlamePaths(const model::StackTable& paths, int zstdLevel = 3);
model::StackTable decodeFlamePaths(std::string_view payload);

}  // namespace strata::storage
