#pragma once
// `strata-mpi ingest` of one big Paraver .prv on K ranks: the file is split into byte
// ranges at line boundaries, the records go to the rank that owns their node, and each
// owner feeds them, in file order, to the ordinary importer into its own shard.
//
//  1. Every rank reads the header line (and the .pcf/.row) itself.
//  2. The body is cut into chunks of about `chunkBytes` at line starts; chunk i is read
//     by rank i mod K, so a round of K consecutive chunks is read by all ranks at once.
//  3. A first pass over the chunks weighs each node (bytes of its records); the nodes
//     are dealt to the ranks in consecutive blocks balanced by weight. A message (type-3
//     record) goes with its sender's node: its owner stores the flow, to a foreign track
//     (trace_sink.h) when another rank owns the receiver's node, which the run's publish
//     resolves (run_manifest.h). Nothing else joins two threads of a Paraver trace.
//  4. Round by round each rank reads its chunk, counts its lines (their numbers come from
//     an allgather of the counts), and sends every line to the owner of its node, lines
//     without one (comments, communicator lines, and lines the importer will reject) to
//     rank 0; the exchange is one all-to-all per round. Each owner feeds what it got in
//     rank order = file order, so nesting, sequence numbers and warnings are those of one
//     process. After each round the ranks vote on errors: the earliest line's error ends
//     the job.
//  5. The events still open close at the whole trace's end; rank 0 merges the shares'
//     counts into the file's import report.
//
// Memory per rank: its chunk, the lines it sends, and what it receives in a round (at
// most K chunks when one rank owns every node): chunks of 256 MB / K (1 to 32 MB, and
// no more than 1/K of the file, so that every rank reads).

#include "app/ingest_plan.h"
#include "app/mpi/split_common.h"

#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace strata::storage {
class StoreBuilder;
}

namespace strata::app::mpi {

class Comm;
class MpiReadProgress;

/// Whether the ranks split the plan's trace between them: one Paraver file (a .prv.gz is
/// inflated by every rank, each keeping its chunks: split_common.h's RangeReader),
/// several ranks, no file that joins to it.
bool splitsParaver(const Comm& comm, const IngestPlan& plan);

using ParaverShare = SplitShare;

/// Collective: imports the plan's one trace as described above into `shard` (this rank's
/// temporary shard file). Throws AgreedError, alike on every rank, on bad input or any
/// rank's failure, leaving no shard file.
ParaverShare importParaverSplit(
    const Comm& comm, const IngestPlan& plan, const std::filesystem::path& shard);

/// Bytes per chunk for `ranks` ranks (STRATA_MPI_CHUNK_BYTES overrides: a test hook).
std::uint64_t paraverChunkBytes(int ranks);

}  // namespace strata::app::mpi
