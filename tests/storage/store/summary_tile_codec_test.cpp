// Interval summary tiles decode every number exactly whatever its width (1 to 10 bytes),
// wherever it lies in its column and in the tile (its last bytes included), and a tile
// whose columns do not hold what they claim throws CorruptTile. The decoder reads its
// columns side by side with 8-byte loads (tile_codec.cpp): these are its edges. The
// drawn decoder (each cell folded to its colour) passes over numbers it does not read:
// it must land on the same ones and fail on the same cut tiles. Tiles are written at
// codec version 2 (a drawn and a detail part); version 1 tiles of older stores, written
// here as they were, decode the same.

#include "storage/store/byte_io.h"
#include "storage/store/tile_codec.h"

#include <catch2/catch.hpp>

#include <cstdint>
#include <limits>
#include <random>
#include <tuple>

using namespace strata;
using storage::Coverage;
using storage::IntervalCell;
using storage::IntervalSummaryTile;

namespace {

/// A number of `bytes` varint bytes (1..10) at most `limit`.
std::uint64_t ofWidth(std::mt19937_64& rng, int bytes, std::uint64_t limit)
{
    const std::uint64_t low = bytes == 1 ? 0 : std::uint64_t(1) << (7 * (bytes - 1));
    const std::uint64_t high = bytes >= 10 ? std::numeric_limits<std::uint64_t>::max()
                                           : (std::uint64_t(1) << (7 * bytes)) - 1;
    return std::uniform_int_distribution<std::uint64_t>(
        std::min(low, limit), std::min(high, limit))(rng);
}

IntervalSummaryTile randomTile(std::mt19937_64& rng, int cells, int maxBytes)
{
    IntervalSummaryTile tile;
    tile.bucketNs = 4096;
    std::uniform_int_distribution<int> width(1, maxBytes);
    std::int64_t bucket = -5;
    for (int i = 0; i < cells; ++i) {
        IntervalCell c;
        bucket += static_cast<std::int64_t>(ofWidth(rng, std::min(width(rng), 3), 1 << 20));
        c.bucket = bucket;
        c.depth =
            static_cast<model::Depth>(ofWidth(rng, std::min(width(rng), 3), model::kAutoDepth - 1));
        c.count = static_cast<std::uint32_t>(ofWidth(rng, std::min(width(rng), 5), 0xFFFFFFFFu));
        const auto offset =
            static_cast<std::int64_t>(ofWidth(rng, std::min(width(rng), 8), INT64_MAX / 4));
        c.longestStartNs = c.bucket * tile.bucketNs + (i % 2 ? -offset / 2 : offset / 2);
        c.longestDurationNs = static_cast<model::TimeNs>(ofWidth(rng, width(rng), INT64_MAX));
        c.longestName =
            static_cast<model::StringId>(ofWidth(rng, std::min(width(rng), 5), 0xFFFFFFFFu));
        c.firstEntry = static_cast<std::uint32_t>(tile.entries.size());
        c.entryCount = static_cast<std::uint32_t>(i % 4);
        for (std::uint32_t k = 0; k < c.entryCount; ++k) {
            Coverage e;
            e.name =
                static_cast<model::StringId>(ofWidth(rng, std::min(width(rng), 5), 0xFFFFFFFFu));
            e.role = static_cast<model::Role>(k % model::kRoleCount);
            e.coverageNs = static_cast<model::TimeNs>(ofWidth(rng, width(rng), INT64_MAX));
            tile.entries.push_back(e);
        }
        tile.cells.push_back(c);
    }
    return tile;
}

void requireEqual(const IntervalSummaryTile& a, const IntervalSummaryTile& b)
{
    REQUIRE(a.bucketNs == b.bucketNs);
    REQUIRE(a.cells.size() == b.cells.size());
    auto fields = [](const IntervalCell& c) {
        return std::tie(c.bucket, c.depth, c.count, c.longestStartNs, c.longestDurationNs,
            c.longestName, c.firstEntry, c.entryCount);
    };
    for (std::size_t i = 0; i < a.cells.size(); ++i) {
        INFO("cell " << i);
        REQUIRE(fields(a.cells[i]) == fields(b.cells[i]));
    }
    REQUIRE(a.entries == b.entries);
}

/// `tile` as codec version 1 wrote it: one body, the cells' seven columns then the entries.
std::string encodeV1(const IntervalSummaryTile& tile)
{
    storage::ByteWriter out;
    out.varint(static_cast<std::uint64_t>(tile.bucketNs));
    out.varint(tile.cells.size());
    std::int64_t previous = 0;
    for (const auto& c : tile.cells) {
        out.svarint(c.bucket - previous);
        previous = c.bucket;
    }
    for (const auto& c : tile.cells)
        out.varint(c.depth);
    for (const auto& c : tile.cells)
        out.varint(c.count);
    for (const auto& c : tile.cells)
        out.svarint(c.longestStartNs - c.bucket * tile.bucketNs);
    for (const auto& c : tile.cells)
        out.varint(static_cast<std::uint64_t>(c.longestDurationNs));
    for (const auto& c : tile.cells)
        out.varint(c.longestName);
    for (const auto& c : tile.cells)
        out.varint(c.entryCount);
    out.varint(tile.entries.size());
    for (const auto& e : tile.entries)
        out.varint(e.name);
    for (const auto& e : tile.entries)
        out.u8(static_cast<std::uint8_t>(e.role));
    for (const auto& e : tile.entries)
        out.varint(static_cast<std::uint64_t>(e.coverageNs));
    return storage::wrapPayload(storage::TileKind::IntervalSummary, out.bytes(), 1);
}

/// The tile in the codec version asked for.
std::string encode(const IntervalSummaryTile& tile, int version)
{
    return version == 1 ? encodeV1(tile) : storage::encodeTile(tile, 1);
}

/// The columns of a summary tile with one cell of one entry, each value given.
std::string oneCellColumns(
    std::uint64_t depth, std::uint64_t name, std::uint8_t role, std::uint64_t entryName)
{
    storage::ByteWriter out;
    out.varint(256);  // bucket width
    out.varint(1);  // cells
    out.svarint(3);  // bucket
    out.varint(depth);
    out.varint(1);  // count
    out.svarint(0);  // longest start offset
    out.varint(10);  // longest duration
    out.varint(name);
    out.varint(1);  // entry count
    out.varint(1);  // entries
    out.varint(entryName);
    out.u8(role);
    out.varint(100);  // coverage
    return out.bytes();
}

}  // namespace

TEST_CASE("interval summary tiles decode numbers of every width, to the tile's last byte",
    "[store][codec]") {
    const int version = GENERATE(1, 2);
    INFO("codec version " << version);
    std::mt19937_64 rng(16);
    for (int cells : { 0, 1, 2, 3, 7, 8, 9, 100, 1024 }) {
        for (int maxBytes : { 1, 2, 8, 9, 10 }) {
            const IntervalSummaryTile tile = randomTile(rng, cells, maxBytes);
            const std::string payload = encode(tile, version);
            REQUIRE(static_cast<int>(payload.at(3)) == version);
            requireEqual(storage::decodeIntervalSummaryTile(payload), tile);
        }
    }
    // The largest values each column holds, the last ones of the tile included.
    IntervalSummaryTile tile;
    tile.bucketNs = 1;
    tile.cells.push_back({ .bucket = 0,
        .depth = model::kAutoDepth - 1,
        .count = 0xFFFFFFFFu,
        .longestStartNs = INT64_MAX,
        .longestDurationNs = INT64_MAX,
        .longestName = 0xFFFFFFFFu,
        .firstEntry = 0,
        .entryCount = 1 });
    tile.entries.push_back({ 0xFFFFFFFFu, model::Role::Useful, INT64_MAX });
    requireEqual(storage::decodeIntervalSummaryTile(encode(tile, version)), tile);
}

TEST_CASE("the drawn decoding of an interval summary tile is each full cell folded to its colour",
    "[store][codec]") {
    const int version = GENERATE(1, 2);
    INFO("codec version " << version);
    std::mt19937_64 rng(17);
    for (int cells : { 0, 1, 2, 9, 100, 1024, 3000 }) {
        for (int maxBytes : { 1, 2, 9, 10 }) {
            const IntervalSummaryTile tile = randomTile(rng, cells, maxBytes);
            const std::string payload = encode(tile, version);
            const IntervalSummaryTile drawn = storage::decodeDrawnIntervalSummaryTile(payload);
            REQUIRE(drawn.bucketNs == tile.bucketNs);
            REQUIRE(drawn.cells.size() == tile.cells.size());
            std::size_t entries = 0;
            for (std::size_t i = 0; i < tile.cells.size(); ++i) {
                INFO("cell " << i << " of " << cells);
                const IntervalCell& c = tile.cells[i];
                const IntervalCell& d = drawn.cells[i];
                REQUIRE(std::tie(d.bucket, d.depth) == std::tie(c.bucket, c.depth));
                REQUIRE(std::tie(d.count, d.longestStartNs, d.longestDurationNs, d.longestName)
                    == std::tuple(0u, 0, 0, 0u));
                REQUIRE(d.firstEntry == entries);
                REQUIRE(d.entryCount == (c.entryCount > 0 ? 1u : 0u));
                if (c.entryCount == 0)
                    continue;
                std::uint64_t covered = 0;  // wraps like the decoder's sum
                for (std::uint32_t k = 0; k < c.entryCount; ++k)
                    covered +=
                        static_cast<std::uint64_t>(tile.entries[c.firstEntry + k].coverageNs);
                const Coverage& first = tile.entries[c.firstEntry];
                REQUIRE(drawn.entries.at(entries)
                    == Coverage { first.name, first.role, static_cast<model::TimeNs>(covered) });
                ++entries;
            }
            REQUIRE(drawn.entries.size() == entries);
        }
    }
}

TEST_CASE("interval summary tiles whose columns do not hold what they claim are corrupt",
    "[store][codec]") {
    const auto kind = storage::TileKind::IntervalSummary;
    const bool drawnDecoder = GENERATE(false, true);
    INFO((drawnDecoder ? "drawn" : "full") << " decoder");
    auto decode = [&](const std::string& columns) {
        const std::string payload = storage::wrapPayload(kind, columns, 1);
        return drawnDecoder ? storage::decodeDrawnIntervalSummaryTile(payload)
                            : storage::decodeIntervalSummaryTile(payload);
    };
    REQUIRE(decode(oneCellColumns(2, 7, 1, 9)).entries.at(0).coverageNs == 100);
    // Each column cut short: the tile ends inside a number or before its rows.
    const std::string whole = oneCellColumns(2, 7, 1, 9);
    for (std::size_t size = 0; size < whole.size(); ++size)
        REQUIRE_THROWS_AS(decode(whole.substr(0, size)), storage::CorruptTile);
    REQUIRE_THROWS_AS(decode(whole + std::string(1, '\0')), storage::CorruptTile);
    // A number that never ends (eleven bytes with their continuation bit) at the end.
    REQUIRE_THROWS_AS(
        decode(whole.substr(0, whole.size() - 1) + std::string(11, '\x80')), storage::CorruptTile);
    // Values out of their range.
    REQUIRE_THROWS_AS(decode(oneCellColumns(model::kAutoDepth, 7, 1, 9)), storage::CorruptTile);
    if (!drawnDecoder) {  // the drawn decoder does not read the longest event's name
        REQUIRE_THROWS_AS(
            decode(oneCellColumns(2, std::uint64_t(1) << 32, 1, 9)), storage::CorruptTile);
    }
    REQUIRE_THROWS_AS(decode(oneCellColumns(2, 7, model::kRoleCount, 9)), storage::CorruptTile);
    REQUIRE_THROWS_AS(
        decode(oneCellColumns(2, 7, 1, std::uint64_t(1) << 40)), storage::CorruptTile);
}

TEST_CASE("a version 2 interval summary tile cut short or with a part out of place is corrupt",
    "[store][codec]") {
    std::mt19937_64 rng(18);
    const IntervalSummaryTile tile = randomTile(rng, 40, 3);
    const std::string whole = storage::encodeTile(tile, 1);
    for (const bool drawnDecoder : { false, true }) {
        INFO((drawnDecoder ? "drawn" : "full") << " decoder");
        auto decode = [&](const std::string& payload) {
            return drawnDecoder ? storage::decodeDrawnIntervalSummaryTile(payload)
                                : storage::decodeIntervalSummaryTile(payload);
        };
        // The drawn decoder reads up to the drawn part's end, the full one to the last byte.
        storage::ByteReader head(std::string_view(whole).substr(4));
        const std::uint64_t drawnBytes = head.varint();
        const std::size_t drawnAt = whole.size() - head.remaining();
        for (std::size_t size = 0; size < (drawnDecoder ? drawnAt + drawnBytes : whole.size());
             ++size) {
            INFO("cut at " << size << " of " << whole.size());
            REQUIRE_THROWS_AS(decode(whole.substr(0, size)), storage::CorruptTile);
        }
        // A drawn part said to be longer or shorter than it is.
        for (const int shift : { -1, 1, 100 }) {
            storage::ByteWriter moved;
            moved.bytes() = whole.substr(0, 4);
            moved.varint(drawnBytes + static_cast<std::uint64_t>(shift));
            moved.bytes() += whole.substr(drawnAt);
            REQUIRE_THROWS_AS(decode(moved.bytes()), storage::CorruptTile);
        }
    }
    REQUIRE_THROWS_AS(
        storage::decodeIntervalSummaryTile(whole + std::string(1, '\0')), storage::CorruptTile);
}
