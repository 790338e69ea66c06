// Issue 14, item 5: the terminal progress bar shows no rate before a meaningful interval
// has passed, and a byte phase's rate in B/s with its SI prefix ("3.146 MB/s"), not the
// "3145725.0 M/s" its first frame once printed.

#include "app/ingest_job.h"
#include "app/progress_bar.h"

#include <catch2/catch.hpp>

using namespace strata;

TEST_CASE("issue 14: the progress line shows a rate only after half a second, in the phase's unit",
    "[cli][progress]") {
    // The first frame, microseconds after the start: bar and percentage only.
    const std::string first = app::progressLine("reading t.json.gz", 3145725, 12582900, 1e-6, "B");
    CHECK(first == "reading t.json.gz [#######.......................]  25.0%");
    CHECK(app::progressLine("reading t.json.gz", 3145725, 12582900, 0.49, "B").find("/s")
        == std::string::npos);
    // Nothing done yet: no rate even late.
    CHECK(app::progressLine("tiling", 0, 40, 3.0, "tracks").find("/s") == std::string::npos);

    CHECK(app::progressLine("reading t.json.gz", 3145725, 12582900, 1.0, "B")
        == "reading t.json.gz [#######.......................]  25.0%  3.146 MB/s ETA 3s");
    CHECK(app::progressLine("tiling", 10, 40, 2.0, "tracks")
        == "tiling [#######.......................]  25.0%  5 tracks/s ETA 6s");
    // Done: no time left to show.
    CHECK(app::progressLine("cutting", 50000, 50000, 2.0, "events")
        == "cutting [##############################] 100.0%  25k events/s");
    CHECK(app::progressLine("tiling", 5, 0, 1.0, "tracks").find("  0.0%") != std::string::npos);
}

TEST_CASE("issue 14: an ingest's reading phases count bytes and its tiling phase tracks",
    "[cli][progress]") {
    CHECK(app::phaseUnit("reading kineto.json.gz") == "B");
    CHECK(app::phaseUnit("tiling") == "tracks");
}
