#pragma once
// How the analyses of `strata-mpi` deal a run's shards to the ranks: shard s to rank
// s mod K, so that each rank reads only its own shards' tiles.

#include "model/events.h"

namespace strata::storage {
class StoreReader;
}

namespace strata::app::mpi {

class Comm;

/// Whether this rank reads `track` (it lies in one of the rank's shards).
bool rankReads(const Comm& comm, const storage::StoreReader& store, model::TrackId track);

}  // namespace strata::app::mpi
