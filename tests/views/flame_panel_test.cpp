// The flame graph dock aggregates what the timeline shows: its window and tracks.

#include "storage/store/store_builder.h"
#include "storage/store/store_reader.h"
#include "tests/support/temp_dir.h"
#include "views/flame_panel.h"

#include <catch2/catch.hpp>

using namespace strata;

TEST_CASE("the flame panel's tree covers the scope's window and tracks only", "[gui][flame]")
{
    test::TempDir dir;
    const auto path = dir / "f.strata";
    model::TrackId t1 = 0, t2 = 0;
    {
        storage::StoreBuilder b(path);
        t1 = b.addTrack(model::kNoTrack, model::ResourceKind::Thread, "t1");
        t2 = b.addTrack(model::kNoTrack, model::ResourceKind::Thread, "t2");
        // t1: "step" 0..100 us holding "gemm" 10..30 us; t2: "io" 0..50 us.
        b.addInterval(t1, {0, 100'000, b.intern("step"), {}, model::kAutoDepth});
        b.addInterval(t1, {10'000, 30'000, b.intern("gemm"), {}, model::kAutoDepth});
        b.addInterval(t2, {0, 50'000, b.intern("io"), {}, model::kAutoDepth});
        b.finish();
    }
    storage::StoreReader store(path);
    views::FlamePanel panel(store);
    panel.setScope({0, 100'000}, {t1});
    panel.rebuildAndWait();
    CHECK(panel.graph()->renderer().tree().total() == 100'000);
    panel.setScope({20'000, 40'000}, {t1, t2});
    panel.rebuildAndWait();
    CHECK(panel.graph()->renderer().tree().total() == 2 * 20'000);  // step on t1, io on t2
}
