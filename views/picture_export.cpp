#include "views/picture_export.h"

#include <QFile>
#include <QImage>
#include <QSvgGenerator>
#include <QWidget>

#include <stdexcept>

namespace strata::views {

void savePicture(const QString& path, QSize size, const PaintFn& paint, double scale)
{
    const auto fail = [&](const char* what) {
        throw std::runtime_error(path.toStdString() + ": " + what);
    };
    if (path.endsWith(QStringLiteral(".svg"), Qt::CaseInsensitive)) {
        QSvgGenerator svg;
        svg.setFileName(path);
        svg.setSize(size);
        svg.setViewBox(QRect(QPoint(0, 0), size));
        svg.setTitle(QStringLiteral("Strata"));
        QPainter painter;
        if (!painter.begin(&svg))
            fail("cannot write the SVG file");
        paint(painter);
        painter.end();
        if (!QFile::exists(path))
            fail("cannot write the SVG file");
        return;
    }
    if (!path.endsWith(QStringLiteral(".png"), Qt::CaseInsensitive))
        fail("expected a .png or .svg output");
    QImage image(size * scale, QImage::Format_RGB32);
    image.setDevicePixelRatio(scale);
    image.fill(Qt::white);
    {
        QPainter painter(&image);
        paint(painter);
    }
    if (!image.save(path, "PNG"))
        fail("cannot write the PNG file");
}

void saveWidgetPicture(const QString& path, QWidget& widget, double scale)
{
    savePicture(path, widget.size(), [&](QPainter& p) { widget.render(&p); }, scale);
}

} // namespace strata::views
