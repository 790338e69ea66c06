// RowCanvas writes dense boxes straight into pixels on raster devices: it must draw
// exactly what QPainter draws for the same boxes, which is what vector devices get.

#include "storage/store/store_builder.h"
#include "storage/store/store_reader.h"
#include "storage/synth/synthetic_trace.h"
#include "tests/support/temp_dir.h"
#include "views/row_canvas.h"
#include "views/timeline_renderer.h"

#include <QPicture>
#include <catch2/catch.hpp>

#include <random>

using namespace strata;

namespace {

/// Paints `draw` straight onto an image (the pixel path) and through a QPicture replayed
/// onto an image (the vector path).
template<typename Draw>
std::pair<QImage, QImage> bothWays(QSize size, Draw draw, int devicePixelRatio = 1)
{
    QImage direct(size * devicePixelRatio, QImage::Format_RGB32);
    direct.setDevicePixelRatio(devicePixelRatio);
    direct.fill(Qt::white);
    {
        QPainter p(&direct);
        draw(p);
    }
    QPicture picture;
    {
        QPainter p(&picture);
        draw(p);
    }
    QImage replayed(size * devicePixelRatio, QImage::Format_RGB32);
    replayed.setDevicePixelRatio(devicePixelRatio);
    replayed.fill(Qt::white);
    {
        QPainter p(&replayed);
        p.drawPicture(0, 0, picture);
    }
    return { direct, replayed };
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

TEST_CASE("a row canvas draws the same pixels as QPainter boxes", "[gui][timeline][canvas]")
{
    std::mt19937 random(7);
    std::uniform_int_distribution<int> coordinate(-20, 420);
    std::uniform_int_distribution<int> extent(0, 40);
    std::vector<std::pair<QRect, QRgb>> boxes;
    for (int i = 0; i < 2000; ++i)
        boxes.emplace_back(QRect(coordinate(random), coordinate(random) / 4, extent(random) / 8 + 1, extent(random)),
                           qRgb(random() % 256, random() % 256, random() % 256));
    for (const int ratio : {1, 2}) {  // a plain screen or image, and a HiDPI one
        QImage buffer;
        bool usedPixels = false;
        const auto [direct, replayed] = bothWays(QSize(400, 120), [&](QPainter& p) {
            views::RowCanvas canvas(p, QRect(10, 5, 380, 100), buffer);
            usedPixels = usedPixels || canvas.pixels();
            for (const auto& [box, color] : boxes)
                canvas.fill(box, color);
        }, ratio);
        INFO("device pixel ratio " << ratio);
        CHECK(usedPixels);  // the image took the pixel path, the picture the QPainter one
        // The vector path draws nothing where nothing was filled; the pixel path paints
        // the row white there, like the frame under it.
        CHECK(differingPixels(direct, replayed) == 0);
        CHECK(direct.pixel(5, 50) == qRgb(255, 255, 255));  // outside the row: untouched
    }
}

TEST_CASE("a whole-run timeline frame is the same through pixels and through vectors", "[gui][timeline][canvas]")
{
    test::TempDir dir;
    const auto path = dir / "s.strata";
    {
        storage::StoreBuilder builder(path);
        storage::SynthOptions synth;
        synth.events = 200'000;
        synth.ranks = 2;
        storage::generateSyntheticTrace(synth, builder);
        builder.finish();
    }
    storage::StoreReader store(path);
    views::TimelineRenderer renderer(store);
    views::TimelineFrame frame;
    frame.widthPx = 1000;
    frame.heightPx = 700;
    frame.rulerHeightPx = 0;  // text is not what this compares
    frame.labelWidthPx = 0;
    frame.window = views::fittedWindow(store);
    const auto [direct, replayed] = bothWays(QSize(1000, 700), [&](QPainter& p) { renderer.paint(p, frame); });
    direct.save(QString::fromStdString((dir / "direct.png").string()));
    // Summary columns, sub-pixel intervals and counter envelopes are all in this frame.
    const long differing = differingPixels(direct, replayed);
    INFO(differing << " pixels differ");
    // Only where text in wide boxes replays a little differently (26 when written); a
    // canvas one pixel off moves tens of thousands.
    CHECK(differing < 200);
}
