// A spilled track comes back whole and in arrival order, each column allocated once at
// its final size: a reloaded track is the largest thing a tiling worker holds, and columns
// grown by doubling would take up to twice the memory.

#include "storage/store/spill_file.h"

#include "tests/support/temp_dir.h"
#include <catch2/catch.hpp>

using namespace strata;

namespace {

/// Adds `n` intervals (args on every third, from row `argsFrom` on), instants, counters.
void addEvents(
    storage::StoreBuilder::TrackBuffer& b, int n, int argsFrom, std::vector<std::string>& args)
{
    for (int i = 0; i < n; ++i) {
        model::Interval e;
        e.startNs = static_cast<model::TimeNs>(args.size()) * 10;
        e.endNs = e.startNs + 5;
        e.seq = b.intervalsSeen++;
        b.intervals.push_back(e);
        const std::string a =
            i >= argsFrom && i % 3 == 0 ? "{\"i\":" + std::to_string(args.size()) + "}" : "";
        b.intervalArgs.append(b.intervals.size() - 1, a);
        args.push_back(a);
        b.instants.push_back({ e.startNs, 1, 2 });
        b.instantArgs.append(b.instants.size() - 1, i % 7 == 0 ? "x" : "");
        b.counters.push_back({ e.startNs, static_cast<double>(i) });
    }
}

}  // namespace

TEST_CASE("a reloaded track holds its segments in order, each column allocated at its final size",
    "[store][spill]") {
    test::TempDir dir;
    storage::SpillFile spill(dir / "spill");
    storage::StoreBuilder::TrackBuffer b;
    std::vector<std::string> args;
    addEvents(b, 1000, 2000, args);  // a segment without interval args
    spill.spill(0, b);
    REQUIRE(b.intervals.empty());
    addEvents(b, 3000, 500, args);
    spill.spill(0, b);
    // A spilled buffer holds nothing (a tiling worker holds one track, the other tracks
    // nothing), its args' strings included.
    CHECK(storage::bufferedBytes(b) < 64);
    addEvents(b, 777, 0, args);  // and what came after the last spill

    spill.reload(0, b);
    REQUIRE(b.intervals.size() == args.size());
    for (std::size_t i = 0; i < args.size(); ++i) {
        CHECK(b.intervals[i].seq == i);
        CHECK(b.intervalArgs.at(i) == args[i]);
    }
    CHECK(b.instants.size() == args.size());
    CHECK(b.counters.size() == args.size());
    CHECK(b.intervals.capacity() == b.intervals.size());
    CHECK(b.intervalArgs.ends.capacity() == b.intervalArgs.ends.size());
    CHECK(b.intervalArgs.bytes.capacity() == b.intervalArgs.bytes.size());
    CHECK(b.instants.capacity() == b.instants.size());
    CHECK(b.instantArgs.ends.capacity() == b.instantArgs.ends.size());
    CHECK(b.counters.capacity() == b.counters.size());
}
