// `mpirun -n K strata-mpi variability STORE ...`: the store's shards are dealt to the
// ranks (shard s to rank s mod K); each rank collects the exact partial of its shards'
// tracks only (storage/analysis/variability.h: instances keyed by name text), rank 0
// gathers the partials as bytes, merges them and finishes the report, which equals
// `strata variability STORE` in one process: the merge is exact, not a sketch.

#include "app/mpi/mpi_comm.h"
#include "app/mpi/mpi_commands.h"
#include "app/mpi/mpi_shards.h"
#include "app/variability_command.h"
#include "storage/store/store_reader.h"

#include <cstdio>

namespace strata::app::mpi {

int variabilityCommand(const Comm& comm, const Args& args)
{
    const VariabilityArgs a = variabilityArgsFrom(args);
    // Every rank opens the run (its manifest and the shards' summaries), and reads the
    // tiles of its own shards only.
    std::string partialBytes, error;
    std::unique_ptr<storage::StoreReader> store;
    storage::VariabilityScope scope;
    try {
        store = std::make_unique<storage::StoreReader>(a.store);
        scope = storage::variabilityScope(*store, a.request);
        std::vector<model::TrackId> mine;
        for (model::TrackId t : scope.tracks) {
            if (rankReads(comm, *store, t))
                mine.push_back(t);
        }
        storage::VariabilityPartial partial;
        partial.collect(*store, mine, scope.read);
        partialBytes = partial.toBytes();
    } catch (const std::exception& e) {
        error = e.what();
    }
    if (const std::string failed = comm.firstError(error); !failed.empty()) {
        if (comm.root())
            std::fprintf(stderr, "strata-mpi: %s\n", failed.c_str());
        return kExitBadInput;
    }
    const std::vector<std::string> partials = comm.gather(partialBytes);
    if (!comm.root())
        return kExitOk;
    storage::VariabilityPartial merged;
    for (const std::string& bytes : partials)
        merged.merge(storage::VariabilityPartial::fromBytes(bytes));
    const storage::VariabilityReport report =
        storage::finishVariability(std::move(merged), store->resources(), scope.request);
    std::fputs(variabilityText(report, a.json).c_str(), stdout);
    return kExitOk;
}

} // namespace strata::app::mpi
