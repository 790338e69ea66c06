#pragma once
// TimelineRenderer paints one frame of the timeline: a time ruler, a label column with
// the resource tree, and one row per track, from what the store's viewport query
// returned (TimelineData). Fetching and painting are separate so the widget can query
// on a worker thread and paint whatever it has:
//
//   fetchTimeline(store, visible tracks, window, plot width) -> TimelineData   (any thread)
//   renderer.paint(painter, frame, data, highlights)                          (GUI thread)
//
// The data may be for another window than the frame (a pan or zoom not fetched yet):
// everything is placed by absolute time, so it is drawn stretched until finer data
// arrives. Exact intervals are boxes in their colour, one lane per depth, with their
// name when it fits. Summary cells (sub-pixel intervals folded by the store) are drawn
// as columns in the colour of their dominant name, shaded by how much of the column is
// covered, so a zoomed-out trace reads like Paraver's timeline. Counters are a min/max
// envelope. Cost: O(pixels x rows) plus the exact events in the window.

#include "storage/store/helper_thread.h"
#include "storage/store/store_reader.h"
#include "views/color_palette.h"
#include "views/plot_canvas.h"
#include "views/text_masks.h"
#include "views/timeline_layout.h"

#include <QHash>
#include <QImage>
#include <QPainter>
#include <QStaticText>

#include <algorithm>
#include <array>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <thread>
#include <tuple>
#include <unordered_map>
#include <unordered_set>

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
    /// The plot: right of the labels, under the ruler.
    QRect plotRect() const
    {
        return { labelWidthPx, rulerHeightPx, plotWidthPx(), heightPx - rulerHeightPx };
    }
    double pxPerNs() const { return static_cast<double>(plotWidthPx()) / static_cast<double>(window.durationNs()); }
    /// Widget x of a time (unclamped).
    double xOf(model::TimeNs t) const { return labelWidthPx + (t - window.startNs) * pxPerNs(); }
    /// Time at widget x.
    model::TimeNs timeAt(double x) const
    {
        return window.startNs + static_cast<model::TimeNs>((x - labelWidthPx) / pxPerNs());
    }
    /// Widget y of the top of a row.
    int rowTop(const TimelineRow& row) const { return rulerHeightPx + row.topPx - scrollPx; }
};

/// What the store returned for the rows of one window.
struct TimelineData
{
    model::TimeRange window;
    int plotWidthPx = 0;
    std::vector<storage::TrackSlice> slices;
    /// What the slices hold of each summary cell: Drawn data paints the same picture as
    /// Full, but its cells name only their colour (their tooltips read the store).
    storage::CellDetail cells = storage::CellDetail::Full;
    double queryMs = 0;

    const storage::TrackSlice* slice(model::TrackId track) const;

private:
    friend TimelineData fetchTimeline(storage::StoreReader&, std::vector<model::TrackId>,
        model::TimeRange, int, int, storage::CellDetail);
    std::unordered_map<model::TrackId, std::size_t> m_index;
};

/// Queries the store for `tracks` (thread-safe: StoreReader serialises its callers);
/// `depthLimit` > 0 leaves out what lies deeper than that many lanes.
TimelineData fetchTimeline(storage::StoreReader& store, std::vector<model::TrackId> tracks,
    model::TimeRange window, int plotWidthPx, int depthLimit = 0,
    storage::CellDetail cells = storage::CellDetail::Full);

/// The tracks of the rows a frame shows (group headers excluded).
std::vector<model::TrackId> visibleTracks(const TimelineLayout& layout, const TimelineFrame& frame);

/// An interval picked on a track.
struct PickedInterval
{
    model::TrackId track = model::kNoTrack;
    model::Interval interval;
};

/// What is drawn over the events: selection, search matches, range, cursor.
struct TimelineHighlights
{
    std::optional<PickedInterval> selection;
    std::unordered_set<model::StringId> matches;  ///< names found by search
    std::optional<model::TimeRange> range;  ///< a selected time range
    std::optional<model::TimeNs> cursorNs;
    bool flows = true;  ///< draw flows (launch -> kernel) when few enough are in view
};

struct FrameTimings
{
    double queryMs = 0;
    double paintMs = 0;
    int paintThreads = 1;  ///< threads that painted the rows
};

class TimelineRenderer
{
public:
    explicit TimelineRenderer(storage::StoreReader& store);

    const TimelineLayout& layout() const { return m_layout; }
    void setLayoutOptions(const LayoutOptions& options);
    const LayoutOptions& layoutOptions() const { return m_layoutOptions; }
    Palette& palette() { return m_palette; }
    const Palette& palette() const { return m_palette; }

    void paint(QPainter& painter, const TimelineFrame& frame, const TimelineData& data,
               const TimelineHighlights& highlights = {});
    /// Queries the frame's window on this thread, then paints it.
    void paint(QPainter& painter, const TimelineFrame& frame, const TimelineHighlights& highlights = {});
    const FrameTimings& lastTimings() const { return m_timings; }
    /// Threads that paint a busy frame's rows (1 or 2; 2 by default on a machine with
    /// several cores): the picture is the same either way.
    void setPaintThreads(int threads) { m_paintThreads = std::clamp(threads, 1, 2); }

private:
    /// What goes over the plot's pixels once they are drawn: names in wide boxes, search
    /// outlines, counter ranges on their plates.
    struct PlotMarks
    {
        std::vector<std::pair<const model::Interval*, QRect>> boxes;
        std::vector<std::pair<QRectF, QString>> plates;
    };
    /// A summary cell's colour by its dominant name and role (paintCells' memo).
    struct CellColor
    {
        model::StringId name = std::numeric_limits<model::StringId>::max();
        model::Role role = model::Role::Useful;
        QRgb rgb = 0;
    };
    /// paintCells' colours, direct-mapped, one per painting thread and frame: the rows of
    /// a frame share their names (a memo per row of 64 missed ~1000 times a row on the 1 B
    /// run), and the palette may change between frames.
    using CellColors = std::array<CellColor, 1024>;
    /// The sizes of the frame's text that the rows need (QFontMetrics stays on the
    /// painter's thread).
    struct RowText
    {
        bool labels = false;  ///< lanes are high enough for names
        int minLabelBoxPx = 0;  ///< the narrowest box that gets its name
        int heightPx = 0;  ///< a line of text
    };
    /// One row to paint and its data.
    struct RowJob
    {
        const TimelineRow* row;
        const storage::TrackSlice* slice;
    };
    /// The label column as painted last, for as long as its key holds.
    struct LabelColumnKey
    {
        QSize size;
        int scrollPx = 0;
        int rulerHeightPx = 0;
        int scale = 0;
        int dpi = 0;
        std::uint64_t layoutGeneration = 0;
        QString font;
        bool operator==(const LabelColumnKey&) const = default;
    };
    struct LabelColumn
    {
        LabelColumnKey key;
        QImage image;
    };

    void paintRuler(QPainter& p, const TimelineFrame& f) const;
    void paintLabels(QPainter& p, const TimelineFrame& f) const;
    void paintLabelColumn(QPainter& p, const TimelineFrame& f) const;
    /// Group bands and the lines between rows, across the plot.
    void paintRowSeparators(QPainter& p, const TimelineFrame& f) const;
    /// Paints one row (any thread, when the canvas writes pixels: rows are disjoint, and
    /// what they share is read-only or atomic).
    void paintRow(const PlotCanvas::Clipped& canvas, const RowText& text, const TimelineFrame& f,
        const TimelineHighlights& h, const RowJob& job, PlotMarks& marks, CellColors& colors) const;
    void paintIntervals(const PlotCanvas::Clipped& canvas, const RowText& text,
        const TimelineFrame& f, const TimelineRow& row, const storage::TrackSlice& slice,
        const TimelineHighlights& h, PlotMarks& marks, CellColors& colors) const;
    void paintCells(const PlotCanvas::Clipped& canvas, const TimelineFrame& f,
        const TimelineRow& row, const storage::TrackSlice& slice, const TimelineHighlights& h,
        CellColors& colors) const;
    void paintCounter(const PlotCanvas::Clipped& canvas, const RowText& text,
        const TimelineFrame& f, const TimelineRow& row, const storage::TrackSlice& slice,
        PlotMarks& marks) const;
    /// Search outlines, counter ranges, and the names in wide boxes unless `namesInked`.
    void paintMarks(QPainter& p, const QFontMetrics& metrics, const RowText& text,
        const TimelineFrame& f, const TimelineHighlights& h, const PlotMarks& marks,
        bool namesInked) const;
    /// The names in wide boxes, into a pixel canvas's pixels (TextMasks).
    void inkNames(const PlotCanvas& canvas, QPainter& p, const QFontMetrics& metrics,
        const RowText& text, const TimelineFrame& f, const PlotMarks& marks) const;
    /// Calls name(box, text) for each box of `marks` wide enough for its name (`text`'s
    /// sizes): the box the text goes in, within the plot, and the name fitted to it.
    template<typename Name>
    void forEachName(const QFontMetrics& metrics, const RowText& text, const TimelineFrame& f,
        const PlotMarks& marks, Name&& name) const;
    void paintFlows(QPainter& p, const TimelineFrame& f, const TimelineData& data, const TimelineHighlights& h) const;
    void paintOverlays(QPainter& p, const TimelineFrame& f, const TimelineHighlights& h) const;
    /// One line of text, left-aligned and centred vertically in `box`.
    /// `plot`: the clip the painter had (it is left clipped to the box).
    void drawLine(QPainter& p, const QRectF& box, const QString& text, QRect plot) const;
    /// An interval's name fitted into `widthPx` (cut with an ellipsis when too long).
    QString label(model::StringId name, const QFontMetrics& metrics, int widthPx) const;

    storage::StoreReader& m_store;
    LayoutOptions m_layoutOptions;
    TimelineLayout m_layout;
    std::uint64_t m_layoutGeneration = 0;  ///< bumped whenever m_layout changes
    Palette m_palette;
    FrameTimings m_timings;
    mutable std::unordered_map<model::StringId, int> m_labelWidths;  ///< full width of each name
    mutable QImage m_plotPixels;  ///< PlotCanvas's buffer, kept across frames
    int m_paintThreads = std::thread::hardware_concurrency() > 1 ? 2 : 1;
    std::unique_ptr<storage::HelperThread> m_helper;  ///< the second core's, made on first use
    mutable std::optional<LabelColumn> m_labelColumn;
    mutable TextMasks m_textMasks;  ///< inkNames' names as pixels
    mutable QHash<QString, QStaticText> m_laidOut;  ///< drawLine's texts, in m_laidOutFont
    mutable QString m_laidOutFont;
    /// Row labels elided to the label column: (label, width, font) -> text.
    mutable std::map<std::tuple<std::string, int, QString>, QString> m_elidedLabels;
};

/// Renders the timeline of `window` (the whole run when empty) into an image, exactly as
/// the widget would show it at that size.
QImage renderTimelineImage(storage::StoreReader& store, model::TimeRange window, QSize size,
                           const LayoutOptions& layout = {}, ColorBy colorBy = ColorBy::Name);

/// `span` with a 1% margin each side (at least 1 ns).
model::TimeRange withMargin(model::TimeRange span);

/// The run's activity (StoreReader::activitySpan: the tracks with intervals, instants or
/// stack samples) with a 1% margin each side: the first view, "Fit all" and `strata
/// render`'s default window. A counter log beyond it is reached by zooming out.
model::TimeRange fittedWindow(const storage::StoreReader& store);

} // namespace strata::views
