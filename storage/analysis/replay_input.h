#pragma once
// Reads the input of the ideal-network replay (ideal_replay.h) from a store:
//   - processes: the process-level workers; each replays the MPI calls of its first
//     thread (in tree order) that makes any, MPI's main thread in a hybrid run (calls of
//     other threads are not replayed);
//   - MPI calls: outermost intervals whose category starts with "MPI" (Paraver's event
//     types "MPI Point-to-point", "MPI Collective Comm", "MPI Other"; OTF2's paradigm
//     "MPI"), names compared case-insensitively; collectives by name (kCollectiveCalls);
//   - messages: the flows between threads of two different processes (Paraver's type-3
//     records, OTF2's matched messages). A message is sent by the sender's last call that
//     starts at or before the flow's start, and received by the receiver's first call
//     that ends at or after the flow's end (an MPI_Wait, an MPI_Recv, ...). A message sent
//     before any call constrains nothing; one that arrives after the last call neither.
// Keyed by name text: the input is plain data, so replay partials of shards can be
// concatenated by process name.

#include "model/workers.h"
#include "storage/analysis/ideal_replay.h"
#include "storage/store/store_reader.h"

#include <memory>
#include <string>
#include <variant>

namespace strata::storage {

/// Blocking collectives over one communicator, replayed as "all arrive, then all leave".
/// (Non-blocking collectives, MPI_Init/Finalize and communicator management are not.)
inline constexpr const char* kCollectiveCalls[] = { "mpi_barrier", "mpi_bcast", "mpi_reduce",
    "mpi_allreduce", "mpi_alltoall", "mpi_alltoallv", "mpi_alltoallw", "mpi_allgather",
    "mpi_allgatherv", "mpi_gather", "mpi_gatherv", "mpi_scatter", "mpi_scatterv",
    "mpi_reduce_scatter", "mpi_reduce_scatter_block", "mpi_scan", "mpi_exscan" };

/// The replay's input over `run` (the whole run: calls are timed from its start), or why
/// there is none: no MPI calls, or point-to-point calls but no message records.
std::variant<ReplayInput, std::string> buildReplayInput(StoreReader& store, model::TimeRange run);

/// Per process-level worker (in tree order), the time in `window` its main thread (the
/// first that makes MPI calls) spends outside them: POP's hybrid "non-MPI time". A process
/// without MPI calls is outside MPI the whole window.
std::vector<model::TimeNs> outsideMpiNs(StoreReader& store, model::TimeRange window);

/// One process's share of the replay input, read from its own tracks only: its calls, and
/// the messages its threads sent, still to be matched with their receivers' calls (which
/// another process, reading other shards, may hold). About 20 bytes per call and 16 per
/// message.
struct ReplayProcessPart
{
    ReplayProcess process;  ///< name, calls (no messages placed yet), tail
    std::vector<model::TimeNs> callEndsNs;  ///< [call]: where arrivals are matched
    bool pointToPoint = false;  ///< some call sends or receives
    bool anyMessage = false;  ///< some flow leaves its tracks for a track of the store
    struct Sent
    {
        std::uint32_t receiver = 0;  ///< process index
        model::TimeNs arrivalNs = 0;
        std::uint32_t call = 0;  ///< the sending call
    };
    std::vector<Sent> sent;  ///< to other processes, after the sender's first call, in store order
};

/// buildReplayInput in parts: the process-level workers (tree order) and, per process,
/// its replay part and its time outside MPI; assembleReplayInput joins the parts of all
/// processes (in that order) into what buildReplayInput returns.
class MpiCallReader
{
public:
    explicit MpiCallReader(StoreReader& store);
    ~MpiCallReader();
    /// Whether any category of the store starts with "MPI" (else nothing is to replay).
    static bool anyMpiCategory(const StoreReader& store);
    const std::vector<model::Worker>& processes() const { return m_processes; }
    ReplayProcessPart replayPart(std::size_t process, model::TimeRange run);
    model::TimeNs outsideMpiNs(std::size_t process, model::TimeRange window);

private:
    struct Names;
    StoreReader& m_store;
    std::vector<model::Worker> m_processes;
    std::vector<int> m_processOf;  ///< [track] -> process index, or -1
    std::unique_ptr<Names> m_names;
};

std::variant<ReplayInput, std::string> assembleReplayInput(std::vector<ReplayProcessPart> parts);

}  // namespace strata::storage
