#pragma once
// The legend: the colours in view and what they mean (names, categories or roles, as
// the timeline colours them), largest time first, with each key's share of the time
// the visible intervals cover. Rebuilt from the timeline's data when it changes.

#include "views/color_palette.h"
#include "views/timeline_renderer.h"

#include <QListWidget>

namespace strata::views {

struct LegendEntry
{
    std::string key;
    QColor color;
    model::TimeNs timeNs = 0;
};

/// The keys of the data in `window`, by decreasing covered time (at most `limit`).
std::vector<LegendEntry> legendEntries(const model::StringTable& strings, const Palette& palette,
                                       const TimelineData& data, std::size_t limit = 40);

class LegendPanel : public QListWidget
{
    Q_OBJECT
public:
    explicit LegendPanel(QWidget* parent = nullptr);
    void setEntries(const std::vector<LegendEntry>& entries);
};

} // namespace strata::views
