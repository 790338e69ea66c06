#pragma once
// LatestJobRunner: runs a panel's store queries on one worker thread so the GUI thread
// never waits on them. A job returns a continuation, which runs on the receiver's
// (GUI) thread. The newest job wins: a submitted job replaces one that has not started,
// and the continuation of a job that a newer one superseded is dropped, so a fast
// series of window changes ends in the answer for the last window only.

#include <QObject>

#include <condition_variable>
#include <functional>
#include <mutex>
#include <optional>
#include <thread>

namespace strata::views {

class LatestJobRunner
{
public:
    using Continuation = std::function<void()>;
    /// Runs on the worker thread; what it returns runs on the receiver's thread.
    using Job = std::function<Continuation()>;

    explicit LatestJobRunner(QObject* receiver);
    ~LatestJobRunner();
    LatestJobRunner(const LatestJobRunner&) = delete;
    LatestJobRunner& operator=(const LatestJobRunner&) = delete;

    void submit(Job job);
    /// Blocks until every job so far has run, then delivers the newest continuation
    /// (tests and headless rendering; the GUI never calls this).
    void waitUntilIdle();

private:
    void run();

    QObject* m_receiver;
    std::mutex m_mutex;
    std::condition_variable m_wake;
    std::condition_variable m_idle;
    std::optional<Job> m_pending;
    std::uint64_t m_submitted = 0;  ///< generation of the newest job (GUI thread)
    bool m_busy = false;
    bool m_stop = false;
    std::thread m_thread;
};

} // namespace strata::views
