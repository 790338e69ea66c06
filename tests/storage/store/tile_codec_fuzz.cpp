// Fuzz target: the tile codec. Decoding must throw CorruptTile, never crash, on any bytes.
//
// Two modes, by the first byte:
//  - 'S' (the payload magic): the input is a whole payload, given to every decoder (and to
//    decodeTileIndex and payloadKind);
//  - anything else: the rest of the input is taken as the decompressed *columns* of a tile
//    of kind (byte % 9 + 1), wrapped in a valid header and zstd frame at codec version 1
//    or, when (byte / 9) is odd, at the kind's newest version, so that the column decoders
//    of every version see arbitrary bytes behind a valid checksum.
// A tile that decodes is encoded again, and that encoding must decode: a payload the codec
// writes but cannot read back is a finding too.

#include "storage/store/byte_io.h"
#include "storage/store/tile_codec.h"
#include "tests/fuzz/fuzz_support.h"

#include <zstd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

namespace {

using namespace strata::storage;

[[noreturn]] void fail(const char* what, const CorruptTile& error)
{
    std::fprintf(stderr, "tile_codec_fuzz: %s: %s\n", what, error.what());
    std::abort();
}

/// Decodes `payload` with the decoder of `kind`, then checks that re-encoding round-trips.
template <typename Decode>
void decodeAndReencode(std::string_view payload, Decode decode)
{
    try {
        const auto tile = decode(payload);
        const std::string again = encodeTile(tile, 1);
        try {
            (void)decode(again);
        } catch (const CorruptTile& error) {
            fail("a decoded tile does not decode after encoding it again", error);
        }
    } catch (const CorruptTile&) {
    }
}

void decodeIndex(std::string_view payload)
{
    try {
        const auto entries = decodeTileIndex(payload);
        const std::string again = encodeTileIndex(entries, 1);
        try {
            if (decodeTileIndex(again) != entries)
                std::abort();  // the index round trip must be exact
        } catch (const CorruptTile& error) {
            fail("a decoded tile index does not decode after encoding it again", error);
        }
    } catch (const CorruptTile&) {
    }
}

void decodeAs(TileKind kind, std::string_view payload)
{
    switch (kind) {
    case TileKind::Intervals:
        decodeAndReencode(payload, [](std::string_view p) { return decodeIntervalTile(p); });
        try {
            decodeIntervalTile(payload, false);  // the timeline's decoding, without args
        } catch (const CorruptTile&) {}
        break;
    case TileKind::Instants:
        decodeAndReencode(payload, [](std::string_view p) { return decodeInstantTile(p); });
        try {
            decodeInstantTile(payload, false);
        } catch (const CorruptTile&) {}
        break;
    case TileKind::Counters:
        decodeAndReencode(payload, decodeCounterTile);
        break;
    case TileKind::Flows:
        decodeAndReencode(payload, decodeFlowTile);
        break;
    case TileKind::Samples:
        decodeAndReencode(payload, decodeSampleTile);
        break;
    case TileKind::IntervalSummary:
        decodeAndReencode(payload, decodeIntervalSummaryTile);
        try {
            decodeDrawnIntervalSummaryTile(payload);  // must not read out of bounds either
        } catch (const CorruptTile&) {}
        break;
    case TileKind::InstantSummary:
        decodeAndReencode(payload, decodeInstantSummaryTile);
        break;
    case TileKind::CounterSummary:
        decodeAndReencode(payload, decodeCounterSummaryTile);
        break;
    case TileKind::TrackIndex:
        decodeIndex(payload);
        break;
    case TileKind::FlameBucket:
    case TileKind::FlamePaths:
        break;  // flame_codec.h, not tiles
    }
}

/// A valid payload header and checksummed zstd frame around `columns`.
std::string wrap(TileKind kind, std::uint8_t version, std::string_view columns)
{
    std::string payload = { 'S', 'T', static_cast<char>(kind), static_cast<char>(version) };
    for (std::uint64_t v = columns.size();; v >>= 7) {
        payload.push_back(static_cast<char>((v & 0x7f) | (v >= 0x80 ? 0x80 : 0)));
        if (v < 0x80)
            break;
    }
    static ZSTD_CCtx* cctx = [] {
        ZSTD_CCtx* c = ZSTD_createCCtx();
        ZSTD_CCtx_setParameter(c, ZSTD_c_compressionLevel, 1);
        ZSTD_CCtx_setParameter(c, ZSTD_c_checksumFlag, 1);
        return c;
    }();
    const std::size_t headerSize = payload.size();
    payload.resize(headerSize + ZSTD_compressBound(columns.size()));
    const std::size_t n = ZSTD_compress2(cctx, payload.data() + headerSize,
                                         payload.size() - headerSize, columns.data(),
                                         columns.size());
    if (ZSTD_isError(n))
        std::abort();
    payload.resize(headerSize + n);
    return payload;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    const std::string_view input = strata::fuzz::asView(data, size);
    if (input.empty())
        return 0;
    if (input.front() == 'S') {
        try {
            (void)payloadKind(input);
        } catch (const CorruptTile&) {
        }
        for (int kind = 1; kind <= 9; ++kind)
            decodeAs(static_cast<TileKind>(kind), input);
        return 0;
    }
    const auto selector = static_cast<std::uint8_t>(input.front());
    const auto kind = static_cast<TileKind>(selector % 9 + 1);
    const std::uint8_t version = (selector / 9) % 2 ? newestCodecVersion(kind) : kTileCodecVersion;
    decodeAs(kind, wrap(kind, version, input.substr(1)));
    return 0;
}
