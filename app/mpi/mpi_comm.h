#pragma once
// The few collectives `strata-mpi` needs, over MPI_COMM_WORLD, with strings and the
// "did anyone fail" vote that keeps every rank on the same path (a rank that returns
// early while others wait in a collective would hang the job). Strings of any size: they
// move in rounds of pieces whose counts and displacements fit MPI's `int`
// (message_pieces.h).

#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

namespace strata::app::mpi {

/// An error every rank throws alike (Comm::agree), which rank 0 alone reports.
class AgreedError : public std::runtime_error
{
public:
    using std::runtime_error::runtime_error;
};

/// Runs `fn`, returning what it threw as an error line ("" when it did not): what a rank
/// brings to the vote (Comm::firstError, Comm::agree).
template<typename Fn>
std::string attempt(Fn fn)
{
    try {
        fn();
        return {};
    } catch (const std::exception& e) {
        return e.what();
    }
}

class Comm
{
public:
    Comm();
    int rank() const { return m_rank; }
    int size() const { return m_size; }
    bool root() const { return m_rank == 0; }

    /// Rank 0's `text` on every rank.
    std::string broadcast(const std::string& text) const;
    /// Every rank's `text`, in rank order, on rank 0 (empty elsewhere).
    std::vector<std::string> gather(const std::string& text) const;
    /// All to all: `out[r]` (one string per rank) goes to rank r; returns what each rank
    /// sent to this one, in rank order.
    std::vector<std::string> exchange(const std::vector<std::string>& out) const;
    /// The first non-empty `error` in rank order, on every rank ("" when none failed).
    std::string firstError(const std::string& error) const;
    /// Throws AgreedError(firstError(error)) on every rank when any rank failed.
    void agree(const std::string& error) const;
    std::int64_t min(std::int64_t v) const;
    std::int64_t max(std::int64_t v) const;
    std::int64_t sum(std::int64_t v) const;
    /// Element-wise sum over the ranks, on every rank (`v` the same length on each).
    std::vector<std::int64_t> sum(std::vector<std::int64_t> v) const;
    /// Every rank's `v`, in rank order, on every rank.
    std::vector<std::int64_t> allgather(std::int64_t v) const;
    void barrier() const;

private:
    int m_rank = 0;
    int m_size = 1;
};

} // namespace strata::app::mpi
