#pragma once
// Writes a picture painted by any view to PNG (raster, at `scale` x the logical size
// for sharp 2x screenshots) or SVG (vector: boxes as rectangles, text as text), chosen
// by the file's extension. Shared by `strata render` and File > Export image.

#include <QPainter>
#include <QSize>
#include <QString>

#include <functional>

class QWidget;

namespace strata::views {

using PaintFn = std::function<void(QPainter&)>;

/// Paints `paint` at logical `size` into `path` (.png or .svg). Throws std::runtime_error
/// naming the file when it cannot be written or the extension is neither.
void savePicture(const QString& path, QSize size, const PaintFn& paint, double scale = 1.0);

/// A widget as shown, children included (the whole window with its docks).
void saveWidgetPicture(const QString& path, QWidget& widget, double scale = 1.0);

} // namespace strata::views
