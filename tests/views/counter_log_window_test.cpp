// A trace with a counter log recorded around it (issue 14, item 5): the first view and
// "Fit all" frame the run's activity, not the log, whose rows stay a zoom-out away; and
// in a window without a counter sample the counter chart and the timeline's counter row
// show the same held value (and both nothing past the track's last sample).

#include "model/value_units.h"
#include "storage/store/store_builder.h"
#include "storage/store/store_reader.h"
#include "views/color_palette.h"
#include "views/counter_charts_panel.h"
#include "views/overview_strip.h"
#include "views/picture_export.h"
#include "views/timeline_renderer.h"
#include "views/timeline_widget.h"

#include <QApplication>
#include <QFile>
#include <QLabel>
#include <QMouseEvent>
#include <QSignalSpy>
#include <QXmlStreamReader>

#include "tests/support/temp_dir.h"
#include <catch2/catch.hpp>

using namespace strata;

namespace {

constexpr model::TimeNs kMs = 1'000'000;
constexpr double kHeldPercent = 30;

/// A thread busy from 1000 ms to 1100 ms, and a GPU utilisation log sampled every
/// 100 ms from 0 to 10 s: 30 % from 1000 ms to 1200 ms, else 5 %.
std::filesystem::path makeStore(const test::TempDir& dir)
{
    const auto path = dir / "log.strata";
    storage::StoreBuilder b(path);
    const auto thread =
        b.addTrack(b.addTrack(model::kNoTrack, model::ResourceKind::Process, "rank 0"),
            model::ResourceKind::Thread, "main");
    for (int i = 0; i < 100; ++i)
        b.addInterval(thread,
            { 1000 * kMs + i * kMs, 1000 * kMs + i * kMs + kMs * 6 / 10, b.intern("step"), {}, 0 });
    const auto gpu = b.addTrack(model::kNoTrack, model::ResourceKind::Gpu, "GPU 0");
    const auto util = b.addTrack(gpu, model::ResourceKind::Counter, "gpu_util", 0, "%");
    for (int i = 0; i <= 100; ++i) {
        const model::TimeNs t = i * 100 * kMs;
        b.addCounterSample(util, { t, t >= 1000 * kMs && t < 1200 * kMs ? kHeldPercent : 5.0 });
    }
    b.finish();
    return path;
}

model::TrackId threadTrack(const storage::StoreReader& store)
{
    for (const model::TrackInfo& t : store.resources().tracks())
        if (t.name == "main")
            return t.id;
    FAIL("no thread track");
    return model::kNoTrack;
}

model::TrackId counterTrack(const storage::StoreReader& store)
{
    const auto counters = views::CounterChartsPanel::counterTracks(store);
    REQUIRE(counters.size() == 1);
    return counters[0];
}

const views::TimelineRow& rowOf(const views::TimelineRenderer& renderer, model::TrackId track)
{
    const auto& rows = renderer.layout().rows;
    const auto row = std::find_if(
        rows.begin(), rows.end(), [&](const views::TimelineRow& r) { return r.track == track; });
    REQUIRE(row != rows.end());
    return *row;
}

/// The texts of an SVG file, one per line.
std::string svgTexts(const QString& path)
{
    QFile f(path);
    REQUIRE(f.open(QIODevice::ReadOnly));
    QXmlStreamReader xml(&f);
    std::string texts = "\n";
    while (!xml.atEnd()) {
        if (xml.readNext() == QXmlStreamReader::StartElement && xml.name() == QLatin1String("text"))
            texts += xml.readElementText().toStdString() + "\n";
    }
    return texts;
}

}  // namespace

TEST_CASE("the first view and Fit all frame the activity, not the counter log around it (issue 14)",
    "[gui][navigation][counters]") {
    test::TempDir dir;
    storage::StoreReader store(makeStore(dir));
    REQUIRE(store.span() == model::TimeRange { 0, 10'000 * kMs });
    REQUIRE(store.activitySpan() == model::TimeRange { 1000 * kMs, 1099 * kMs + kMs * 6 / 10 });

    views::TimelineWidget w(store);
    w.resize(1200, 300);
    const model::TimeRange fitted = w.window();
    CHECK(fitted.startNs < store.activitySpan().startNs);
    CHECK(fitted.endNs > store.activitySpan().endNs);
    CHECK(fitted.durationNs()
        < store.activitySpan().durationNs() * 11 / 10);  // a margin, not the log
    CHECK(views::fittedWindow(store) == fitted);  // what `strata render` shows by default

    w.setWindow({ 5000 * kMs, 6000 * kMs });
    w.fitAll();
    CHECK(w.window() == fitted);

    // The log's rows stay reachable: zooming out goes as far as the whole stored span.
    for (int i = 0; i < 20; ++i)
        w.zoom(2.0, 600);
    CHECK(w.window().startNs <= store.span().startNs);
    CHECK(w.window().endNs >= store.span().endNs);

    // So does the overview strip: it maps the whole store, and a click on the log after
    // the run takes the timeline there.
    views::OverviewStrip strip(store);
    strip.resize(1000, 40);
    QSignalSpy requested(&strip, &views::OverviewStrip::windowRequested);
    QMouseEvent click(QEvent::MouseButtonPress, QPointF(900, 20), QPointF(900, 20), Qt::LeftButton,
        Qt::LeftButton, Qt::NoModifier);
    QApplication::sendEvent(&strip, &click);
    REQUIRE(requested.size() == 1);
    const auto centre = requested[0][0].value<model::TimeRange>();
    CHECK((centre.startNs + centre.endNs) / 2 > 8000 * kMs);

    // The picture of the first view: the busy thread fills the plot's middle.
    const QSize size(1000, 200);
    const QImage image = views::renderTimelineImage(store, {}, size);
    image.save(QString::fromStdString(
        (std::filesystem::temp_directory_path() / "strata-fit-activity.png").string()));
    views::TimelineRenderer renderer(store);
    views::TimelineFrame frame;
    frame.window = fitted;
    frame.widthPx = size.width();
    frame.heightPx = size.height();
    const views::TimelineRow& thread = rowOf(renderer, threadTrack(store));
    // Its 0.6 ms steps every 1 ms cover about 60 % of each third of the plot (today's
    // first view, 0 .. 10 s, put them all in one hundredth of it).
    const int plotWidth = frame.plotWidthPx();
    for (int third = 0; third < 3; ++third) {
        int busy = 0;
        for (int x = third * plotWidth / 3; x < (third + 1) * plotWidth / 3; ++x)
            busy += image.pixel(frame.labelWidthPx + x, frame.rowTop(thread) + 4)
                != qRgb(255, 255, 255);
        CHECK(busy * 3 > plotWidth / 3);
    }
}

TEST_CASE("between two counter samples the chart and the timeline row show the same held value "
          "(issue 14)",
    "[gui][counters]") {
    test::TempDir dir;
    storage::StoreReader store(makeStore(dir));
    const model::TrackId util = counterTrack(store);
    views::TimelineRenderer renderer(store);
    const views::TimelineRow& row = rowOf(renderer, util);
    const QSize size(1000, 300);
    const int plotWidthPx = size.width() - views::TimelineFrame().labelWidthPx;
    views::CounterChartsPanel panel(store);
    panel.setCounters({ util });
    panel.resize(size.width(), 260);
    panel.show();
    QApplication::processEvents();

    auto chartTitle = [&]() {
        for (const QLabel* label : panel.findChildren<QLabel*>())
            if (label->text().startsWith(QStringLiteral("gpu_util")))
                return label->text().toStdString();
        FAIL("no chart title");
        return std::string();
    };
    // Paints the row and the chart of `window` (PNGs in the temp folder, to look at) and
    // returns how many of the row's pixel columns show the envelope, and the row's texts
    // as the SVG has them.
    auto picture = [&](model::TimeRange window, const std::string& name) {
        panel.setWindow(window);
        panel.waitForData();
        QApplication::processEvents();
        const auto tmp = std::filesystem::temp_directory_path();
        panel.grab().save(
            QString::fromStdString((tmp / ("strata-held-chart-" + name + ".png")).string()));
        views::TimelineFrame frame;
        frame.window = window;
        frame.widthPx = size.width();
        frame.heightPx = size.height();
        QImage image(size, QImage::Format_RGB32);
        {
            QPainter p(&image);
            renderer.paint(p, frame);
        }
        image.save(QString::fromStdString((tmp / ("strata-held-row-" + name + ".png")).string()));
        const QString svg =
            QString::fromStdString((tmp / ("strata-held-row-" + name + ".svg")).string());
        views::savePicture(svg, size, [&](QPainter& p) { renderer.paint(p, frame); });
        int columns = 0;
        const QRgb color = views::colorForName("gpu_util").rgb();
        for (int x = frame.labelWidthPx; x < size.width(); ++x) {
            bool drawn = false;
            for (int y = frame.rowTop(row); y < frame.rowTop(row) + row.heightPx; ++y)
                drawn = drawn || image.pixel(x, y) == color;
            columns += drawn;
        }
        return std::pair(columns, svgTexts(svg));
    };

    SECTION("a window strictly between the samples at 1000 ms and 1100 ms holds 30 %") {
        const auto [columns, texts] = picture({ 1020 * kMs, 1080 * kMs }, "between");
        const views::CounterSeries* series = panel.series(util);
        REQUIRE(series);
        CHECK_FALSE(series->empty());
        CHECK(series->minValue == kHeldPercent);
        CHECK(series->maxValue == kHeldPercent);
        CHECK(chartTitle() == "gpu_util (%) [30 … 30]");
        const std::string held = model::formatQuantity(kHeldPercent, "%");
        CHECK_THAT(texts, Catch::Contains("\n" + held + " .. " + held + "\n"));
        CHECK(columns == plotWidthPx);  // a line across the whole plot
    }
    SECTION("past the track's last sample both show nothing") {
        const auto [columns, texts] = picture({ 10'100 * kMs, 10'200 * kMs }, "after");
        const views::CounterSeries* series = panel.series(util);
        REQUIRE(series);
        CHECK(series->empty());
        CHECK(chartTitle() == "gpu_util (%)");
        CHECK_THAT(texts, !Catch::Contains(" .. "));
        CHECK(columns == 0);
    }
    SECTION("a window with samples: both show the same range") {
        const auto [columns, texts] = picture({ 900 * kMs, 1300 * kMs }, "samples");
        const views::CounterSeries* series = panel.series(util);
        REQUIRE(series);
        CHECK(series->minValue == 5);
        CHECK(series->maxValue == kHeldPercent);
        CHECK(chartTitle() == "gpu_util (%) [5 … 30]");
        CHECK_THAT(texts,
            Catch::Contains("\n" + model::formatQuantity(5, "%") + " .. "
                + model::formatQuantity(30, "%") + "\n"));
        CHECK(columns == plotWidthPx);
    }
}
