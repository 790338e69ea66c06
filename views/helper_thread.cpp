#include "views/helper_thread.h"

#include <atomic>

namespace strata::views {

struct HelperThread::Loop
{
    const std::function<void(std::size_t, int)>* body;
    std::size_t count;
    std::atomic<std::size_t> next = 0;
    std::uint64_t generation;
};

HelperThread::HelperThread()
    : m_thread([this] { serve(); })
{}

HelperThread::~HelperThread()
{
    {
        std::lock_guard lock(m_mutex);
        m_stop = true;
    }
    m_posted.notify_one();
    m_thread.join();
}

void HelperThread::run(
    std::size_t count, const std::function<void(std::size_t item, int worker)>& body)
{
    Loop loop { &body, count, {}, 0 };
    {
        std::lock_guard lock(m_mutex);
        loop.generation = ++m_generation;
        m_loop = &loop;
    }
    m_posted.notify_one();
    for (std::size_t item; (item = loop.next++) < count;)
        body(item, 0);
    // No helper joins from here on; one inside finishes the item it took.
    std::unique_lock lock(m_mutex);
    m_loop = nullptr;
    m_left.wait(lock, [this] { return !m_helperIn; });
}

void HelperThread::serve()
{
    std::uint64_t served = 0;
    std::unique_lock lock(m_mutex);
    for (;;) {
        m_posted.wait(lock, [&] { return m_stop || (m_loop && m_loop->generation != served); });
        if (m_stop)
            return;
        Loop& loop = *m_loop;
        served = loop.generation;
        m_helperIn = true;
        lock.unlock();
        for (std::size_t item; (item = loop.next++) < loop.count;)
            (*loop.body)(item, 1);
        lock.lock();
        m_helperIn = false;
        m_left.notify_one();
    }
}

}  // namespace strata::views
