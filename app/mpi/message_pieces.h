#pragma once
// How `strata-mpi` cuts its messages: MPI counts and displacements are `int`, so one
// message of 2 GiB or more would overflow them. A collective that moves `bytes` per rank
// moves them in rounds instead, each rank sending at most `piece` bytes per round, with
// `piece` small enough that the round's total over all ranks (the largest displacement)
// stays within the limit too. No MPI here, so the arithmetic is tested without 2 GiB.

#include <algorithm>
#include <climits>
#include <cstddef>
#include <cstdlib>
#include <string>

namespace strata::app::mpi {

/// The largest message count MPI takes (INT_MAX), unless the environment variable
/// STRATA_MPI_MAX_MESSAGE (a positive number of bytes) lowers it: a debug hook so that
/// the tests run every round of the cut-up collectives with small inputs.
inline std::size_t maxMessageBytes()
{
    std::size_t limit = INT_MAX;
    if (const char* text = std::getenv("STRATA_MPI_MAX_MESSAGE")) {
        char* end = nullptr;
        const unsigned long long v = std::strtoull(text, &end, 10);
        if (end != text && *end == '\0' && v > 0)
            limit = std::min<std::size_t>(limit, static_cast<std::size_t>(v));
    }
    return limit;
}

class MessagePieces
{
public:
    /// Pieces for collectives among `ranks` ranks whose round must total at most `limit`
    /// bytes: every piece has at least one byte.
    MessagePieces(std::size_t limit, int ranks)
        : m_piece(std::max<std::size_t>(1, limit / static_cast<std::size_t>(std::max(1, ranks))))
    {}
    std::size_t piece() const { return m_piece; }
    /// Rounds needed to move `bytes` (0 for none).
    std::size_t rounds(std::size_t bytes) const { return (bytes + m_piece - 1) / m_piece; }
    /// The first byte of `bytes` sent in round `round`, and how many are sent.
    std::size_t offset(std::size_t bytes, std::size_t round) const
    {
        return std::min(bytes, round * m_piece);
    }
    std::size_t count(std::size_t bytes, std::size_t round) const
    {
        return std::min(m_piece, bytes - offset(bytes, round));
    }

private:
    std::size_t m_piece;
};

}  // namespace strata::app::mpi
