#include "app/mpi/mpi_comm.h"

#include "app/mpi/message_pieces.h"

#include <mpi.h>

#include <algorithm>

namespace strata::app::mpi {

namespace {

/// The tag of exchange()'s messages (mpi_progress.cpp's progress messages have their own).
constexpr int kExchangeTag = 0x5717;

std::int64_t reduce(std::int64_t v, MPI_Op op)
{
    std::int64_t out = 0;
    MPI_Allreduce(&v, &out, 1, MPI_INT64_T, op, MPI_COMM_WORLD);
    return out;
}

} // namespace

Comm::Comm()
{
    MPI_Comm_rank(MPI_COMM_WORLD, &m_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &m_size);
}

std::string Comm::broadcast(const std::string& text) const
{
    std::int64_t size = static_cast<std::int64_t>(text.size());
    MPI_Bcast(&size, 1, MPI_INT64_T, 0, MPI_COMM_WORLD);
    std::string out = root() ? text : std::string(static_cast<std::size_t>(size), '\0');
    const MessagePieces pieces(maxMessageBytes(), 1);
    for (std::size_t r = 0; r < pieces.rounds(out.size()); ++r)
        MPI_Bcast(out.data() + pieces.offset(out.size(), r),
            static_cast<int>(pieces.count(out.size(), r)), MPI_CHAR, 0, MPI_COMM_WORLD);
    return out;
}

std::vector<std::string> Comm::gather(const std::string& text) const
{
    const auto size = static_cast<std::int64_t>(text.size());
    std::vector<std::int64_t> sizes(root() ? static_cast<std::size_t>(m_size) : 0);
    MPI_Gather(&size, 1, MPI_INT64_T, sizes.data(), 1, MPI_INT64_T, 0, MPI_COMM_WORLD);
    std::vector<std::string> out(sizes.size());
    for (std::size_t i = 0; i < sizes.size(); ++i)
        out[i].resize(static_cast<std::size_t>(sizes[i]));
    // In rounds of one piece per rank (message_pieces.h), received side by side.
    const MessagePieces pieces(maxMessageBytes(), m_size);
    const auto rounds =
        static_cast<std::size_t>(max(static_cast<std::int64_t>(pieces.rounds(text.size()))));
    std::vector<int> counts(sizes.size());
    std::vector<int> offsets(sizes.size());
    std::string received;
    for (std::size_t r = 0; r < rounds; ++r) {
        int total = 0;
        for (std::size_t i = 0; i < sizes.size(); ++i) {
            counts[i] = static_cast<int>(pieces.count(out[i].size(), r));
            offsets[i] = total;
            total += counts[i];
        }
        received.resize(static_cast<std::size_t>(total));
        MPI_Gatherv(text.data() + pieces.offset(text.size(), r),
            static_cast<int>(pieces.count(text.size(), r)), MPI_CHAR, received.data(),
            counts.data(), offsets.data(), MPI_CHAR, 0, MPI_COMM_WORLD);
        for (std::size_t i = 0; i < sizes.size(); ++i)
            received.copy(out[i].data() + pieces.offset(out[i].size(), r),
                static_cast<std::size_t>(counts[i]), static_cast<std::size_t>(offsets[i]));
    }
    return out;
}

std::vector<std::string> Comm::exchange(const std::vector<std::string>& out) const
{
    const auto ranks = static_cast<std::size_t>(m_size);
    std::vector<std::int64_t> outSizes(ranks);
    std::vector<std::int64_t> inSizes(ranks);
    for (std::size_t i = 0; i < ranks; ++i)
        outSizes[i] = static_cast<std::int64_t>(out.at(i).size());
    MPI_Alltoall(outSizes.data(), 1, MPI_INT64_T, inSizes.data(), 1, MPI_INT64_T, MPI_COMM_WORLD);
    // Point to point, straight from and into each rank's string (no packing), each in
    // pieces of at most the largest message; pieces of one pair arrive in order.
    std::vector<std::string> in(ranks);
    std::vector<MPI_Request> requests;
    const MessagePieces pieces(maxMessageBytes(), 1);
    // Posts the pieces of one pair's bytes: received into `into`, else sent from `from`.
    const auto post = [&](std::string* into, const std::string* from, std::size_t peer) {
        const std::size_t size = into ? into->size() : from->size();
        for (std::size_t r = 0; r < pieces.rounds(size); ++r) {
            requests.emplace_back();
            const std::size_t at = pieces.offset(size, r);
            const int count = static_cast<int>(pieces.count(size, r));
            if (into)
                MPI_Irecv(into->data() + at, count, MPI_CHAR, static_cast<int>(peer),
                    kExchangeTag, MPI_COMM_WORLD, &requests.back());
            else
                MPI_Isend(from->data() + at, count, MPI_CHAR, static_cast<int>(peer),
                    kExchangeTag, MPI_COMM_WORLD, &requests.back());
        }
    };
    for (std::size_t i = 0; i < ranks; ++i) {
        in[i].resize(static_cast<std::size_t>(inSizes[i]));
        if (i == static_cast<std::size_t>(m_rank))
            in[i] = out[i];
        else
            post(&in[i], nullptr, i);
    }
    for (std::size_t i = 0; i < ranks; ++i) {
        if (i != static_cast<std::size_t>(m_rank))
            post(nullptr, &out[i], i);
    }
    MPI_Waitall(static_cast<int>(requests.size()), requests.data(), MPI_STATUSES_IGNORE);
    return in;
}

std::string Comm::firstError(const std::string& error) const
{
    if (max(error.empty() ? 0 : 1) == 0)
        return {};
    std::string first;
    for (const std::string& e : gather(error)) {
        if (first.empty())
            first = e;
    }
    return broadcast(first);
}

void Comm::agree(const std::string& error) const
{
    if (const std::string first = firstError(error); !first.empty())
        throw AgreedError(first);
}

std::int64_t Comm::min(std::int64_t v) const { return reduce(v, MPI_MIN); }
std::int64_t Comm::max(std::int64_t v) const { return reduce(v, MPI_MAX); }
std::int64_t Comm::sum(std::int64_t v) const { return reduce(v, MPI_SUM); }

std::vector<std::int64_t> Comm::sum(std::vector<std::int64_t> v) const
{
    // Few elements (one per node of a trace): one message is plenty.
    MPI_Allreduce(
        MPI_IN_PLACE, v.data(), static_cast<int>(v.size()), MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
    return v;
}

std::vector<std::int64_t> Comm::allgather(std::int64_t v) const
{
    std::vector<std::int64_t> out(static_cast<std::size_t>(m_size));
    MPI_Allgather(&v, 1, MPI_INT64_T, out.data(), 1, MPI_INT64_T, MPI_COMM_WORLD);
    return out;
}

void Comm::barrier() const
{
    MPI_Barrier(MPI_COMM_WORLD);
}

} // namespace strata::app::mpi
