// The arithmetic behind rank 0's progress bar of `strata-mpi ingest` (app/mpi/rank_progress.h):
// a rank's bytes read of its files, rank 0's sum of every rank's latest report, and when a
// rank sends. The MPI messages themselves are checked by hand under `script` (a terminal):
// see app/mpi/README.md.

#include "app/mpi/rank_progress.h"

#include <catch2/catch.hpp>

using namespace strata::app::mpi;
using namespace std::chrono_literals;

TEST_CASE("rank progress: the sum of each key's latest value", "[cli][mpi][progress]") {
    // Rank 0's view of 3 ranks: reports replace, never add to, a rank's previous one.
    RunningTotal ranks(3);
    CHECK(ranks.sum() == 0);
    CHECK(ranks.set(0, 100) == 100);
    CHECK(ranks.set(2, 50) == 150);
    CHECK(ranks.set(0, 300) == 350);
    CHECK(ranks.set(2, 50) == 350);  // the same report twice counts once
    CHECK(ranks.set(1, 1000) == 1350);
    CHECK(ranks.sum() == 1350);
    CHECK_THROWS(ranks.set(3, 1));  // no fourth rank

    // A rank's files: one callback per file reports that file's own bytes read.
    RunningTotal files(2);
    files.set(0, 40);
    files.set(0, 90);
    files.set(1, 10);
    CHECK(files.sum() == 100);
}

TEST_CASE(
    "rank progress: a rank sends first, then at most once per interval, and once when complete",
    "[cli][mpi][progress]") {
    SendThrottle throttle(100ms);
    const SendThrottle::Clock::time_point t0 {};
    CHECK(throttle.due(1, 1000, t0));  // the first report goes at once
    CHECK_FALSE(throttle.due(2, 1000, t0 + 50ms));
    CHECK_FALSE(throttle.due(3, 1000, t0 + 99ms));
    CHECK(throttle.due(4, 1000, t0 + 100ms));
    CHECK_FALSE(throttle.due(5, 1000, t0 + 150ms));
    CHECK(throttle.due(1000, 1000, t0 + 160ms));  // complete: sent within the interval
    CHECK_FALSE(throttle.due(1000, 1000, t0 + 170ms));  // but once
    CHECK_FALSE(throttle.due(1000, 1000, t0 + 500ms));
}
