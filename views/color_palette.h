#pragma once
// Stable colours: a name gets the same colour in every session and every store (a hash
// of its text picks a hue), and roles have fixed colours like Paraver's state palette.
// A Palette colours events by name, category or role, and takes the colours a trace
// brings along (a Paraver .pcf's state colours, stored as meta "paraver.state_color.NAME").
// Its const methods may be called from several threads at once (the timeline paints its
// rows on two cores): what it remembers is kept in words written atomically.

#include "model/events.h"
#include "model/role.h"
#include "model/string_table.h"

#include <QColor>

#include <atomic>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>

namespace strata::views {

/// A saturated, readable colour from the name's text.
QColor colorForName(std::string_view name);
QColor colorForRole(model::Role role);

class KernelMetricColors;

/// KernelMetric: kernels by a per-kernel metric (setKernelMetric), everything else grey.
enum class ColorBy { Name, Category, Role, KernelMetric };

class Palette
{
public:
    Palette() = default;
    /// Reads the trace's own colours from the store's meta.
    Palette(const model::StringTable& strings, const std::map<std::string, std::string>& meta);

    ColorBy mode() const { return m_mode; }
    void setMode(ColorBy mode) { m_mode = mode; }
    /// The metric ColorBy::KernelMetric shows (null: every interval grey).
    void setKernelMetric(std::shared_ptr<const KernelMetricColors> metric) { m_kernelMetric = std::move(metric); }
    const KernelMetricColors* kernelMetric() const { return m_kernelMetric.get(); }

    /// An exact interval's colour; remembers name → category for summary cells (the first
    /// category a name is seen with: learnCategory).
    QColor interval(model::StringId name, model::StringId category, model::Role role) const;
    /// Remembers `category` as the category of `name` unless it has one already.
    void learnCategory(model::StringId name, model::StringId category) const;
    /// An exact interval of `track`: by its kernel metric in that mode, else as above.
    QColor interval(model::TrackId track, const model::Interval& e) const;
    /// interval(track, e).rgb(), without a QColor in colour-by-name mode: the timeline
    /// asks it for every box of every frame.
    QRgb intervalRgb(model::TrackId track, const model::Interval& e) const;
    /// A summary cell's colour (cells know the name and role, not the category: the
    /// category of a name seen as an exact interval is used, else the role's colour).
    QColor coverage(model::StringId name, model::Role role) const;
    /// The legend key of an interval: its name, category or role, as text.
    std::string key(model::StringId name, model::StringId category, model::Role role) const;
    QColor keyColor(std::string_view key) const;

private:
    QColor named(model::StringId id) const;
    QRgb namedRgb(model::StringId id) const;
    QColor colorOfText(model::StringId id) const;

    const model::StringTable* m_strings = nullptr;
    ColorBy m_mode = ColorBy::Name;
    std::unordered_map<std::string, QColor> m_traceColors;
    /// Per string id of the store (ids beyond are not remembered):
    /// its colour, 0 until first asked: hashing the text and converting from HSV for every
    /// box of every frame showed in the paint profile. Two threads asking at once compute
    /// and store the same word.
    std::unique_ptr<std::atomic<QRgb>[]> m_namedRgb;
    /// its category as learned from exact intervals, kUnknownCategory until then.
    std::unique_ptr<std::atomic<model::StringId>[]> m_categoryOfName;
    std::size_t m_ids = 0;
    std::shared_ptr<const KernelMetricColors> m_kernelMetric;
};

} // namespace strata::views
