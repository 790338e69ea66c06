#include "app/mpi/mpi_comm.h"

#include <mpi.h>

namespace strata::app::mpi {

namespace {

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
    if (size > 0)
        MPI_Bcast(out.data(), static_cast<int>(size), MPI_CHAR, 0, MPI_COMM_WORLD);
    return out;
}

std::vector<std::string> Comm::gather(const std::string& text) const
{
    const int size = static_cast<int>(text.size());
    std::vector<int> sizes(root() ? static_cast<std::size_t>(m_size) : 0);
    MPI_Gather(&size, 1, MPI_INT, sizes.data(), 1, MPI_INT, 0, MPI_COMM_WORLD);
    std::vector<int> offsets(sizes.size());
    int total = 0;
    for (std::size_t i = 0; i < sizes.size(); ++i) {
        offsets[i] = total;
        total += sizes[i];
    }
    std::string all(static_cast<std::size_t>(total), '\0');
    MPI_Gatherv(text.data(), size, MPI_CHAR, all.data(), sizes.data(), offsets.data(), MPI_CHAR, 0,
                MPI_COMM_WORLD);
    std::vector<std::string> out;
    for (std::size_t i = 0; i < sizes.size(); ++i)
        out.push_back(all.substr(static_cast<std::size_t>(offsets[i]), static_cast<std::size_t>(sizes[i])));
    return out;
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

void Comm::barrier() const
{
    MPI_Barrier(MPI_COMM_WORLD);
}

} // namespace strata::app::mpi
