#include "storage/store/helper_thread.h"

#include <atomic>
#include <exception>

namespace strata::storage {

struct HelperThread::Loop
{
    const std::function<void(std::size_t, int)>* body;
    std::size_t count;
    std::atomic<std::size_t> next = 0;
    std::uint64_t generation;
    std::mutex errorMutex;
    std::exception_ptr error;  ///< the first call that threw

    /// Runs items until none is left; a throwing call ends the loop for both workers.
    void work(int worker)
    {
        try {
            for (std::size_t item; (item = next++) < count;)
                (*body)(item, worker);
        } catch (...) {
            next = count;
            std::lock_guard lock(errorMutex);
            if (!error)
                error = std::current_exception();
        }
    }
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
    Loop loop;
    loop.body = &body;
    loop.count = count;
    {
        std::lock_guard lock(m_mutex);
        loop.generation = ++m_generation;
        m_loop = &loop;
    }
    m_posted.notify_one();
    loop.work(0);
    {
        // No helper joins from here on; one inside finishes the item it took.
        std::unique_lock lock(m_mutex);
        m_loop = nullptr;
        m_left.wait(lock, [this] { return !m_helperIn; });
    }
    if (loop.error)
        std::rethrow_exception(loop.error);
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
        loop.work(1);
        lock.lock();
        m_helperIn = false;
        m_left.notify_one();
    }
}

}  // namespace strata::storage
