// The counter charts share the timeline's time axis exactly: a time sits at the same
// screen x in the timeline and in every chart, and both tick it at the same step.

#include "storage/store/store_builder.h"
#include "storage/store/store_reader.h"
#include "views/counter_charts_panel.h"
#include "views/time_ticks.h"
#include "views/timeline_renderer.h"
#include "views/timeline_widget.h"

#include <QApplication>
#include <QCategoryAxis>
#include <QChart>
#include <QChartView>
#include <QLineSeries>
#include <QVBoxLayout>

#include "tests/support/temp_dir.h"
#include <catch2/catch.hpp>

using namespace strata;

namespace {

/// A GPU with kernels every 2 ms and two counters sampled every 100 us, over 200 ms.
std::filesystem::path makeStore(const test::TempDir& dir)
{
    const auto path = dir / "axis.strata";
    storage::StoreBuilder b(path);
    const auto gpu = b.addTrack(model::kNoTrack, model::ResourceKind::Gpu, "GPU 0");
    const auto stream = b.addTrack(gpu, model::ResourceKind::Stream, "stream 7");
    const auto util = b.addTrack(gpu, model::ResourceKind::Counter, "sm_active", 0, "%");
    const auto power = b.addTrack(gpu, model::ResourceKind::Counter, "power", 0, "W");
    const auto kernel = b.intern("gemm");
    for (int i = 0; i < 100; ++i)
        b.addInterval(stream, { i * 2'000'000LL, i * 2'000'000LL + 1'200'000, kernel, {}, 0 });
    for (int i = 0; i < 2'000; ++i) {
        b.addCounterSample(util, { i * 100'000LL, (i / 10) % 2 ? 90.0 : 5.0 });
        b.addCounterSample(power, { i * 100'000LL, 100.0 + i % 37 });
    }
    b.finish();
    return path;
}

/// The timeline over the charts, as the main window stacks them; the panel is indented
/// by `indentPx` so its left edge is not the timeline's.
struct Stack
{
    QWidget window;
    views::TimelineWidget* timeline;
    views::CounterChartsPanel* panel;

    Stack(storage::StoreReader& store, int indentPx)
    {
        auto* layout = new QVBoxLayout(&window);
        layout->setContentsMargins(0, 0, 0, 0);
        timeline = new views::TimelineWidget(store, &window);
        layout->addWidget(timeline, 1);
        auto* holder = new QWidget(&window);
        auto* holderLayout = new QVBoxLayout(holder);
        holderLayout->setContentsMargins(indentPx, 0, 0, 0);
        panel = new views::CounterChartsPanel(store, holder);
        holderLayout->addWidget(panel);
        layout->addWidget(holder, 2);
        QObject::connect(timeline, &views::TimelineWidget::windowChanged, panel,
            &views::CounterChartsPanel::setWindow);
        QObject::connect(timeline, &views::TimelineWidget::cursorMoved, panel,
            &views::CounterChartsPanel::setCursor);
        panel->alignTo(timeline);
    }

    void settle()
    {
        QApplication::processEvents();
        panel->waitForData();
        QApplication::processEvents();  // the charts lay out their axes
    }
};

/// Screen x of time `t` in `chart` (through its view, in floating point).
double chartScreenX(QChart* chart, double t)
{
    const QPointF inChart = chart->mapToPosition(QPointF(t, 0), chart->series().at(0));
    auto* view = qobject_cast<QChartView*>(chart->scene()->views().at(0));
    const QPointF inViewport = view->viewportTransform().map(chart->mapToScene(inChart));
    return view->viewport()->mapToGlobal(inViewport).x();
}

double timelineScreenX(const views::TimelineWidget& timeline, model::TimeNs t)
{
    return timeline.mapToGlobal(QPointF(timeline.frame().xOf(t), 0)).x();
}

void checkAligned(const Stack& s)
{
    const model::TimeRange w = s.timeline->window();
    REQUIRE(s.panel->window() == w);
    REQUIRE(s.panel->charts().size() == 2);
    for (QChart* chart : s.panel->charts()) {
        for (const double share : { 0.0, 0.1, 0.37, 0.5, 0.81, 1.0 }) {
            const model::TimeNs t =
                w.startNs + static_cast<model::TimeNs>(share * static_cast<double>(w.durationNs()));
            CHECK(std::abs(
                      chartScreenX(chart, static_cast<double>(t)) - timelineScreenX(*s.timeline, t))
                <= 1.0);
        }
    }
    // The queries ask for the timeline's pixel width, so both draw the same buckets.
    CHECK(std::abs(s.panel->plotWidthPx() - s.timeline->frame().plotWidthPx()) <= 1);
}

}  // namespace

TEST_CASE("a time sits at the same screen x in the timeline and in every counter chart",
    "[gui][counters][axis]") {
    test::TempDir dir;
    storage::StoreReader store(makeStore(dir));
    for (const int indentPx : { 0, 37 }) {
        Stack s(store, indentPx);
        s.window.resize(1200, 800);
        s.window.show();
        s.timeline->setWindow({ 20'000'000, 70'000'000 });
        s.settle();
        checkAligned(s);

        // Zooming, panning and resizing keep it so.
        s.timeline->zoom(0.3, 250);
        s.timeline->panPx(-120);
        s.settle();
        checkAligned(s);
        s.window.resize(950, 700);
        s.settle();
        checkAligned(s);

        // The cursor line is where the timeline draws its cursor.
        const model::TimeRange w = s.timeline->window();
        const model::TimeNs cursor = w.startNs + w.durationNs() * 2 / 3;
        emit s.timeline->cursorMoved(cursor);
        QChart* chart = s.panel->charts().front();
        const auto* line = qobject_cast<QLineSeries*>(chart->series().at(2));
        REQUIRE(line->count() == 2);
        CHECK(std::abs(chartScreenX(chart, line->at(0).x()) - timelineScreenX(*s.timeline, cursor))
            <= 1.0);
    }
}

TEST_CASE("counter charts tick their time axis where the ruler does", "[gui][counters][axis]") {
    test::TempDir dir;
    storage::StoreReader store(makeStore(dir));
    Stack s(store, 0);
    s.window.resize(1300, 800);
    s.window.show();
    for (const model::TimeRange window :
        { model::TimeRange { 0, 200'000'000 }, model::TimeRange { 31'234'567, 31'734'567 } }) {
        s.timeline->setWindow(window);
        s.settle();
        const views::TimelineFrame frame = s.timeline->frame();
        const std::vector<views::TimeTick> ticks =
            views::timeTicks(frame.window, frame.plotWidthPx());
        REQUIRE(ticks.size() >= 5);
        const model::TimeNs step = views::tickStep(1.0 / frame.pxPerNs());
        CHECK(ticks[1].timeNs - ticks[0].timeNs == step);
        CHECK(ticks[1].label.starts_with("+"));

        // The ruler draws a tick mark at each of them...
        const QImage ruler = s.timeline->grab().toImage();
        for (const views::TimeTick& tick : ticks) {
            const int x = static_cast<int>(std::lround(frame.xOf(tick.timeNs)));
            CHECK(ruler.pixelColor(x, frame.rulerHeightPx - 3) == QColor(0x55, 0x55, 0x55));
        }
        // ...and every chart has a category (grid line and label) ending at each.
        for (QChart* chart : s.panel->charts()) {
            auto* x = qobject_cast<QCategoryAxis*>(chart->axes(Qt::Horizontal).at(0));
            REQUIRE(x);
            const QStringList labels = x->categoriesLabels();
            REQUIRE(labels.size() == static_cast<qsizetype>(ticks.size()));
            for (std::size_t i = 0; i < ticks.size(); ++i) {
                CHECK(labels[static_cast<qsizetype>(i)].toStdString() == ticks[i].label);
                CHECK(x->endValue(labels[static_cast<qsizetype>(i)])
                    == static_cast<double>(ticks[i].timeNs));
            }
        }
        // Only the bottom chart writes the labels.
        CHECK(s.panel->charts().back()->axes(Qt::Horizontal).at(0)->labelsVisible());
        CHECK(!s.panel->charts().front()->axes(Qt::Horizontal).at(0)->labelsVisible());
    }
}

TEST_CASE("the timeline holds a counter's last value in the window as the charts do",
    "[gui][counters][axis]") {
    // Samples at 0, 50 and 100 ms: in a 0..80 ms window the 50 ms value holds to the edge.
    test::TempDir dir;
    const auto path = dir / "sparse.strata";
    {
        storage::StoreBuilder b(path);
        const auto gpu = b.addTrack(model::kNoTrack, model::ResourceKind::Gpu, "GPU 0");
        const auto util = b.addTrack(gpu, model::ResourceKind::Counter, "sm_active", 0, "%");
        for (const int ms : { 0, 50, 100 })
            b.addCounterSample(util, { ms * 1'000'000LL, ms == 50 ? 80.0 : 10.0 });
        b.finish();
    }
    storage::StoreReader store(path);
    const model::TrackId util = views::CounterChartsPanel::counterTracks(store).at(0);
    views::TimelineRenderer renderer(store);
    views::TimelineFrame frame;
    frame.window = { 0, 80'000'000 };
    frame.widthPx = 1000;
    frame.heightPx = 300;
    QImage image(frame.widthPx, frame.heightPx, QImage::Format_RGB32);
    {
        QPainter painter(&image);
        renderer.paint(painter, frame);
    }
    const views::TimelineRow* row = renderer.layout().rowOf(util);
    REQUIRE(row);
    auto painted = [&](int x) {
        for (int y = frame.rowTop(*row); y < frame.rowTop(*row) + row->heightPx; ++y)
            if (image.pixelColor(x, y) != QColor(Qt::white)
                && image.pixelColor(x, y).saturation() > 60)
                return true;
        return false;
    };
    CHECK(painted(static_cast<int>(frame.xOf(60'000'000))));
    CHECK(painted(frame.widthPx - 2));

    // The chart of the same window draws the value to the window's end too.
    views::CounterChartsPanel panel(store);
    panel.resize(frame.widthPx, 300);
    panel.setWindow(frame.window);
    panel.show();
    panel.waitForData();
    const views::CounterSeries* series = panel.series(util);
    REQUIRE(series);
    REQUIRE(!series->meanPoints.isEmpty());
    CHECK(series->meanPoints.back() == QPointF(80'000'000.0, 80.0));
}
