// The timeline renders what the store holds: a known interval's colour at its x, the
// background where nothing lies, and shaded summary columns when zoomed out. Cells read
// as drawn paint the picture their full detail paints, and a tooltip over one reads it
// in full.

#include "storage/store/store_builder.h"
#include "storage/store/store_reader.h"
#include "views/color_palette.h"
#include "views/timeline_picking.h"
#include "views/timeline_renderer.h"

#include "tests/support/random_trace.h"
#include "tests/support/temp_dir.h"
#include <catch2/catch.hpp>

using namespace strata;

namespace {

/// One thread with a 10 ms "gemm" from 10 to 20 ms, and a dense burst of 200 000 tiny
/// kernels of two names from 40 to 60 ms.
std::filesystem::path makeStore(const test::TempDir& dir)
{
    const auto path = dir / "r.strata";
    storage::StoreBuilder b(path);
    const auto proc = b.addTrack(model::kNoTrack, model::ResourceKind::Process, "rank 0");
    const auto thread = b.addTrack(proc, model::ResourceKind::Thread, "main");
    const auto gemm = b.intern("gemm");
    const auto a = b.intern("tiny_a");
    const auto c = b.intern("tiny_b");
    b.addInterval(thread, {10'000'000, 20'000'000, gemm, b.intern("kernel"), model::kAutoDepth});

    for (int i = 0; i < 200000; ++i) {
        const model::TimeNs t = 40'000'000 + i * 100;
        b.addInterval(thread, {t, t + 80, i % 4 ? a : c, b.intern("kernel"), model::kAutoDepth});
    }
    b.addInterval(thread, {0, 100'000'000, b.intern("step"), {}, model::kAutoDepth});
    b.finish();
    return path;
}

/// Random rows of `nodes` nodes, 20 000 intervals a thread: summary cells, exact
/// intervals, instants and counters, with categories (kernels under cpu ops).
std::filesystem::path makeBusyStore(const test::TempDir& dir, int nodes)
{
    const auto path = dir / "busy.strata";
    storage::MemoryTrace trace;
    test::RandomTraceOptions options;
    options.nodes = nodes;
    options.intervalsPerThread = 20000;
    test::makeRandomTrace(options, trace);
    storage::StoreBuilder builder(path);
    trace.replayInto(builder);
    builder.finish();
    return path;
}

} // namespace

TEST_CASE("a rendered timeline shows the known events where the store says", "[gui][timeline]")
{
    test::TempDir dir;
    storage::StoreReader store(makeStore(dir));
    const QImage image = views::renderTimelineImage(store, {0, 100'000'000}, QSize(1200, 300));
    REQUIRE(image.width() == 1200);
    // Kept for a look after the run.
    image.save(QString::fromStdString((std::filesystem::temp_directory_path() / "strata-timeline-test.png").string()));

    views::TimelineRenderer renderer(store);
    const auto& rows = renderer.layout().rows;
    // The process is a group header above its thread's row.
    REQUIRE(rows.size() == 2);
    CHECK(rows[0].group);
    const views::TimelineRow* thread = renderer.layout().rowOf(rows[1].track);
    REQUIRE(thread == &rows[1]);
    const views::TimelineFrame frame;  // defaults: label and ruler sizes
    const int plotLeft = frame.labelWidthPx;
    const double pxPerNs = (1200.0 - plotLeft) / 100'000'000;
    const int laneHeight = renderer.layout().laneHeightPx;
    // Depth 0 is "step" (auto depth put the long interval outside), depth 1 the kernels.
    const int kernelsY = frame.rulerHeightPx + thread->topPx + laneHeight + laneHeight / 2;
    const int gemmX = plotLeft + static_cast<int>(15'000'000 * pxPerNs);
    CHECK(image.pixel(gemmX, kernelsY) == views::colorForName("gemm").rgb());
    // Between gemm and the burst: nothing at depth 1, so the background.
    const int gapX = plotLeft + static_cast<int>(30'000'000 * pxPerNs);
    CHECK(QColor(image.pixel(gapX, kernelsY)) == QColor(Qt::white));
    // The burst: folded into summary columns dominated by tiny_a, shaded by coverage.
    const int burstX = plotLeft + static_cast<int>(50'000'000 * pxPerNs);
    const QColor burst(image.pixel(burstX, kernelsY));
    CHECK(burst != QColor(Qt::white));
    const QColor tinyA = views::colorForName("tiny_a");
    CHECK(std::abs(burst.hue() - tinyA.hue()) <= 3);
}

TEST_CASE("zooming in on the burst shows exact kernels with gaps between them", "[gui][timeline]")
{
    test::TempDir dir;
    storage::StoreReader store(makeStore(dir));
    // 2 us window: 20 kernels of 80 ns with 20 ns gaps, ~10 px per kernel.
    const QImage image = views::renderTimelineImage(store, {50'000'000, 50'002'000}, QSize(400, 100));
    views::TimelineFrame frame;
    const views::TimelineLayout layout = views::TimelineLayout::forStore(store);
    const int y = frame.rulerHeightPx + layout.rows.at(1).topPx + layout.laneHeightPx * 3 / 2;
    int colored = 0, background = 0;
    for (int x = frame.labelWidthPx; x < 400; ++x) {
        const QColor c(image.pixel(x, y));
        colored += c != QColor(Qt::white);
        background += c == QColor(Qt::white);
    }
    CHECK(colored > background);  // 80% busy
    CHECK(background > 20);  // but the gaps are visible
}

TEST_CASE("instants as dense as the pixels leave the intervals under them visible", "[gui][timeline]")
{
    // One 100 ms "step" and a mark every 20 us (5000 marks: several per pixel), as a
    // training run's iteration marks look over a whole run; and a track of marks alone.
    test::TempDir dir;
    const auto path = dir / "i.strata";
    {
        storage::StoreBuilder b(path);
        const auto proc = b.addTrack(model::kNoTrack, model::ResourceKind::Process, "rank 0");
        const auto main = b.addTrack(proc, model::ResourceKind::Thread, "main");
        const auto marks = b.addTrack(proc, model::ResourceKind::Thread, "marks");
        b.addInterval(main, {0, 100'000'000, b.intern("step"), {}, model::kAutoDepth});
        for (int i = 0; i < 5000; ++i) {
            b.addInstant(main, {model::TimeNs(i) * 20'000, b.intern("mark")});
            b.addInstant(marks, {model::TimeNs(i) * 20'000, b.intern("mark")});
        }
        b.finish();
    }
    storage::StoreReader store(path);
    const QImage image = views::renderTimelineImage(store, {0, 100'000'000}, QSize(1200, 300));
    const views::TimelineFrame frame;
    const views::TimelineLayout layout = views::TimelineLayout::forStore(store);
    const views::TimelineRow& mainRow = layout.rows.at(1);
    const views::TimelineRow& marksRow = layout.rows.at(2);
    REQUIRE(mainRow.label == "main");
    REQUIRE(marksRow.label == "marks");
    const QRgb mark = qRgb(0x30, 0x30, 0x30);
    int stepPixels = 0, markTicks = 0, markRowPixels = 0;
    const int firstX = frame.labelWidthPx + 100;  // past the step's name, drawn at its left
    for (int x = firstX; x < 1199; ++x) {
        const int top = frame.rulerHeightPx + mainRow.topPx;
        stepPixels += image.pixel(x, top + layout.laneHeightPx / 2 + 2) == views::colorForName("step").rgb();
        markTicks += image.pixel(x, top) == mark;
        markRowPixels += image.pixel(x, frame.rulerHeightPx + marksRow.topPx + marksRow.heightPx / 2) == mark;
    }
    const int plot = 1199 - firstX;
    CHECK(stepPixels == plot);  // the step shows under the marks, all along
    CHECK(markTicks == plot);  // and the marks show above it
    CHECK(markRowPixels == plot);  // alone on their track, they fill its height
}

TEST_CASE("a counter's range lies on a light plate over its envelope, after names in boxes",
    "[gui][timeline]") {
    // The plate goes over the pixels with the boxes' names; a name drawn just before it
    // must not leave the painter clipped to that name's box.
    test::TempDir dir;
    const auto path = dir / "c.strata";
    {
        storage::StoreBuilder b(path);
        const auto proc = b.addTrack(model::kNoTrack, model::ResourceKind::Process, "rank 0");
        const auto thread = b.addTrack(proc, model::ResourceKind::Thread, "main");
        b.addInterval(thread,
            { 0, 100'000'000, b.intern("a step wide enough for its name"), {}, model::kAutoDepth });
        const auto util = b.addTrack(proc, model::ResourceKind::Counter, "sm_active", 0, "%");
        for (int i = 0; i <= 10'000;
             ++i)  // 0 and 100 in every pixel column: a full-height envelope
            b.addCounterSample(util, { i * 10'000LL, i % 2 ? 100.0 : 0.0 });
        b.finish();
    }
    storage::StoreReader store(path);
    const QImage image = views::renderTimelineImage(store, { 0, 100'000'000 }, QSize(1200, 300));
    views::TimelineRenderer renderer(store);
    const views::TimelineRow* counter = nullptr;
    for (const views::TimelineRow& row : renderer.layout().rows)
        counter = row.counter ? &row : counter;
    REQUIRE(counter);
    const views::TimelineFrame frame;
    const QFontMetrics metrics { QFont() };
    const int top = frame.rulerHeightPx + counter->topPx;
    REQUIRE(counter->heightPx >= metrics.height() + 4);  // tall enough for a plate
    const QColor envelope = views::colorForName("sm_active");
    // Inside the plate, left of its text; and below the plate, the bare envelope.
    const QColor onPlate(image.pixel(frame.labelWidthPx + 3, top + metrics.height() / 2));
    const QColor bare(image.pixel(frame.labelWidthPx + 3, top + counter->heightPx - 4));
    INFO("envelope " << envelope.name().toStdString() << " bare " << bare.name().toStdString()
                     << " plate " << onPlate.name().toStdString());
    CHECK(bare.rgb() == envelope.rgb());
    CHECK(onPlate.lightness() > envelope.lightness() + 60);
}

TEST_CASE(
    "a busy frame painted on two threads is the picture one thread paints", "[gui][timeline]") {
    // Three nodes of random rows: summary cells, exact intervals, instants and counters,
    // with categories (kernels under cpu ops), so that the rows split between threads
    // share names, colours and the categories the summary cells borrow.
    test::TempDir dir;
    storage::StoreReader store(makeBusyStore(dir, 3));
    model::StringId gemm = model::kEmptyString;
    REQUIRE(store.strings().find("gemm", gemm));
    int twoThreadFrames = 0;
    for (const views::ColorBy mode : { views::ColorBy::Name, views::ColorBy::Category }) {
        views::TimelineRenderer one(store), two(store);
        one.setPaintThreads(1);
        two.setPaintThreads(2);
        for (views::TimelineRenderer* r : { &one, &two })
            r->palette().setMode(mode);
        views::TimelineHighlights search;
        search.matches = { gemm };
        // The whole run (cells), a zoom (exact boxes with names), each with a search.
        const model::TimeRange windows[] = { { 0, 50'000'000 }, { 20'000'000, 20'400'000 } };
        for (const model::TimeRange window : windows) {
            for (const views::TimelineHighlights& h : { views::TimelineHighlights {}, search }) {
                views::TimelineFrame frame;
                frame.window = window;
                frame.widthPx = 1400;
                frame.heightPx = 900;
                QImage a(frame.widthPx, frame.heightPx, QImage::Format_RGB32);
                {
                    QPainter p(&a);
                    one.paint(p, frame, h);
                }
                CHECK(one.lastTimings().paintThreads == 1);
                // The helper joins in when it gets the second core in time: a few tries.
                for (int attempt = 0; attempt < 10; ++attempt) {
                    QImage b(a.size(), a.format());
                    {
                        QPainter p(&b);
                        two.paint(p, frame, h);
                    }
                    CAPTURE(static_cast<int>(mode), window.startNs, h.matches.size(), attempt);
                    CHECK(a == b);
                    if (two.lastTimings().paintThreads == 2) {
                        ++twoThreadFrames;
                        break;
                    }
                }
            }
        }
    }
    CHECK(twoThreadFrames >= 2);
}

TEST_CASE("cells read as drawn paint the picture of the cells in full, and pick the same cell",
    "[gui][timeline]") {
    test::TempDir dir;
    storage::StoreReader store(makeBusyStore(dir, 2));
    views::TimelineRenderer renderer(store);
    std::size_t cellsPicked = 0;
    for (const views::ColorBy mode :
        { views::ColorBy::Name, views::ColorBy::Category, views::ColorBy::Role }) {
        renderer.palette().setMode(mode);
        for (const model::TimeRange window :
            { model::TimeRange { 0, 50'000'000 }, model::TimeRange { 20'000'000, 24'000'000 } }) {
            views::TimelineFrame frame;
            frame.window = window;
            frame.widthPx = 1400;
            frame.heightPx = 900;
            const auto tracks = views::visibleTracks(renderer.layout(), frame);
            const views::TimelineData full = views::fetchTimeline(
                store, tracks, window, frame.plotWidthPx(), 0, storage::CellDetail::Full);
            const views::TimelineData drawn = views::fetchTimeline(
                store, tracks, window, frame.plotWidthPx(), 0, storage::CellDetail::Drawn);
            QImage a(frame.widthPx, frame.heightPx, QImage::Format_RGB32);
            QImage b(a.size(), a.format());
            {
                QPainter p(&a);
                renderer.paint(p, frame, full, {});
            }
            {
                QPainter p(&b);
                renderer.paint(p, frame, drawn, {});
            }
            CAPTURE(static_cast<int>(mode), window.startNs);
            CHECK(a == b);
            // The first cell of each row, picked on both: the drawn hit, read in full.
            for (const views::TimelineRow& row : renderer.layout().rows) {
                const storage::TrackSlice* slice = full.slice(row.track);
                if (row.group || row.counter || !slice || slice->cells.empty())
                    continue;
                const storage::IntervalCell& c = slice->cells.front();
                if (c.depth >= row.lanes)
                    continue;
                const model::TimeNs w = store.grid().bucketNs(slice->intervalLevel);
                const double x =
                    std::max<double>(frame.labelWidthPx + 0.5, frame.xOf(c.bucket * w + w / 2));
                const double y = frame.rowTop(row) + c.depth * renderer.layout().laneHeightPx + 2;
                const views::TimelineHit fromFull =
                    views::pickAt(renderer.layout(), frame, full, store.grid(), x, y);
                views::TimelineHit fromDrawn =
                    views::pickAt(renderer.layout(), frame, drawn, store.grid(), x, y);
                if (!fromFull.cell)
                    continue;  // an exact interval lies over it
                REQUIRE(fromDrawn.cell);
                views::readPickedCell(fromDrawn, store, drawn);
                CHECK(fromDrawn.cell->count == fromFull.cell->count);
                CHECK(fromDrawn.cell->count > 0);
                CHECK(fromDrawn.cell->longestName == fromFull.cell->longestName);
                CHECK(fromDrawn.cellEntries == fromFull.cellEntries);
                ++cellsPicked;
            }
        }
    }
    CHECK(cellsPicked >= 6);
}
