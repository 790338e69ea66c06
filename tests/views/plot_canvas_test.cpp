// PlotCanvas writes dense boxes straight into pixels on raster devices: it must draw
// exactly what QPainter draws for the same boxes, which is what vector devices get. The
// label column is painted once and reused: it must look as if painted afresh.

#include "views/plot_canvas.h"

#include "storage/store/store_builder.h"
#include "storage/store/store_reader.h"
#include "storage/synth/synthetic_trace.h"
#include "views/timeline_renderer.h"

#include <QPicture>

#include "tests/support/temp_dir.h"
#include <catch2/catch.hpp>

#include <random>

using namespace strata;

namespace {

/// Paints `draw` straight onto an image (the pixel path) and through a QPicture replayed
/// onto an image (the vector path).
template<typename Draw>
std::pair<QImage, QImage> bothWays(QSize size, Draw draw, int devicePixelRatio = 1,
    QImage::Format format = QImage::Format_RGB32, QColor background = Qt::white)
{
    QImage direct(size * devicePixelRatio, format);
    direct.setDevicePixelRatio(devicePixelRatio);
    direct.fill(background);
    {
        QPainter p(&direct);
        draw(p);
    }
    QPicture picture;
    {
        QPainter p(&picture);
        draw(p);
    }
    QImage replayed(size * devicePixelRatio, format);
    replayed.setDevicePixelRatio(devicePixelRatio);
    replayed.fill(background);
    {
        QPainter p(&replayed);
        p.drawPicture(0, 0, picture);
    }
    return { direct, replayed };
}

std::filesystem::path syntheticStore(const test::TempDir& dir, std::uint64_t events, int ranks)
{
    const auto path = dir / "s.strata";
    storage::StoreBuilder builder(path);
    storage::SynthOptions synth;
    synth.events = events;
    synth.ranks = ranks;
    storage::generateSyntheticTrace(synth, builder);
    builder.finish();
    return path;
}

long differingPixels(const QImage& a, const QImage& b)
{
    long n = 0;
    for (int y = 0; y < a.height(); ++y)
        for (int x = 0; x < a.width(); ++x)
            n += a.pixel(x, y) != b.pixel(x, y);
    return n;
}

}  // namespace

TEST_CASE("a plot canvas draws the same pixels as QPainter boxes", "[gui][timeline][canvas]")
{
    std::mt19937 random(7);
    std::uniform_int_distribution<int> coordinate(-20, 420);
    std::uniform_int_distribution<int> extent(0, 40);
    std::vector<std::pair<QRect, QRgb>> boxes;
    for (int i = 0; i < 2000; ++i) {
        QRect box(
            coordinate(random), coordinate(random) / 4, extent(random) / 8 + 1, extent(random));
        if (i % 16 == 0)  // flipped, as QRect(QPoint, QPoint) with the corners swapped gives
            box = QRect(box.left(), box.top(), -box.width(), -box.height());
        boxes.emplace_back(box, qRgb(random() % 256, random() % 256, random() % 256));
    }
    // A plain screen or image and a HiDPI one; images the canvas writes into (32-bit
    // opaque words) and one it blits onto; the whole canvas in the painter's clip, and
    // a clip smaller than the canvas (as a widget's partial update gives).
    const QImage::Format formats[] = { QImage::Format_RGB32, QImage::Format_ARGB32_Premultiplied,
        QImage::Format_ARGB32 };
    for (const int ratio : { 1, 2 })
        for (const QImage::Format format : formats)
            for (const bool clipped : { false, true }) {
                QImage buffer;
                bool usedPixels = false;
                const auto [direct, replayed] = bothWays(
                    QSize(400, 120),
                    [&](QPainter& p) {
                        if (clipped)
                            p.setClipRect(QRect(50, 20, 200, 60));
                        views::PlotCanvas canvas(p, QRect(10, 5, 380, 100), buffer);
                        usedPixels = usedPixels || canvas.pixels();
                        // Two rows clear and fill their bands; the lines between them
                        // are no row's, and the canvas whitens them when it is drawn.
                        for (const QRect band : { QRect(10, 5, 380, 40), QRect(10, 75, 380, 30) }) {
                            const views::PlotCanvas::Clipped row = canvas.clipped(band);
                            row.clear();
                            for (const auto& [box, color] : boxes)
                                row.fill(box, color);
                        }
                    },
                    ratio, format, Qt::black);
                INFO("device pixel ratio " << ratio << ", format " << format
                                           << (clipped ? ", clipped" : ""));
                CHECK(usedPixels);  // the image took the pixel path, the picture the QPainter one
                // Both paths paint the canvas white where nothing was filled, on black.
                CHECK(differingPixels(direct, replayed) == 0);
                CHECK(
                    direct.pixel(200 * ratio, 60 * ratio) == qRgb(255, 255, 255));  // no row's line
                CHECK(direct.pixel(5, 50) == qRgb(0, 0, 0));  // outside the canvas: untouched
            }
}

TEST_CASE("a whole-run timeline frame is the same through pixels and through vectors", "[gui][timeline][canvas]")
{
    test::TempDir dir;
    storage::StoreReader store(syntheticStore(dir, 200'000, 2));
    views::TimelineRenderer renderer(store);
    views::TimelineFrame frame;
    frame.widthPx = 1000;
    frame.heightPx = 700;
    frame.rulerHeightPx = 0;  // text is not what this compares
    frame.labelWidthPx = 0;
    frame.window = views::fittedWindow(store);
    const auto [direct, replayed] =
        bothWays(QSize(1000, 700), [&](QPainter& p) { renderer.paint(p, frame); });
    direct.save(QString::fromStdString((dir / "direct.png").string()));
    // Summary columns, sub-pixel intervals and counter envelopes are all in this frame.
    const long differing = differingPixels(direct, replayed);
    INFO(differing << " pixels differ");
    // Only where text in wide boxes replays a little differently (26 when written); a
    // canvas one pixel off moves tens of thousands.
    CHECK(differing < 200);
}

TEST_CASE("the label column reused across frames follows scrolling and folded rows", "[gui][timeline][canvas]")
{
    test::TempDir dir;
    storage::StoreReader store(syntheticStore(dir, 20'000, 4));
    views::TimelineRenderer reused(store);
    views::TimelineFrame frame;
    frame.widthPx = 800;
    frame.heightPx = 500;
    frame.window = views::fittedWindow(store);
    auto paint = [&](views::TimelineRenderer& renderer) {
        QImage image(frame.widthPx, frame.heightPx, QImage::Format_RGB32);
        QPainter p(&image);
        renderer.paint(p, frame);
        return image;
    };
    // What a renderer that never painted before shows, next to the reused one.
    auto afresh = [&] {
        views::TimelineRenderer renderer(store);
        renderer.setLayoutOptions(reused.layoutOptions());
        return paint(renderer);
    };
    auto labelColumn = [&](const QImage& image) {
        return image.copy(0, 0, frame.labelWidthPx, frame.heightPx);
    };

    const QImage first = paint(reused);
    CHECK(labelColumn(paint(reused)) == labelColumn(first));  // the same frame again
    frame.window = { frame.window.startNs, frame.window.startNs + frame.window.durationNs() / 3 };
    CHECK(labelColumn(paint(reused)) == labelColumn(afresh()));  // a zoom leaves the labels
    frame.scrollPx = 60;
    const QImage scrolled = paint(reused);
    CHECK(labelColumn(scrolled) != labelColumn(first));
    CHECK(labelColumn(scrolled) == labelColumn(afresh()));
    views::LayoutOptions folded = reused.layoutOptions();
    folded.collapsed.insert(reused.layout().rows.front().track);  // the first group
    REQUIRE(reused.layout().rows.front().group);
    reused.setLayoutOptions(folded);
    const QImage collapsed = paint(reused);
    CHECK(labelColumn(collapsed) != labelColumn(scrolled));
    CHECK(labelColumn(collapsed) == labelColumn(afresh()));
    frame.heightPx = 300;  // a smaller widget
    CHECK(labelColumn(paint(reused)) == labelColumn(afresh()));
}
