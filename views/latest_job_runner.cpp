#include "views/latest_job_runner.h"

#include <QCoreApplication>
#include <QEvent>


namespace strata::views {

LatestJobRunner::LatestJobRunner(QObject* receiver)
    : m_receiver(receiver)
    , m_thread([this] { run(); })
{
}

LatestJobRunner::~LatestJobRunner()
{
    {
        std::lock_guard lock(m_mutex);
        m_stop = true;
        m_pending.reset();
    }
    m_wake.notify_all();
    m_thread.join();
}

void LatestJobRunner::submit(Job job)
{
    const std::uint64_t generation = ++m_submitted;
    // The job's continuation runs only if no newer job was submitted meanwhile.
    Job wrapped = [this, generation, job = std::move(job)]() -> Continuation {
        Continuation done;
        try {
            done = job();
        } catch (...) {
            // A job reports its own errors through its continuation; anything else is
            // dropped rather than ending the thread (and the application).
        }
        return [this, generation, done = std::move(done)] {
            if (generation == m_submitted && done)
                done();
        };
    };
    {
        std::lock_guard lock(m_mutex);
        m_pending = std::move(wrapped);
    }
    m_wake.notify_one();
}

void LatestJobRunner::waitUntilIdle()
{
    {
        std::unique_lock lock(m_mutex);
        m_idle.wait(lock, [this] { return !m_pending && !m_busy; });
    }
    QCoreApplication::sendPostedEvents(m_receiver, QEvent::MetaCall);
}

void LatestJobRunner::run()
{
    for (;;) {
        Job job;
        {
            std::unique_lock lock(m_mutex);
            m_wake.wait(lock, [this] { return m_stop || m_pending; });
            if (m_stop)
                return;
            job = std::move(*m_pending);
            m_pending.reset();
            m_busy = true;
        }
        Continuation done;
        try {
            done = job();
        } catch (...) {
            // A job reports its own errors through its continuation; anything else is
            // dropped rather than ending the thread (and the application).
        }
        // Posted before m_busy clears, so waitUntilIdle() finds it in the event queue.
        QMetaObject::invokeMethod(m_receiver, std::move(done), Qt::QueuedConnection);
        {
            std::lock_guard lock(m_mutex);
            m_busy = false;
        }
        m_idle.notify_all();
    }
}

} // namespace strata::views
