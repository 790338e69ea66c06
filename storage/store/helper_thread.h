#pragma once
// HelperThread: one thread, kept for its owner's lifetime, that joins in on a loop of
// independent items (the rows of a timeline frame, the halves of a viewport query) while
// the calling thread works on the same loop, and that never holds the caller up: items are
// taken one at a time from a shared counter, so when the helper is late (the other core
// busy) the caller takes them all, and the caller waits only for an item the helper has
// already taken. Kept rather than started per loop: a thread started for each query cost
// its creation, a wake-up and a cold stack every time.

#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <mutex>
#include <thread>

namespace strata::storage {

class HelperThread
{
public:
    HelperThread();
    ~HelperThread();
    HelperThread(const HelperThread&) = delete;
    HelperThread& operator=(const HelperThread&) = delete;

    /// Calls body(item, worker) for every item in [0, count), each once, on this thread
    /// (worker 0) and on the helper (worker 1) when it is free; returns when all are done.
    /// Calls for different items may run at once. When a call throws, the items not yet
    /// taken are not run and the first exception is rethrown here once the helper is out.
    void run(std::size_t count, const std::function<void(std::size_t item, int worker)>& body);

private:
    struct Loop;
    void serve();

    std::mutex m_mutex;
    std::condition_variable m_posted;  ///< a loop is posted, or the helper must stop
    std::condition_variable m_left;  ///< the helper left the loop it was in
    Loop* m_loop = nullptr;  ///< the loop running now, while it takes helpers
    std::uint64_t m_generation = 0;  ///< loops posted so far
    bool m_helperIn = false;
    bool m_stop = false;
    std::thread m_thread;  ///< last: starts once the members above exist
};

}  // namespace strata::storage
