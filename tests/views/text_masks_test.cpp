// The timeline's box names are drawn once per text (TextMasks) and multiplied onto the
// canvas's pixels: over boxes of any colour that must look as QPainter's own text does.

#include "views/text_masks.h"

#include "views/plot_canvas.h"

#include <QFontMetricsF>
#include <QPainter>
#include <QStaticText>

#include <catch2/catch.hpp>

#include <random>

using namespace strata;

namespace {

struct Name
{
    QRect box;
    QString text;
    QRgb color;
};

/// Boxes of random colours in lanes 13 px high, each with a name that may not fit.
std::vector<Name> someNames()
{
    const QString texts[] = { QStringLiteral("aten::convolution_backward"),
        QStringLiteral("ncclKernel_AllReduce_RING_LL_Sum_float"), QStringLiteral("ProfilerStep#12"),
        QStringLiteral("cudaLaunchKernel"), QStringLiteral("MPI_Waitall"),
        QStringLiteral("void at::native::vectorized_elementwise_kernel<4>"),
        QStringLiteral("\u00b5s \u2026 \u00e9t\u00e9"), QStringLiteral("W") };
    std::mt19937 random(5);
    std::vector<Name> names;
    for (int lane = 0; lane < 16; ++lane) {
        for (int x = 3; x < 560;) {
            const int width = 20 + static_cast<int>(random() % 220);
            names.push_back(
                { QRect(x, 2 + lane * 14, width, 13), texts[random() % std::size(texts)],
                    qRgb(random() % 256, random() % 256, random() % 256) });
            x += width + 1 + static_cast<int>(random() % 4);
        }
    }
    return names;
}

}  // namespace

TEST_CASE(
    "names multiplied from text masks look as QPainter draws them", "[gui][timeline][canvas]") {
    const std::vector<Name> names = someNames();
    for (const int scale : { 1, 2 }) {
        INFO("scale " << scale);
        const QSize size(600, 230);
        QImage reference(size * scale, QImage::Format_RGB32);
        reference.setDevicePixelRatio(scale);
        reference.fill(Qt::white);
        QImage inked = reference;
        const QFont font = [&] {
            QPainter p(&reference);
            return p.font();
        }();
        const double textTop = (13 - QFontMetricsF(font, &reference).height()) / 2;
        {
            // As TimelineRenderer::drawLine: the text clipped to its box.
            QPainter p(&reference);
            for (const Name& n : names) {
                p.setClipping(false);
                p.fillRect(n.box, QColor::fromRgb(n.color));
                p.setClipRect(n.box);
                p.setPen(Qt::black);
                QStaticText laid(n.text);
                laid.setTextFormat(Qt::PlainText);
                p.drawStaticText(QPointF(n.box.left(), n.box.top() + textTop), laid);
            }
        }
        views::TextMasks masks;
        {
            QPainter p(&inked);
            QImage buffer;
            views::PlotCanvas canvas(p, QRect(QPoint(0, 0), size), buffer);
            REQUIRE(canvas.scale() == scale);
            masks.begin(
                { font, font.key(), 13, textTop, scale, inked.logicalDpiX(), inked.logicalDpiY() });
            const views::PlotCanvas::Clipped all = canvas.clipped(QRect(QPoint(0, 0), size));
            all.clear();
            for (const Name& n : names)
                all.fill(n.box, n.color);
            for (const Name& n : names)
                all.multiply(n.box.topLeft(), masks.mask(n.text), n.box);
        }
        long ink = 0, differing = 0;
        int largest = 0;
        for (int y = 0; y < reference.height(); ++y) {
            for (int x = 0; x < reference.width(); ++x) {
                const QRgb a = reference.pixel(x, y), b = inked.pixel(x, y);
                ink += qGray(a) < 64;
                if (a == b)
                    continue;
                ++differing;
                largest = std::max({ largest, std::abs(qRed(a) - qRed(b)),
                    std::abs(qGreen(a) - qGreen(b)), std::abs(qBlue(a) - qBlue(b)) });
            }
        }
        INFO(differing << " pixels differ, by " << largest << " at most; " << ink << " dark");
        CHECK(ink > 3000 * scale * scale);  // the names are there
        CHECK(largest <= 2);  // rounding, not a shift or a missing name
    }
}
