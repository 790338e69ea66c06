// Counter and counter summary tiles (codec version 2): every value comes back bit for
// bit, whole-valued counters (Paraver's, most hardware counters) cost less than raw
// doubles (a summary cell mostly its last value and mean), and tiles of codec version 1 (stores of
// format version 1) still decode.

#include "storage/store/byte_io.h"
#include "storage/store/level_summarizer.h"
#include "storage/store/tile_codec.h"

#include <catch2/catch.hpp>

#include <bit>
#include <cmath>
#include <limits>
#include <random>

using namespace strata;
using storage::CounterCell;
using storage::CounterSummaryTile;
using storage::CounterTile;

namespace {

std::uint64_t bits(double v)
{
    return std::bit_cast<std::uint64_t>(v);
}

void requireSame(const CounterCell& a, const CounterCell& b)
{
    CHECK(a.bucket == b.bucket);
    CHECK(a.count == b.count);
    CHECK(bits(a.min) == bits(b.min));
    CHECK(bits(a.max) == bits(b.max));
    CHECK(bits(a.mean) == bits(b.mean));
    CHECK(bits(a.last) == bits(b.last));
    CHECK(a.weightNs == b.weightNs);
}

/// A counter sampled irregularly with whole values near one another (cycles per sample),
/// as Paraver gives.
std::vector<model::CounterSample> cycleSamples(std::size_t n, std::uint64_t seed)
{
    std::mt19937_64 rng(seed);
    std::vector<model::CounterSample> out;
    model::TimeNs t = 1'000'000;
    for (std::size_t i = 0; i < n; ++i) {
        t += std::uniform_int_distribution<model::TimeNs>(1, 200'000)(rng);
        out.push_back({ t,
            static_cast<double>(30'000 + std::uniform_int_distribution<int>(-300, 300)(rng)) });
    }
    return out;
}

/// Tiles as codec version 1 wrote them: samples n | time delta | value f64; cells n |
/// bucket delta | count | min | max | mean | last (f64) | weight.
std::string version1(const CounterTile& tile)
{
    storage::ByteWriter out;
    out.varint(tile.samples.size());
    model::TimeNs previous = 0;
    for (const model::CounterSample& s : tile.samples) {
        out.svarint(s.timeNs - previous);
        previous = s.timeNs;
    }
    for (const model::CounterSample& s : tile.samples)
        out.f64(s.value);
    return storage::wrapPayload(storage::TileKind::Counters, out.bytes(), 3);
}

std::string version1(const CounterSummaryTile& tile)
{
    storage::ByteWriter out;
    out.varint(tile.cells.size());
    std::int64_t previous = 0;
    for (const CounterCell& c : tile.cells) {
        out.svarint(c.bucket - previous);
        previous = c.bucket;
    }
    for (const CounterCell& c : tile.cells)
        out.varint(c.count);
    for (auto field :
        { &CounterCell::min, &CounterCell::max, &CounterCell::mean, &CounterCell::last }) {
        for (const CounterCell& c : tile.cells)
            out.f64(c.*field);
    }
    for (const CounterCell& c : tile.cells)
        out.varint(static_cast<std::uint64_t>(c.weightNs));
    return storage::wrapPayload(storage::TileKind::CounterSummary, out.bytes(), 3);
}

CounterSummaryTile summaryOf(const std::vector<storage::CounterPiece>& pieces)
{
    CounterSummaryTile tile;
    for (const storage::CounterPiece& p : pieces)
        tile.cells.push_back(p.cell);
    return tile;
}

}  // namespace

TEST_CASE("counter tiles give back every value bit for bit", "[store][codec]") {
    const double nan = std::numeric_limits<double>::quiet_NaN();
    const double inf = std::numeric_limits<double>::infinity();
    CounterTile whole, mixed;
    for (const double v : { 0.0, 1.0, -5.0, 9007199254740992.0, -9007199254740992.0, 42.0 })
        whole.samples.push_back({ static_cast<model::TimeNs>(whole.samples.size() * 10), v });
    for (const double v : { 0.0, -0.0, 1.5, nan, inf, -inf, 1e300, 9007199254740994.0, 3.0 })
        mixed.samples.push_back({ static_cast<model::TimeNs>(mixed.samples.size() * 10), v });
    for (const CounterTile* tile : { &whole, &mixed }) {
        const CounterTile back = storage::decodeCounterTile(storage::encodeTile(*tile));
        REQUIRE(back.samples.size() == tile->samples.size());
        for (std::size_t i = 0; i < back.samples.size(); ++i) {
            CHECK(back.samples[i].timeNs == tile->samples[i].timeNs);
            CHECK(bits(back.samples[i].value) == bits(tile->samples[i].value));
        }
    }

    // Summary cells from real levels, plus cells no level gives (a first cell whose min
    // is neither its last nor carried, NaN, -0.0, no weight).
    const auto samples = cycleSamples(5000, 3);
    const model::LodGrid grid = model::LodGrid::forSpan(samples.back().timeNs);
    const auto levels = storage::summarizeCounters(grid, samples);
    std::vector<CounterSummaryTile> tiles;
    for (const auto& level : levels)
        tiles.push_back(summaryOf(level));
    CounterSummaryTile odd;
    odd.cells = { { 1, 3, -1.0, 7.0, 2.5, 3.0, 100 }, { 2, 1, -0.0, 0.0, -0.0, 0.0, 100 },
        { 3, 2, nan, nan, nan, nan, 0 }, { 5, 1, 0.5, 0.75, 0.6, 0.5, 7 },
        { 9, 1, 1e18, 3e18, 2e18, 3e18, 1'000'000'000 } };
    tiles.push_back(odd);
    for (const CounterSummaryTile& tile : tiles) {
        const CounterSummaryTile back =
            storage::decodeCounterSummaryTile(storage::encodeTile(tile));
        REQUIRE(back.cells.size() == tile.cells.size());
        for (std::size_t i = 0; i < back.cells.size(); ++i)
            requireSame(back.cells[i], tile.cells[i]);
    }
}

TEST_CASE("whole-valued counter tiles cost less than raw doubles", "[store][codec]") {
    const auto samples = cycleSamples(20000, 7);
    CounterTile exact;
    exact.samples.assign(samples.begin(), samples.begin() + 512);
    const std::size_t v2 = storage::encodeTile(exact).size();
    INFO("exact tile: " << v2 << " bytes, " << version1(exact).size() << " at version 1");
    CHECK(v2 < version1(exact).size());

    const model::LodGrid grid = model::LodGrid::forSpan(samples.back().timeNs);
    const auto level =
        storage::coarserCounterLevel(grid, 2, storage::counterLevelOne(grid, samples));
    REQUIRE(level.size() >= 1024);
    CounterSummaryTile tile = summaryOf(level);
    tile.cells.resize(1024);
    const std::size_t summaryV2 = storage::encodeTile(tile).size();
    INFO("summary tile: " << summaryV2 << " bytes, " << version1(tile).size() << " at version 1");
    CHECK(4 * summaryV2 <= 3 * version1(tile).size());
}

TEST_CASE("counter tiles of codec version 1 still decode", "[store][codec]") {
    CounterTile exact;
    exact.samples = cycleSamples(300, 11);
    exact.samples[7].value = 0.25;
    const CounterTile samples = storage::decodeCounterTile(version1(exact));
    REQUIRE(samples.samples.size() == exact.samples.size());
    for (std::size_t i = 0; i < samples.samples.size(); ++i) {
        CHECK(samples.samples[i].timeNs == exact.samples[i].timeNs);
        CHECK(bits(samples.samples[i].value) == bits(exact.samples[i].value));
    }

    const model::LodGrid grid = model::LodGrid::forSpan(exact.samples.back().timeNs);
    const CounterSummaryTile tile = summaryOf(storage::counterLevelOne(grid, exact.samples));
    const CounterSummaryTile cells = storage::decodeCounterSummaryTile(version1(tile));
    REQUIRE(cells.cells.size() == tile.cells.size());
    for (std::size_t i = 0; i < cells.cells.size(); ++i)
        requireSame(cells.cells[i], tile.cells[i]);
}
