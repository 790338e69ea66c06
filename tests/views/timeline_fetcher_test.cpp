// TimelineFetcher answers a request with a quick coarse pass, then the full one, when the
// coarse pass reads a coarser level; when both would read the same level (the overview
// strip's whole run, at the coarsest level at either width) it answers once. A request
// for every cell in full is answered with the cells as drawn first, unless told not to.

#include "views/timeline_fetcher.h"

#include "storage/store/store_builder.h"
#include "storage/store/store_reader.h"

#include "tests/support/random_trace.h"
#include "tests/support/temp_dir.h"
#include <catch2/catch.hpp>

#include <atomic>

using namespace strata;

TEST_CASE("the fetcher skips a coarse pass that would read the level of the full one",
    "[views][fetcher]") {
    test::TempDir dir;
    const auto path = dir / "f.strata";
    {
        storage::MemoryTrace trace;
        test::makeRandomTrace({}, trace);
        storage::StoreBuilder builder(path);
        trace.replayInto(builder);
        builder.finish();
    }
    storage::StoreReader store(path);
    std::vector<model::TrackId> tracks(store.resources().size());
    for (std::size_t i = 0; i < tracks.size(); ++i)
        tracks[i] = static_cast<model::TrackId>(i);
    const model::LodGrid& grid = store.grid();
    REQUIRE(grid.levels >= 4);

    views::TimelineFetcher fetcher(store);
    std::atomic<int> answers = 0;
    QObject::connect(
        &fetcher, &views::TimelineFetcher::ready, &fetcher, [&] { ++answers; },
        Qt::DirectConnection);
    constexpr int kWidth = 400;

    // Four coarsest buckets a pixel at the full width: the coarsest level at 1/8 of it too.
    const model::TimeRange wide { 0, grid.bucketNs(grid.levels) * 4 * kWidth };
    const auto drawn = storage::CellDetail::Drawn;
    fetcher.request({ tracks, wide, kWidth, 0, drawn });
    fetcher.waitUntilIdle();
    CHECK(answers == 1);
    CHECK(fetcher.latest()->plotWidthPx == kWidth);
    CHECK(fetcher.latest()->cells == drawn);

    // One level-2 bucket a pixel: 1/8 of the width reads level 3, a quicker first answer.
    answers = 0;
    const model::TimeRange narrow { 0, grid.bucketNs(2) * kWidth };
    fetcher.request({ tracks, narrow, kWidth, 0, drawn });
    fetcher.waitUntilIdle();
    CHECK(answers == 2);
    CHECK(fetcher.latest()->plotWidthPx == kWidth);

    // Every cell in full: the cells as drawn come first, at the full width, then in full.
    answers = 0;
    fetcher.request({ tracks, wide, kWidth, 0, storage::CellDetail::Full });
    fetcher.waitUntilIdle();
    CHECK(answers == 2);
    CHECK(fetcher.latest()->cells == storage::CellDetail::Full);
    CHECK(fetcher.latest()->plotWidthPx == kWidth);
    answers = 0;
    fetcher.request({ tracks, wide, kWidth, 0, storage::CellDetail::Full, false });
    fetcher.waitUntilIdle();
    CHECK(answers == 1);
    CHECK(fetcher.latest()->cells == storage::CellDetail::Full);
}
