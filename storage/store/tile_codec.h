#pragma once
// Encodes and decodes tile payloads.
//
// Payload layout (all integers LEB128 varints unless noted):
//
//   +------+------+---------+-------------+----------------------------------+
//   | 'S'  | 'T'  | kind u8 | version u8  | varint rawSize | zstd frame ...  |
//   +------+------+---------+-------------+----------------------------------+
//
// The zstd frame (with its content checksum, so a flipped bit is caught) holds rawSize
// bytes of *columns*: all values of one field, then all of the next, so that zstd sees
// long runs of similar bytes. Times are delta-encoded against the previous row (zigzag
// for signed deltas); durations, ids and counts are plain varints; doubles are raw.
// Column order per kind is given in tile_codec.cpp next to each encoder.
//
// Decoding a payload that is short, has a wrong magic/kind/version, fails its checksum
// or whose columns do not add up throws CorruptTile; it never reads out of bounds.

#include "storage/store/byte_io.h"
#include "storage/store/tiles.h"

#include <string>
#include <vector>
#include <string_view>

namespace strata::storage {

inline constexpr std::uint8_t kTileCodecVersion = 1;
/// Counter and counter summary tiles are written at version 2 (tile_codec.cpp); their
/// version 1 tiles, written by stores of format version 1, still decode.
inline constexpr std::uint8_t kCounterCodecVersion = 2;
/// Interval summary tiles are written at version 2: a drawn part and a detail part in two
/// zstd frames (tile_codec.cpp); version 1 tiles (one frame) still decode.
inline constexpr std::uint8_t kIntervalSummaryCodecVersion = 2;
/// Exact interval and instant tiles are written at version 3: their args by member, with
/// arrays of whole numbers as number columns (args_codec.h). Version 2 tiles (by member,
/// arrays as text) and version 1 tiles (each row's text) still decode.
inline constexpr std::uint8_t kArgsByMemberCodecVersion = 2;
inline constexpr std::uint8_t kArgsNumberArraysCodecVersion = 3;

/// The codec version tiles of `kind` are written at (the constants above; every version
/// from kTileCodecVersion up to it decodes).
constexpr std::uint8_t newestCodecVersion(TileKind kind)
{
    switch (kind) {
    case TileKind::Intervals:
    case TileKind::Instants:
        return kArgsNumberArraysCodecVersion;
    case TileKind::Counters:
    case TileKind::CounterSummary:
        return kCounterCodecVersion;
    case TileKind::IntervalSummary:
        return kIntervalSummaryCodecVersion;
    default:
        return kTileCodecVersion;
    }
}

std::string encodeTile(const IntervalTile& tile, int zstdLevel = 3);
std::string encodeTile(const InstantTile& tile, int zstdLevel = 3);
std::string encodeTile(const CounterTile& tile, int zstdLevel = 3);
std::string encodeTile(const FlowTile& tile, int zstdLevel = 3);
std::string encodeTile(const SampleTile& tile, int zstdLevel = 3);
std::string encodeTile(const IntervalSummaryTile& tile, int zstdLevel = 3);
std::string encodeTile(const InstantSummaryTile& tile, int zstdLevel = 3);
std::string encodeTile(const CounterSummaryTile& tile, int zstdLevel = 3);

/// Exact tiles; `withArgs` false leaves their args column empty, unread (the timeline
/// draws none: rebuilding args by member cost a 3 M-event store's frame query p99
/// 1.8 -> 3.0 ms).
IntervalTile decodeIntervalTile(std::string_view payload, bool withArgs = true);
InstantTile decodeInstantTile(std::string_view payload, bool withArgs = true);
CounterTile decodeCounterTile(std::string_view payload);
FlowTile decodeFlowTile(std::string_view payload);
SampleTile decodeSampleTile(std::string_view payload);
IntervalSummaryTile decodeIntervalSummaryTile(std::string_view payload);
/// An interval summary tile as the timeline draws it: each cell's bucket and depth, and
/// one entry holding the cell's whole coverage under its most covered name and role (the
/// first stored: entries are kept by decreasing coverage); count and the longest event
/// are left 0. Of a version 2 tile it inflates and reads the drawn part only; of a
/// version 1 tile it passes over the counts, longest events and other names.
IntervalSummaryTile decodeDrawnIntervalSummaryTile(std::string_view payload);
InstantSummaryTile decodeInstantSummaryTile(std::string_view payload);
CounterSummaryTile decodeCounterSummaryTile(std::string_view payload);

/// A track's tile index, in (kind, level, idx) order.
std::string encodeTileIndex(const std::vector<TileIndexEntry>& entries, int zstdLevel = 3);
std::vector<TileIndexEntry> decodeTileIndex(std::string_view payload);

/// The framing above for payloads encoded elsewhere (flame_codec.h): `raw` wrapped with
/// the header of `kind` and compressed, and back (throws CorruptTile like the decoders).
std::string wrapPayload(TileKind kind, const std::string& raw, int zstdLevel);
std::string unwrapPayload(TileKind kind, std::string_view payload);

/// The kind byte of a payload (throws CorruptTile on a bad header).
TileKind payloadKind(std::string_view payload);

} // namespace strata::storage
