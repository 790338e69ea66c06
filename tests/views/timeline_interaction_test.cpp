// What a user does on the timeline beyond zoom and pan: select a range, zoom to it, go
// back and forward, click and double-click events, collapse a group, search, and use
// the overview strip. Driven by synthetic input events on offscreen widgets.

#include "storage/store/store_builder.h"
#include "storage/store/store_reader.h"
#include "tests/support/temp_dir.h"
#include "views/overview_strip.h"
#include "views/search_bar.h"
#include "views/timeline_widget.h"

#include <QApplication>
#include <QMouseEvent>
#include <QSignalSpy>

#include <catch2/catch.hpp>

using namespace strata;

namespace {

/// Two ranks, one thread each: 1000 kernels of 60 us every 100 us, "a" and "b"
/// alternating, and every 100th one named "needle".
std::filesystem::path makeStore(const test::TempDir& dir)
{
    const auto path = dir / "i.strata";
    storage::StoreBuilder b(path);
    for (int rank = 0; rank < 2; ++rank) {
        const auto proc = b.addTrack(model::kNoTrack, model::ResourceKind::Process, "rank " + std::to_string(rank));
        const auto thread = b.addTrack(proc, model::ResourceKind::Thread, "main");
        for (int i = 0; i < 1000; ++i) {
            const char* name = i % 100 == 7 ? "needle" : i % 2 ? "a" : "b";
            b.addInterval(thread, {i * 100'000LL, i * 100'000LL + 60'000, b.intern(name), {}, 0});
        }
    }
    b.finish();
    return path;
}

void mouse(QWidget& w, QEvent::Type type, QPointF pos, Qt::KeyboardModifiers modifiers = Qt::NoModifier)
{
    const Qt::MouseButtons buttons = type == QEvent::MouseButtonRelease ? Qt::NoButton : Qt::LeftButton;
    QMouseEvent event(type, pos, w.mapToGlobal(pos), Qt::LeftButton, buttons, modifiers);
    QApplication::sendEvent(&w, &event);
}

void drag(QWidget& w, QPointF from, QPointF to, Qt::KeyboardModifiers modifiers)
{
    mouse(w, QEvent::MouseButtonPress, from, modifiers);
    mouse(w, QEvent::MouseMove, (from + to) / 2, modifiers);
    mouse(w, QEvent::MouseMove, to, modifiers);
    mouse(w, QEvent::MouseButtonRelease, to, modifiers);
}

/// The widget y of the middle of the first lane of a track's row.
double rowY(const views::TimelineWidget& w, model::TrackId track)
{
    const views::TimelineRow* row = w.layout().rowOf(track);
    REQUIRE(row);
    return w.frame().rowTop(*row) + w.layout().laneHeightPx / 2.0;
}

} // namespace

TEST_CASE("ctrl-drag zooms to the range, back and forward return to each window", "[gui][navigation]")
{
    test::TempDir dir;
    storage::StoreReader store(makeStore(dir));
    views::TimelineWidget w(store);
    w.resize(1200, 300);
    w.navigateTo({0, 100'000'000});
    const model::TimeRange whole = w.window();
    const views::TimelineFrame f = w.frame();
    drag(w, {f.xOf(20'000'000), 100}, {f.xOf(30'000'000), 100}, Qt::ControlModifier);
    CHECK(w.window().startNs == Approx(20'000'000).margin(100'000));
    CHECK(w.window().durationNs() == Approx(10'000'000).margin(200'000));
    const model::TimeRange zoomed = w.window();

    REQUIRE(w.canGoBack());
    w.back();
    CHECK(w.window() == whole);
    REQUIRE(w.canGoForward());
    w.forward();
    CHECK(w.window() == zoomed);
    // A new navigation drops the forward entries.
    w.back();
    w.fitAll();
    CHECK_FALSE(w.canGoForward());
}

TEST_CASE("shift-drag selects a range and reports its duration without moving", "[gui][navigation]")
{
    test::TempDir dir;
    storage::StoreReader store(makeStore(dir));
    views::TimelineWidget w(store);
    w.resize(1200, 300);
    w.setWindow({0, 100'000'000});
    QSignalSpy ranges(&w, &views::TimelineWidget::rangeSelected);
    const views::TimelineFrame f = w.frame();
    drag(w, {f.xOf(40'000'000), 100}, {f.xOf(45'000'000), 100}, Qt::ShiftModifier);
    REQUIRE(w.selectedRange());
    CHECK(w.selectedRange()->durationNs() == Approx(5'000'000).margin(200'000));
    CHECK(w.window() == model::TimeRange{0, 100'000'000});
    CHECK(ranges.count() >= 1);
    w.zoomToSelectedRange();
    CHECK(w.window() == *w.selectedRange());
}

TEST_CASE("clicking selects the event under the pointer, double-click zooms to it", "[gui][selection]")
{
    test::TempDir dir;
    storage::StoreReader store(makeStore(dir));
    views::TimelineWidget w(store);
    w.resize(1200, 300);
    w.setWindow({0, 2'000'000});  // 20 kernels, ~50 px each
    w.waitForData();
    const model::TrackId thread = w.layout().rows.at(1).track;
    const views::TimelineFrame f = w.frame();
    const QPointF onKernel7(f.xOf(730'000), rowY(w, thread));
    mouse(w, QEvent::MouseButtonPress, onKernel7);
    mouse(w, QEvent::MouseButtonRelease, onKernel7);
    REQUIRE(w.selection());
    CHECK(store.strings().text(w.selection()->interval.name) == "needle");
    CHECK(w.selection()->interval.startNs == 700'000);
    CHECK(w.selection()->track == thread);

    // In a gap between kernels (60..100 us of each period) nothing is selected.
    const QPointF gap(f.xOf(880'000), rowY(w, thread));
    mouse(w, QEvent::MouseButtonPress, gap);
    mouse(w, QEvent::MouseButtonRelease, gap);
    CHECK_FALSE(w.selection());

    QMouseEvent dbl(QEvent::MouseButtonDblClick, onKernel7, w.mapToGlobal(onKernel7), Qt::LeftButton,
                    Qt::LeftButton, Qt::NoModifier);
    QApplication::sendEvent(&w, &dbl);
    CHECK(w.window().startNs <= 700'000);
    CHECK(w.window().endNs >= 760'000);
    CHECK(w.window().durationNs() < 100'000);
}

TEST_CASE("clicking a group header collapses its rows, clicking again expands them", "[gui][layout]")
{
    test::TempDir dir;
    storage::StoreReader store(makeStore(dir));
    views::TimelineWidget w(store);
    w.resize(1200, 300);
    const std::size_t rows = w.layout().rows.size();
    REQUIRE(rows == 4);  // rank 0, main, rank 1, main
    const views::TimelineRow header = w.layout().rows.at(0);
    REQUIRE(header.group);
    const QPointF onHeader(50, w.frame().rowTop(header) + 4);
    mouse(w, QEvent::MouseButtonPress, onHeader);
    mouse(w, QEvent::MouseButtonRelease, onHeader);
    CHECK(w.layout().rows.size() == rows - 1);
    CHECK(w.layout().rows.at(0).collapsed);
    mouse(w, QEvent::MouseButtonPress, onHeader);
    mouse(w, QEvent::MouseButtonRelease, onHeader);
    CHECK(w.layout().rows.size() == rows);

    w.setTrackFilter("rank 1");
    CHECK(w.layout().rows.size() == 2);
}

TEST_CASE("search counts the matches and next jumps to each in time order", "[gui][search]")
{
    test::TempDir dir;
    storage::StoreReader store(makeStore(dir));
    views::TimelineWidget w(store);
    w.resize(1200, 300);
    views::SearchBar search(store);
    QObject::connect(&search, &views::SearchBar::showMatch, &w, &views::TimelineWidget::showInterval);
    search.searchAndWait("needle", false);
    CHECK(search.matchCount() == 20);  // 10 per rank
    search.next();
    search.next();
    search.next();
    REQUIRE(w.selection());
    // Matches sorted by start, then track: the 3rd is rank 0's second needle at 10.7 ms.
    CHECK(w.selection()->interval.startNs == 10'700'000);
    CHECK(w.window().startNs <= 10'700'000);
    CHECK(w.window().endNs >= 10'760'000);
    search.previous();
    CHECK(w.selection()->interval.startNs == 700'000);

    search.searchAndWait("^(a|b)$", true);
    CHECK(search.matchCount() == 2 * 990);
}

TEST_CASE("the overview strip shows the run and clicking it moves the window there", "[gui][overview]")
{
    test::TempDir dir;
    storage::StoreReader store(makeStore(dir));
    views::OverviewStrip strip(store);
    strip.resize(1000, 60);
    strip.setWindow({0, 10'000'000});
    const QImage image = strip.grabStrip();
    int painted = 0;
    for (int x = 0; x < image.width(); x += 5)
        painted += QColor(image.pixel(x, 30)) != QColor(Qt::white);
    CHECK(painted > 100);  // the whole run is busy
    QSignalSpy requested(&strip, &views::OverviewStrip::windowRequested);
    mouse(strip, QEvent::MouseButtonPress, {500, 30});
    REQUIRE(requested.count() == 1);
    const auto window = requested.at(0).at(0).value<model::TimeRange>();
    CHECK(window.durationNs() == 10'000'000);
    CHECK((window.startNs + window.endNs) / 2 == Approx(50'000'000).epsilon(0.03));
}

TEST_CASE("showing only some tracks keeps them and the groups above them", "[gui][layout]")
{
    test::TempDir dir;
    storage::StoreReader store(makeStore(dir));
    views::TimelineWidget w(store);
    const model::TrackId rank1Thread = w.layout().rows.at(3).track;
    w.showOnlyTracks({rank1Thread});
    REQUIRE(w.layout().rows.size() == 2);  // "rank 1" and its thread
    CHECK(w.layout().rows.at(1).track == rank1Thread);
    w.showOnlyTracks({});
    CHECK(w.layout().rows.size() == 4);
}

TEST_CASE("the overview strip of hundreds of busy tracks shows them busy", "[gui]")
{
    // 400 tracks in a 60-pixel strip: each pixel row stands for several tracks' rows,
    // most of them the white between lanes. Sampling one source row per pixel row would
    // mostly land there and show an empty strip (the 1 B-event run's 576 rows did).
    test::TempDir dir;
    const auto path = dir / "many.strata";
    {
        storage::StoreBuilder b(path);
        for (int t = 0; t < 400; ++t) {
            const auto thread = b.addTrack(model::kNoTrack, model::ResourceKind::Thread, "t" + std::to_string(t));
            for (int i = 0; i < 100; ++i)
                b.addInterval(thread, {i * 1'000'000LL, i * 1'000'000LL + 900'000, b.intern("busy"), {}, 0});
        }
        b.finish();
    }
    storage::StoreReader store(path);
    views::OverviewStrip strip(store);
    strip.resize(800, 60);
    const QImage image = strip.grabStrip();
    int painted = 0, seen = 0;
    for (int y = 5; y < 55; y += 5) {
        for (int x = 100; x < 700; x += 10, ++seen)
            painted += QColor(image.pixel(x, y)) != QColor(Qt::white);
    }
    CHECK(painted >= seen * 9 / 10);
}

TEST_CASE("foldRows keeps the most inked pixel of the rows it folds", "[gui]")
{
    QImage content(4, 90, QImage::Format_RGB32);
    content.fill(Qt::white);
    content.setPixel(1, 44, qRgb(200, 0, 0));  // one thin mark among 90 rows
    const QImage folded = views::foldRows(content, 9);
    REQUIRE(folded.size() == QSize(4, 9));
    CHECK(folded.pixel(1, 4) == qRgb(200, 0, 0));
    CHECK(folded.pixel(0, 4) == qRgb(255, 255, 255));
    CHECK(views::foldRows(content, 180).size() == QSize(4, 180));
}
