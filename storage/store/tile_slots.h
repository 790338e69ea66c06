#pragma once
// TileSlots: the cores that builders tiling side by side share (run_builder.h). A tiling
// worker holds a slot while it tiles a track, so the shards of a run, each with a worker
// per core, tile on those cores together, and the last shard still tiling gets them all.
//
// A mutex and a condition variable rather than std::counting_semaphore: libstdc++ 12's
// can miss a wake-up and leave a waiter asleep beside a free slot (a waiter holds a track
// its writer needs, so the build would hang), and a worker must also wake when its
// pipeline stops (an error, a cancel), not only when a slot frees.

#include <atomic>
#include <condition_variable>
#include <mutex>

namespace strata::storage {

class TileSlots
{
public:
    explicit TileSlots(int slots)
        : m_free(slots)
    {}

    /// Waits for a slot; returns false, without one, once `stop` is set (see wake()).
    bool acquire(const std::atomic<bool>& stop)
    {
        std::unique_lock lock(m_mutex);
        m_freed.wait(lock, [&] { return m_free > 0 || stop.load(); });
        if (stop.load())
            return false;
        --m_free;
        return true;
    }

    void release()
    {
        {
            std::lock_guard lock(m_mutex);
            ++m_free;
        }
        m_freed.notify_one();
    }

    /// Wakes the waiters, so that those whose `stop` is set give up.
    void wake()
    {
        {
            std::lock_guard lock(m_mutex);
        }  // a waiter between its check and its sleep sees it
        m_freed.notify_all();
    }

private:
    std::mutex m_mutex;
    std::condition_variable m_freed;
    int m_free;
};

}  // namespace strata::storage
