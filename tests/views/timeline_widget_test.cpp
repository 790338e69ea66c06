// Navigation invariants of the timeline widget, driven by synthetic input events.

#include "views/timeline_widget.h"

#include "app/main_window.h"
#include "storage/store/store_builder.h"
#include "storage/store/store_reader.h"

#include <QApplication>
#include <QDockWidget>
#include <QKeyEvent>
#include <QMouseEvent>
#include <QWheelEvent>

#include "tests/support/temp_dir.h"
#include <catch2/catch.hpp>

using namespace strata;

namespace {

std::filesystem::path makeStore(const test::TempDir& dir)
{
    const auto path = dir / "w.strata";
    storage::StoreBuilder b(path);
    const auto thread = b.addTrack(b.addTrack(model::kNoTrack, model::ResourceKind::Process, "rank 0"),
                                   model::ResourceKind::Thread, "main");
    for (int i = 0; i < 1000; ++i)
        b.addInterval(thread, {i * 100'000LL, i * 100'000LL + 60'000, b.intern(i % 2 ? "a" : "b"), {}, 0});
    b.finish();
    return path;
}

/// The time at widget x, from the widget's own frame geometry.
double timeAt(const views::TimelineWidget& w, double x)
{
    const views::TimelineFrame f;  // label width as the widget uses it
    const double plotWidth = w.width() - f.labelWidthPx;
    return w.window().startNs + (x - f.labelWidthPx) * static_cast<double>(w.window().durationNs()) / plotWidth;
}

} // namespace

TEST_CASE("zooming with the wheel keeps the time under the cursor in place", "[gui][navigation]")
{
    test::TempDir dir;
    storage::StoreReader store(makeStore(dir));
    views::TimelineWidget widget(store);
    widget.resize(1200, 300);
    widget.setWindow({0, 100'000'000});
    const QPointF cursor(700, 100);
    const double before = timeAt(widget, cursor.x());
    for (const int delta : {120, 120, 240, -120}) {
        QWheelEvent wheel(cursor, widget.mapToGlobal(cursor), QPoint(), QPoint(0, delta), Qt::NoButton,
                          Qt::NoModifier, Qt::NoScrollPhase, false);
        QApplication::sendEvent(&widget, &wheel);
        CHECK(timeAt(widget, cursor.x()) == Approx(before).margin(2.0));
    }
    CHECK(widget.window().durationNs() < 100'000'000);  // three steps in, one out
}

TEST_CASE("dragging pans by pixels times ns per pixel, and keys zoom and fit", "[gui][navigation]")
{
    test::TempDir dir;
    storage::StoreReader store(makeStore(dir));
    views::TimelineWidget widget(store);
    widget.resize(1200, 300);
    widget.setWindow({10'000'000, 20'000'000});
    const double nsPerPx = 10'000'000.0 / (1200 - views::TimelineFrame().labelWidthPx);

    QMouseEvent press(QEvent::MouseButtonPress, QPointF(600, 50), QPointF(600, 50), Qt::LeftButton,
                      Qt::LeftButton, Qt::NoModifier);
    QMouseEvent move(QEvent::MouseMove, QPointF(500, 50), QPointF(500, 50), Qt::NoButton, Qt::LeftButton,
                     Qt::NoModifier);
    QMouseEvent release(QEvent::MouseButtonRelease, QPointF(500, 50), QPointF(500, 50), Qt::LeftButton,
                        Qt::NoButton, Qt::NoModifier);
    QApplication::sendEvent(&widget, &press);
    QApplication::sendEvent(&widget, &move);
    QApplication::sendEvent(&widget, &release);
    // Dragging the content left by 100 px shows what lies 100 px to the right.
    CHECK(widget.window().startNs == Approx(10'000'000 + 100 * nsPerPx).margin(2));
    CHECK(widget.window().durationNs() == 10'000'000);

    const auto width = widget.window().durationNs();
    QKeyEvent w(QEvent::KeyPress, Qt::Key_W, Qt::NoModifier);
    QApplication::sendEvent(&widget, &w);
    CHECK(widget.window().durationNs() < width);
    QKeyEvent f(QEvent::KeyPress, Qt::Key_F, Qt::NoModifier);
    QApplication::sendEvent(&widget, &f);
    CHECK(widget.window().startNs <= store.span().startNs);
    CHECK(widget.window().endNs >= store.span().endNs);
}

TEST_CASE("the timeline reads every cell in full only while it is wanted or a search marks names",
    "[gui][fetch]") {
    test::TempDir dir;
    storage::StoreReader store(makeStore(dir));
    views::TimelineWidget widget(store);
    widget.resize(1200, 300);
    widget.fitAll();
    widget.waitForData();
    CHECK(widget.data()->cells == storage::CellDetail::Full);

    widget.setFullCellsWanted(false);
    widget.waitForData();
    CHECK(widget.data()->cells == storage::CellDetail::Drawn);
    widget.zoom(0.5, 600);  // later windows too
    widget.waitForData();
    CHECK(widget.data()->cells == storage::CellDetail::Drawn);

    model::StringId a = model::kEmptyString;
    REQUIRE(store.strings().find("a", a));
    widget.setSearchMatches({ a });
    widget.waitForData();
    CHECK(widget.data()->cells == storage::CellDetail::Full);
    widget.setSearchMatches({});
    widget.waitForData();
    CHECK(widget.data()->cells == storage::CellDetail::Drawn);

    widget.setFullCellsWanted(true);
    widget.waitForData();
    CHECK(widget.data()->cells == storage::CellDetail::Full);
}

TEST_CASE("the main window reads cells in full only while its legend shows", "[gui][fetch]") {
    test::TempDir dir;
    app::MainWindow window(std::make_unique<storage::StoreReader>(makeStore(dir)));
    window.resize(1400, 900);
    window.show();
    QApplication::processEvents();
    auto* legend = window.findChild<QDockWidget*>(QStringLiteral("legend"));
    REQUIRE(legend);
    views::TimelineWidget* timeline = window.timeline();
    timeline->waitForData();
    CHECK(timeline->data()->cells == storage::CellDetail::Full);

    legend->hide();
    QApplication::processEvents();
    timeline->waitForData();
    CHECK(timeline->data()->cells == storage::CellDetail::Drawn);

    legend->show();
    QApplication::processEvents();
    timeline->waitForData();
    CHECK(timeline->data()->cells == storage::CellDetail::Full);
}
