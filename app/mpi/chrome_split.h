#pragma once
// `strata-mpi ingest` of one big uncompressed Chrome/Kineto JSON on K ranks: the
// traceEvents array is split into byte ranges at event boundaries, each event goes to the
// rank that owns its pid, and each owner feeds them, in file order, to the ordinary
// converter into its own shard (storage/import/chrome/chrome_json_split.h).
//
//  1. The file is cut into chunks of about `chunkBytes` (paraverChunkBytes) at guessed
//     event starts ('{' after "},": guessEventStart); chunk i is read by rank i mod K.
//  2. Pass 1: each rank scans its chunks (a ChromeEventReader started inside the array
//     and stopped at the chunk's end), learning the chunk's layout and who should import
//     what (bytes per pid, the first track of each thread, the pids of each flow id). A
//     guess can be wrong (text inside a string or an args array of objects): chunk i is
//     right only when chunk i - 1 (right itself) stopped exactly at its start; a wrong
//     one is scanned again from there (rare, one chunk at a time). The ranks share the
//     chunks' facts (gather, broadcast); the earliest right chunk's error is the job's,
//     the same message `strata ingest` gives. Every rank merges the chunks, in file
//     order, into the layout one pass learns.
//  3. The root tracks, in the order the import creates them, are dealt to the ranks in
//     consecutive blocks balanced by bytes, never separating a pid's roots nor the pids
//     of one flow id (a flow cannot cross shards): so the run's tracks keep the order of
//     `strata ingest`'s, and a trace whose pids all share flows (Kineto: ac2g from the
//     host to each GPU) stays on one owner: only reading is then shared.
//  4. Pass 2, round by round (K consecutive chunks a round): each rank reads its chunk
//     again, sends every event's text with its offset and index to the owner of its pid
//     (pids without a track to rank 0), one all-to-all per round; each owner feeds what it
//     got in rank order = file order. Errors are voted on after each round.
//  5. Rank 0 sums the owners' stats into the file's import report.
//
// Memory per rank: the reader's window, its chunk, the events it sends and what it
// receives in a round (at most K chunks when one rank owns every pid), and the layout.

#include "app/ingest_plan.h"
#include "app/mpi/split_common.h"

#include <filesystem>

namespace strata::app::mpi {

class Comm;

/// Whether the ranks split the plan's trace between them: one uncompressed Chrome JSON
/// file, several ranks, no file that joins to it.
bool splitsChrome(const Comm& comm, const IngestPlan& plan);

/// Collective: imports the plan's one trace as described above into `shard` (this rank's
/// temporary shard file). Throws AgreedError, alike on every rank, on bad input or any
/// rank's failure, leaving no shard file.
SplitShare importChromeSplit(
    const Comm& comm, const IngestPlan& plan, const std::filesystem::path& shard);

}  // namespace strata::app::mpi
