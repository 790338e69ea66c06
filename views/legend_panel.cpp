#include "views/legend_panel.h"

#include <QPainter>
#include <QPixmap>

#include <algorithm>
#include <unordered_map>

namespace strata::views {

std::vector<LegendEntry> legendEntries(const model::StringTable& strings, const Palette& palette,
                                       const TimelineData& data, std::size_t limit)
{
    std::unordered_map<std::string, LegendEntry> byKey;
    auto add = [&](std::string key, QColor color, model::TimeNs ns) {
        auto [it, inserted] = byKey.try_emplace(key);
        if (inserted) {
            it->second.key = std::move(key);
            it->second.color = color;
        }
        it->second.timeNs += ns;
    };
    const model::TimeRange w = data.window;
    for (const storage::TrackSlice& s : data.slices) {
        for (const model::Interval& e : s.intervals) {
            const model::TimeNs visible = std::min(e.endNs, w.endNs) - std::max(e.startNs, w.startNs);
            if (visible > 0)
                add(palette.key(e.name, e.category, e.role), palette.interval(e.name, e.category, e.role), visible);
        }
        for (const storage::Coverage& c : s.entries) {
            if (c.name == storage::kOtherNames)
                add("other (" + std::string(model::roleName(c.role)) + ")", colorForRole(c.role), c.coverageNs);
            else if (palette.mode() == ColorBy::Name)
                add(std::string(strings.text(c.name)), palette.coverage(c.name, c.role), c.coverageNs);
            else if (palette.mode() == ColorBy::Role)
                add(std::string(model::roleName(c.role)), colorForRole(c.role), c.coverageNs);
        }
    }
    std::vector<LegendEntry> entries;
    entries.reserve(byKey.size());
    for (auto& [key, entry] : byKey)
        entries.push_back(std::move(entry));
    std::sort(entries.begin(), entries.end(), [](const LegendEntry& a, const LegendEntry& b) {
        return a.timeNs != b.timeNs ? a.timeNs > b.timeNs : a.key < b.key;
    });
    if (entries.size() > limit)
        entries.resize(limit);
    return entries;
}

LegendPanel::LegendPanel(QWidget* parent)
    : QListWidget(parent)
{
    setIconSize(QSize(14, 14));
    setSelectionMode(QAbstractItemView::NoSelection);
}

void LegendPanel::setEntries(const std::vector<LegendEntry>& entries)
{
    clear();
    model::TimeNs total = 0;
    for (const LegendEntry& e : entries)
        total += e.timeNs;
    for (const LegendEntry& e : entries) {
        QPixmap swatch(14, 14);
        swatch.fill(e.color);
        const double share = total > 0 ? 100.0 * static_cast<double>(e.timeNs) / static_cast<double>(total) : 0;
        auto* item = new QListWidgetItem(QIcon(swatch), QStringLiteral("%1  —  %2 (%3%)")
                                                            .arg(QString::fromStdString(e.key))
                                                            .arg(QString::fromStdString(model::formatDuration(e.timeNs)))
                                                            .arg(share, 0, 'f', 1));
        item->setToolTip(QString::fromStdString(e.key));
        addItem(item);
    }
}

} // namespace strata::views
