#pragma once
// TimelineRenderer paints one frame of the timeline: a time ruler, a label column and
// one row per track, from what the store's viewport query returns for the window.
//
//   frame (window, size) -> query(visible rows, window, plot width) -> paint
//
// Exact intervals are drawn as boxes in their name's colour, one lane per depth, with
// their name when it fits. Summary cells (sub-pixel intervals folded by the store) are
// drawn as columns in the colour of their dominant name, shaded by how much of the
// bucket is covered, so a zoomed-out trace reads like Paraver's timeline. Counters are
// a min/max envelope with the mean line. Cost: one query plus O(pixels x rows).

#include "storage/store_reader.h"
#include "views/timeline_layout.h"

#include <QImage>
#include <QPainter>

namespace strata::views {

struct TimelineFrame
{
    model::TimeRange window;
    int widthPx = 1920;
    int heightPx = 1080;
    int labelWidthPx = 200;
    int rulerHeightPx = 24;
    int scrollPx = 0;  ///< vertical scroll of the rows

    int plotWidthPx() const { return std::max(1, widthPx - labelWidthPx); }
    double pxPerNs() const { return static_cast<double>(plotWidthPx()) / static_cast<double>(window.durationNs()); }
};

struct FrameTimings
{
    double queryMs = 0;
    double paintMs = 0;
};

class TimelineRenderer
{
public:
    explicit TimelineRenderer(storage::StoreReader& store);

    const TimelineLayout& layout() const { return m_layout; }
    void paint(QPainter& painter, const TimelineFrame& frame);
    const FrameTimings& lastTimings() const { return m_timings; }

private:
    void paintRuler(QPainter& p, const TimelineFrame& f) const;
    void paintIntervals(QPainter& p, const TimelineFrame& f, const TimelineRow& row,
                        const storage::TrackSlice& slice) const;
    void paintCounter(QPainter& p, const TimelineFrame& f, const TimelineRow& row,
                      const storage::TrackSlice& slice) const;

    storage::StoreReader& m_store;
    TimelineLayout m_layout;
    FrameTimings m_timings;
};

/// Renders the timeline of `window` (the whole run when empty) into an image.
QImage renderTimelineImage(storage::StoreReader& store, model::TimeRange window, QSize size);

} // namespace strata::views
