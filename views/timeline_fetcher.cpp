#include "views/timeline_fetcher.h"

#include <algorithm>

namespace strata::views {

namespace {

/// The width of the quick first pass: 1/8 of the plot (two levels coarser at F = 4).
int coarseWidth(int plotWidthPx)
{
    return std::max(1, plotWidthPx / 8);
}

}  // namespace

TimelineFetcher::TimelineFetcher(storage::StoreReader& store, QObject* parent)
    : QObject(parent)
    , m_store(store)
    , m_latest(std::make_shared<TimelineData>())
    , m_thread([this] { run(); })
{
}

TimelineFetcher::~TimelineFetcher()
{
    {
        std::lock_guard lock(m_mutex);
        m_stop = true;
        m_pending.reset();
    }
    m_wake.notify_all();
    m_thread.join();
}

void TimelineFetcher::request(TimelineRequest request)
{
    {
        std::lock_guard lock(m_mutex);
        if (request == m_lastRequest)
            return;
        m_lastRequest = request;
        m_pending = std::move(request);
    }
    m_wake.notify_one();
}

std::shared_ptr<const TimelineData> TimelineFetcher::latest() const
{
    std::lock_guard lock(m_mutex);
    return m_latest;
}

void TimelineFetcher::waitUntilIdle()
{
    std::unique_lock lock(m_mutex);
    m_idle.wait(lock, [this] { return !m_pending && !m_busy; });
}

bool TimelineFetcher::needsCoarsePass(const TimelineRequest& r) const
{
    // Caller holds m_mutex. Coarse first when less than half the new window is covered
    // by the data we have, or the zoom changed more than 4x, or rows are missing.
    const TimelineData& have = *m_latest;
    if (r.plotWidthPx < 64)
        return false;
    // A coarse pass at the full pass's level reads the same tiles, so it comes no sooner:
    // the overview strip's whole run is at the coarsest level at either width.
    const model::LodGrid& grid = m_store.grid();
    const double ns = static_cast<double>(r.window.durationNs());
    if (grid.levelFor(ns / coarseWidth(r.plotWidthPx)) == grid.levelFor(ns / r.plotWidthPx))
        return false;
    if (have.slices.empty())
        return true;
    const model::TimeNs overlap = std::min(have.window.endNs, r.window.endNs)
                                  - std::max(have.window.startNs, r.window.startNs);
    const double zoom = static_cast<double>(have.window.durationNs()) / std::max<model::TimeNs>(1, r.window.durationNs());
    const bool rowsMissing = std::any_of(r.tracks.begin(), r.tracks.end(), [&](model::TrackId t) { return !have.slice(t); });
    return overlap * 2 < r.window.durationNs() || zoom > 4 || zoom < 0.25 || rowsMissing;
}

void TimelineFetcher::run()
{
    std::unique_lock lock(m_mutex);
    while (true) {
        m_wake.wait(lock, [this] { return m_stop || m_pending; });
        if (m_stop)
            return;
        TimelineRequest r = std::move(*m_pending);
        m_pending.reset();
        m_busy = true;
        const bool coarseFirst = needsCoarsePass(r);
        lock.unlock();
        struct Pass
        {
            int width;
            storage::CellDetail cells;
        };
        std::vector<Pass> passes;
        if (coarseFirst)
            passes.push_back({ coarseWidth(r.plotWidthPx), storage::CellDetail::Drawn });
        if (r.cells == storage::CellDetail::Full && r.drawnFirst)
            passes.push_back({ r.plotWidthPx, storage::CellDetail::Drawn });
        passes.push_back({ r.plotWidthPx, r.cells });
        try {
            for (std::size_t pass = 0; pass < passes.size(); ++pass) {
                auto data = std::make_shared<TimelineData>(fetchTimeline(m_store, r.tracks,
                    r.window, passes[pass].width, r.depthLimit, passes[pass].cells));
                bool superseded = false;
                {
                    std::lock_guard guard(m_mutex);
                    m_latest = std::move(data);
                    superseded = m_pending.has_value();
                }
                emit ready();
                if (superseded)
                    break;  // a newer window wants the worker: skip the refinements
            }
        } catch (const std::exception& e) {
            emit failed(QString::fromUtf8(e.what()));
        }
        lock.lock();
        m_busy = false;
        if (!m_pending)
            m_idle.notify_all();
    }
}

} // namespace strata::views
