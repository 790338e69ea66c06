#pragma once
// The arithmetic of strata-mpi's ingest progress, apart from MPI so that it is tested
// alone (tests/cli/mpi_progress_test.cpp): every rank sums the bytes read of its files,
// the non-root ranks send their running sum to rank 0 now and then (SendThrottle), and
// rank 0 sums the latest sum of every rank (RunningTotal again) for its bar.

#include <chrono>
#include <cstdint>
#include <vector>

namespace strata::app::mpi {

/// The sum of the latest value reported for each key (a file's bytes read, a rank's
/// bytes read): a value replaces the key's previous one.
class RunningTotal
{
public:
    explicit RunningTotal(std::size_t keys)
        : m_values(keys, 0)
    {}
    /// Sets `key`'s value; returns the new sum.
    std::uint64_t set(std::size_t key, std::uint64_t value)
    {
        m_sum = m_sum - m_values.at(key) + value;
        m_values[key] = value;
        return m_sum;
    }
    std::uint64_t sum() const { return m_sum; }

private:
    std::vector<std::uint64_t> m_values;
    std::uint64_t m_sum = 0;
};

/// When a rank sends its running sum: the first time, then at most once per `interval`,
/// and once more when it reaches its total (so that the bar ends full).
class SendThrottle
{
public:
    using Clock = std::chrono::steady_clock;
    explicit SendThrottle(Clock::duration interval)
        : m_interval(interval)
    {}
    bool due(std::uint64_t done, std::uint64_t total, Clock::time_point now)
    {
        const bool complete = done >= total;
        if (m_sent && (complete ? m_sentComplete : now - m_last < m_interval))
            return false;
        m_sent = true;
        m_sentComplete = complete;
        m_last = now;
        return true;
    }

private:
    Clock::duration m_interval;
    Clock::time_point m_last;
    bool m_sent = false;
    bool m_sentComplete = false;
};

}  // namespace strata::app::mpi
