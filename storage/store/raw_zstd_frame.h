#pragma once
// Writes a zstd frame that holds its content in one raw (stored) block, without asking
// zstd: the frame ZSTD_compress2 writes for a body it cannot shrink, byte for byte
// (single segment, content size, content checksum). Any zstd decoder reads it, so the
// readers of the store need no change.
//
// Why: a flame bucket's body is a few dozen bytes, and zstd spends ~1.4 us setting up a
// frame whatever its size (3.4 us when it tries to compress 32-64 bytes), to save a few
// bytes at best. A Paraver ingest writes tens of thousands of such frames (16 k for a
// 300 k-record trace: 8 % of its instructions). The frame's 4-byte checksum is the low
// half of XXH64 with seed 0, from Debian's libxxhash (libzstd does not export its own).
//
//   +-------------+-----+------------------+--------------------+-------+------------+
//   | magic 4 B   | FHD | content size 1-2 | block header 3 B   | body  | checksum 4 |
//   | 28 b5 2f fd |     | (single segment) | last=1 type=raw n  |       | XXH64 low  |
//   +-------------+-----+------------------+--------------------+-------+------------+

#include <cstdint>
#include <string>
#include <string_view>

namespace strata::storage {

/// The largest body written as a raw frame (a content size field of 2 bytes holds it).
inline constexpr std::size_t kMaxRawZstdFrameBody = 65535 + 256;

/// Appends the raw frame of `body` (1 .. kMaxRawZstdFrameBody bytes) to `out`.
void appendRawZstdFrame(std::string& out, std::string_view body);

}  // namespace strata::storage
