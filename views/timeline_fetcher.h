#pragma once
// TimelineFetcher runs the timeline's store queries on a worker thread so that no
// frame waits on disk. The widget asks for a window; the newest request replaces any
// that has not started (a fast zoom asks for many windows, only the last one matters).
// When the window moved far from the data the widget has, a coarse pass (an eighth of
// the pixels: coarser levels, fewer tiles) is delivered first and the full-resolution
// one refines it. A request for every cell's full detail (the legend, tooltips and
// search marks read it) is answered first with the cells as drawn (the same picture,
// decoded in a fraction of the time), then in full. `ready` is emitted (queued to the
// receiver's thread) after each pass.

#include "views/timeline_renderer.h"

#include <QObject>

#include <condition_variable>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>

namespace strata::views {

struct TimelineRequest
{
    std::vector<model::TrackId> tracks;
    model::TimeRange window;
    int plotWidthPx = 0;
    int depthLimit = 0;  ///< > 0: the lanes drawn; deeper events are not fetched
    /// The detail of the last pass; a Full one comes after a Drawn pass when `drawnFirst`.
    storage::CellDetail cells = storage::CellDetail::Full;
    bool drawnFirst = true;
    friend bool operator==(const TimelineRequest&, const TimelineRequest&) = default;
};

class TimelineFetcher : public QObject
{
    Q_OBJECT
public:
    explicit TimelineFetcher(storage::StoreReader& store, QObject* parent = nullptr);
    ~TimelineFetcher() override;

    /// Asks for a window; returns at once. A request equal to the last one is ignored.
    void request(TimelineRequest request);
    /// The most recent result (never null: empty data before the first one).
    std::shared_ptr<const TimelineData> latest() const;
    /// Blocks until every request so far is answered (tests, headless rendering).
    void waitUntilIdle();

signals:
    void ready();
    /// A query failed (e.g. a corrupted tile); the message is for the user.
    void failed(QString message);

private:
    void run();
    bool needsCoarsePass(const TimelineRequest& r) const;

    storage::StoreReader& m_store;
    mutable std::mutex m_mutex;
    std::condition_variable m_wake;
    std::condition_variable m_idle;
    std::optional<TimelineRequest> m_pending;
    TimelineRequest m_lastRequest;
    bool m_busy = false;
    bool m_stop = false;
    std::shared_ptr<const TimelineData> m_latest;
    std::thread m_thread;
};

} // namespace strata::views
