// Short payloads (flame buckets, mostly) are stored in one raw zstd block written
// without zstd (raw_zstd_frame.h): the frame must still be one any zstd decoder reads,
// with a content checksum that catches a flipped byte, and its body must lie in it
// verbatim.

#include "storage/store/raw_zstd_frame.h"

#include "storage/store/byte_io.h"
#include "storage/store/flame_codec.h"
#include "storage/store/tile_codec.h"

#include <catch2/catch.hpp>

#include <random>
#include <string>

using namespace strata;
using storage::TileKind;

namespace {

std::string randomBytes(std::mt19937_64& rng, std::size_t n)
{
    std::string s(n, '\0');
    for (char& c : s)
        c = static_cast<char>(rng() & 0xFF);
    return s;
}

}  // namespace

TEST_CASE("a short payload is stored verbatim in a raw zstd block and reads back", "[codec]") {
    // Repetitive enough that zstd would compress it into a compressed block.
    std::string body;
    while (body.size() < 60)
        body += "abcabd";
    const std::string payload = storage::wrapPayload(TileKind::FlameBucket, body, 6);
    // Header 'S' 'T' kind version varint(60), then magic, FHD, 1-byte size, block header.
    REQUIRE(payload.size() == 5 + 4 + 1 + 1 + 3 + body.size() + 4);
    CHECK(payload.substr(5 + 4 + 1 + 1 + 3, body.size()) == body);
    CHECK(storage::unwrapPayload(TileKind::FlameBucket, payload) == body);
}

TEST_CASE(
    "raw zstd frames of every short size decode, and their checksum catches a flip", "[codec]") {
    std::mt19937_64 rng(7);
    for (std::size_t n : { 1, 2, 3, 4, 7, 8, 9, 15, 31, 32, 33, 40, 63, 64, 255, 256, 300, 4000 }) {
        CAPTURE(n);
        const std::string body = randomBytes(rng, n);
        storage::ByteWriter writer;
        writer.u8('S');
        writer.u8('T');
        writer.u8(static_cast<std::uint8_t>(TileKind::FlameBucket));
        writer.u8(storage::kTileCodecVersion);
        writer.varint(n);
        std::string frame = writer.bytes();
        const std::size_t header = frame.size();
        storage::appendRawZstdFrame(frame, body);
        CHECK(storage::unwrapPayload(TileKind::FlameBucket, frame) == body);
        std::string flipped = frame;
        flipped[header + (n < 256 ? 9 : 10) + n / 2] ^= 0x10;
        CHECK_THROWS_AS(
            storage::unwrapPayload(TileKind::FlameBucket, flipped), storage::CorruptTile);
    }
}

TEST_CASE("flame buckets of a few entries round-trip through raw frames", "[codec][flame]") {
    storage::FlameBucket bucket;
    bucket.bucket = 12;
    bucket.samples = 3;
    bucket.entries = { { 1, 500 }, { 4, -20 }, { 9, 123456789 } };
    const std::string payload = storage::encodeFlameBucket(bucket, 6);
    CHECK(payload.size() < 64);
    const storage::FlameBucket back = storage::decodeFlameBucket(payload);
    CHECK(back.samples == bucket.samples);
    REQUIRE(back.entries.size() == bucket.entries.size());
    for (std::size_t i = 0; i < back.entries.size(); ++i) {
        CHECK(back.entries[i].path == bucket.entries[i].path);
        CHECK(back.entries[i].weight == bucket.entries[i].weight);
    }
}
