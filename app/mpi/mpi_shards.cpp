#include "app/mpi/mpi_shards.h"

#include "app/mpi/mpi_comm.h"
#include "storage/store/store_reader.h"

#include <algorithm>

namespace strata::app::mpi {

bool rankReads(const Comm& comm, const storage::StoreReader& store, model::TrackId track)
{
    const auto& shards = store.shards();
    const auto after = std::upper_bound(shards.begin(), shards.end(), track,
        [](model::TrackId t, const storage::ShardInfo& s) { return t < s.firstTrack; });
    const auto shard =
        static_cast<std::size_t>(std::max<std::ptrdiff_t>(0, after - shards.begin() - 1));
    return static_cast<int>(shard % static_cast<std::size_t>(comm.size())) == comm.rank();
}

}  // namespace strata::app::mpi
