// The counter charts and the kernel-metric colouring on the real H100 run: Kineto trace,
// NVML counter log and Nsight Compute metrics ingested together by the strata binary.

#include "storage/store/store_builder.h"
#include "storage/store/store_reader.h"
#include "tests/support/run_command.h"
#include "tests/support/temp_dir.h"
#include "views/counter_charts_panel.h"
#include "views/gradient_legend.h"
#include "views/kernel_metric_colors.h"
#include "views/timeline_renderer.h"
#include "views/timeline_widget.h"

#include <QAreaSeries>
#include <QApplication>
#include <QChart>
#include <QLineSeries>
#include <QValueAxis>

#include <catch2/catch.hpp>

#include <set>

using namespace strata;

namespace {

const char* const kTensorMetric = "sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active";

/// The joined H100 store, built once per test run (nullopt without the real-data folder).
std::optional<std::filesystem::path> h100Store()
{
    static test::TempDir dir;
    static std::optional<std::filesystem::path> path = [] () -> std::optional<std::filesystem::path> {
        const auto kineto = test::realTrace("h100/kineto_gpt_train_1gpu.json.gz");
        const auto nvml = test::realTrace("h100/nvml_counters_1gpu.csv");
        const auto ncu = test::realTrace("h100/ncu_raw.csv.gz");
        if (kineto.empty() || nvml.empty() || ncu.empty())
            return std::nullopt;
        const auto out = dir / "h100.strata";
        const auto r = test::runStrata({"ingest", kineto.string(), nvml.string(), ncu.string(), "-o", out.string()});
        REQUIRE(r.exitCode == 0);
        return out;
    }();
    return path;
}

model::TrackId counterNamed(const storage::StoreReader& store, const std::string& name)
{
    for (const model::TrackId t : views::CounterChartsPanel::counterTracks(store))
        if (store.resources().track(t).name == name)
            return t;
    FAIL("no counter " << name);
    return model::kNoTrack;
}

QList<QPointF> chartPoints(QChart* chart, int which)
{
    // Series order: envelope (upper, lower), mean, cursor.
    const auto series = chart->series();
    auto* area = qobject_cast<QAreaSeries*>(series.at(0));
    if (which == 0)
        return area->lowerSeries()->points();
    if (which == 1)
        return area->upperSeries()->points();
    return qobject_cast<QLineSeries*>(series.at(which == 2 ? 1 : 2))->points();
}

/// The last point at x: a step (or a gap carried flat) puts the old value first.
const QPointF* pointAt(const QList<QPointF>& points, double x)
{
    const QPointF* found = nullptr;
    for (const QPointF& p : points)
        if (p.x() == x)
            found = &p;
    return found;
}

} // namespace

/// Checks that the chart of `track` draws, for `window`, what the store answers at its width.
void checkChartMatchesStore(storage::StoreReader& store, views::CounterChartsPanel& panel, model::TrackId track,
                            model::TimeRange window, bool wantCells)
{
    panel.setWindow(window);
    panel.waitForData();
    const auto slices = store.query({{track}, window.startNs, window.endNs, panel.plotWidthPx()});
    REQUIRE(slices.size() == 1);
    const storage::TrackSlice& slice = slices[0];
    REQUIRE((slice.counterLevel > 0) == wantCells);
    const views::CounterSeries* series = panel.series(track);
    REQUIRE(series);
    CHECK(series->exact == !wantCells);
    const auto charts = panel.charts();
    const auto counters = panel.counters();
    const auto at = std::find(counters.begin(), counters.end(), track) - counters.begin();
    QChart* chart = charts.at(static_cast<std::size_t>(at));
    CHECK(chartPoints(chart, 0) == series->minPoints);
    CHECK(chartPoints(chart, 1) == series->maxPoints);
    CHECK(chartPoints(chart, 2) == series->meanPoints);
    double lo = 1e300, hi = -1e300;
    auto expect = [&](model::TimeNs t, double mn, double mx, double mean) {
        const double x = static_cast<double>(t);
        const QPointF* a = pointAt(series->minPoints, x);
        const QPointF* b = pointAt(series->maxPoints, x);
        const QPointF* c = pointAt(series->meanPoints, x);
        REQUIRE(a);
        REQUIRE(b);
        REQUIRE(c);
        CHECK(a->y() == mn);
        CHECK(b->y() == mx);
        CHECK(c->y() == mean);
        if (t >= window.startNs || wantCells) {
            lo = std::min(lo, mn);
            hi = std::max(hi, mx);
        }
    };
    if (wantCells) {
        REQUIRE(slice.counterCells.size() > 10);
        const model::TimeNs bucketNs = store.grid().bucketNs(slice.counterLevel);
        for (const storage::CounterCell& c : slice.counterCells)
            expect(c.bucket * bucketNs, c.min, c.max, c.mean);
    } else {
        REQUIRE(slice.samples.size() >= 3);
        for (const model::CounterSample& s : slice.samples)
            expect(s.timeNs, s.value, s.value, s.value);
    }
    CHECK(hi > lo);
    CHECK(series->minValue <= lo);
    CHECK(series->maxValue >= hi);
    auto* y = qobject_cast<QValueAxis*>(chart->axes(Qt::Vertical).at(0));
    CHECK(y->min() <= series->minValue);  // the axis, on round values, holds the data
    CHECK(y->max() >= series->maxValue);
}

TEST_CASE("counter charts draw the store's samples for the window (NVML log)", "[gui][counters][real]")
{
    const auto path = h100Store();
    if (!path)
        return;
    storage::StoreReader store(*path);
    views::CounterChartsPanel panel(store);
    REQUIRE(panel.counters().size() == views::CounterChartsPanel::kDefaultCharts);
    const model::TrackId power = counterNamed(store, "power");
    panel.setCounters({power, counterNamed(store, "mem_used")});
    panel.resize(1200, 400);
    panel.show();
    QApplication::processEvents();
    // NVML samples every 5 ms: too few for a pyramid, so exact steps at any zoom.
    checkChartMatchesStore(store, panel, power, store.span(), false);
    checkChartMatchesStore(store, panel, counterNamed(store, "mem_used"), {-900'000'000, 100'000'000}, false);
}

TEST_CASE("counter charts draw the pyramid's min/max/mean cells of a dense counter", "[gui][counters]")
{
    test::TempDir dir;
    const auto path = dir / "dense.strata";
    {
        storage::StoreBuilder b(path);
        const auto gpu = b.addTrack(model::kNoTrack, model::ResourceKind::Gpu, "GPU 0");
        const auto util = b.addTrack(gpu, model::ResourceKind::Counter, "sm_active", 0, "%");
        for (int i = 0; i < 200'000; ++i)  // 1 us apart: a saw tooth with noise
            b.addCounterSample(util, {i * 1'000LL, static_cast<double>((i % 1000) / 10 + (i * 7919) % 13)});
        b.finish();
    }
    storage::StoreReader store(path);
    views::CounterChartsPanel panel(store);
    REQUIRE(panel.counters().size() == 1);
    panel.resize(900, 300);
    panel.show();
    QApplication::processEvents();
    checkChartMatchesStore(store, panel, panel.counters()[0], store.span(), true);
    checkChartMatchesStore(store, panel, panel.counters()[0], {50'000'000, 90'000'000}, true);
    checkChartMatchesStore(store, panel, panel.counters()[0], {50'000'000, 50'200'000}, false);
}

TEST_CASE("counter charts follow the timeline's window and cursor", "[gui][counters][real]")
{
    const auto path = h100Store();
    if (!path)
        return;
    storage::StoreReader store(*path);
    views::TimelineWidget timeline(store);
    views::CounterChartsPanel panel(store);
    QObject::connect(&timeline, &views::TimelineWidget::windowChanged, &panel, &views::CounterChartsPanel::setWindow);
    QObject::connect(&timeline, &views::TimelineWidget::cursorMoved, &panel, &views::CounterChartsPanel::setCursor);
    timeline.resize(1200, 400);
    panel.resize(1200, 500);

    timeline.setWindow({10'000'000, 60'000'000});
    timeline.zoom(0.5, 600);
    const model::TimeRange w = timeline.window();
    REQUIRE(w.durationNs() < 50'000'000);
    CHECK(panel.window() == w);
    REQUIRE(!panel.charts().empty());
    for (QChart* chart : panel.charts()) {
        auto* x = qobject_cast<QValueAxis*>(chart->axes(Qt::Horizontal).at(0));
        CHECK(x->min() == static_cast<double>(w.startNs));
        CHECK(x->max() == static_cast<double>(w.endNs));
    }
    const model::TimeNs cursor = w.startNs + w.durationNs() / 3;
    emit timeline.cursorMoved(cursor);
    const QList<QPointF> line = chartPoints(panel.charts().at(0), 3);
    REQUIRE(line.size() == 2);
    CHECK(line[0].x() == static_cast<double>(cursor));
    CHECK(line[1].x() == static_cast<double>(cursor));

    // And the picture has the charts in it: many pixels of the envelope/mean blues.
    panel.show();
    QApplication::processEvents();
    panel.waitForData();
    QApplication::processEvents();
    const QImage image = panel.grab().toImage();
    int blue = 0;
    std::set<QRgb> colors;
    for (int yy = 0; yy < image.height(); ++yy)
        for (int xx = 0; xx < image.width(); ++xx) {
            const QColor c = image.pixelColor(xx, yy);
            colors.insert(c.rgb());
            blue += c.blue() > c.red() + 60 && c.blue() > c.green() + 30;
        }
    CHECK(colors.size() > 20);
    CHECK(blue > 500);
}

TEST_CASE("kernels with an Nsight Compute metric get a gradient colour, others grey", "[gui][counters][real]")
{
    const auto path = h100Store();
    if (!path)
        return;
    storage::StoreReader store(*path);
    CHECK(views::KernelMetricColors::load(store, "no such metric") == nullptr);
    const auto metric = views::KernelMetricColors::load(store, kTensorMetric);
    REQUIRE(metric);
    CHECK(metric->kernels() == 4);  // ncu joined 4 of its 11 kernels to the trace
    CHECK(metric->maxValue() > metric->minValue());
    CHECK(views::KernelMetricColors::gradient(0) == QColor::fromHsvF(240.0f / 360.0f, 0.85f, 0.9f).toRgb());
    CHECK(views::KernelMetricColors::gradient(1).red() > 200);

    // Find a joined kernel whose value is not the minimum (so not pure blue either).
    std::optional<model::KernelMetric> joined;
    for (const model::TrackInfo& t : store.resources().tracks())
        for (const model::KernelMetric& m : store.kernelMetrics(t.id))
            if (store.strings().text(m.metric) == kTensorMetric && m.value > metric->minValue())
                joined = m;
    REQUIRE(joined);
    const auto kernels = store.intervals(joined->track, joined->startNs, joined->startNs + 1);
    const auto kernel = std::find_if(kernels.begin(), kernels.end(),
                                     [&](const model::Interval& e) { return e.startNs == joined->startNs; });
    REQUIRE(kernel != kernels.end());

    views::Palette palette(store.strings(), store.allMeta());
    palette.setKernelMetric(metric);
    palette.setMode(views::ColorBy::KernelMetric);
    const QColor expected =
        views::KernelMetricColors::gradient((joined->value - metric->minValue()) / (metric->maxValue() - metric->minValue()));
    CHECK(palette.interval(joined->track, *kernel) == expected);
    CHECK(expected != views::KernelMetricColors::noValue());
    model::Interval other = *kernel;
    other.startNs += 1;
    CHECK(palette.interval(joined->track, other) == views::KernelMetricColors::noValue());

    // The timeline paints it so: the middle of the kernel's box has its gradient colour.
    views::TimelineRenderer renderer(store);
    views::LayoutOptions layout;
    layout.filter = "stream";
    renderer.setLayoutOptions(layout);
    renderer.palette().setKernelMetric(metric);
    renderer.palette().setMode(views::ColorBy::KernelMetric);
    views::TimelineFrame frame;
    const model::TimeNs d = kernel->endNs - kernel->startNs;
    frame.window = {kernel->startNs - d, kernel->endNs + d};
    frame.widthPx = 900;
    frame.heightPx = 600;
    QImage image(frame.widthPx, frame.heightPx, QImage::Format_RGB32);
    {
        QPainter painter(&image);
        renderer.paint(painter, frame);
    }
    const auto row = std::find_if(renderer.layout().rows.begin(), renderer.layout().rows.end(),
                                  [&](const views::TimelineRow& r) { return r.track == joined->track; });
    REQUIRE(row != renderer.layout().rows.end());
    const int x0 = static_cast<int>(frame.xOf(kernel->startNs)) + 1;
    const int x1 = static_cast<int>(frame.xOf(kernel->endNs)) - 1;
    const int top = frame.rowTop(*row) + kernel->depth * renderer.layout().laneHeightPx;
    REQUIRE(top + renderer.layout().laneHeightPx < frame.heightPx);
    int inGradient = 0, inBox = 0;
    for (int y = top; y < top + renderer.layout().laneHeightPx - 1; ++y)
        for (int x = x0; x < x1; ++x, ++inBox)
            inGradient += image.pixel(x, y) == expected.rgb();
    CHECK(inGradient * 2 > inBox);  // the rest is the kernel's name written over it
    // The next kernel on the stream has no ncu row: grey.
    int grey = 0;
    for (int x = x1 + 2; x < frame.widthPx; ++x)
        grey += image.pixel(x, top + 1) == views::KernelMetricColors::noValue().rgb();
    CHECK(grey > 20);

    // The legend shows the metric's range.
    views::CounterChartsPanel panel(store);
    panel.setKernelMetric(metric);
    CHECK(panel.gradientLegend()->metric() == metric.get());
    CHECK(!panel.gradientLegend()->isHidden());
}
