#pragma once
// What an ingest does with its inputs, shared by `strata ingest` (ingest_job.h, threads)
// and `strata-mpi ingest` (app/mpi, ranks): the trace files in argument order, then the
// files that join to them (Nsight Compute, counter logs: their kernels and origin come
// from the traces), the common origin of Chrome rank files, groups of consecutive files
// balanced by size (one per shard), and one trace file's import into a shard.

#include "app/file_import.h"
#include "app/ingest_job.h"

#include <filesystem>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace strata::app {

struct IngestPlan
{
    const IngestRequest* request = nullptr;
    std::vector<std::filesystem::path> traces;
    std::vector<std::filesystem::path> joins;
    std::vector<std::uint64_t> traceSizes;
    std::uint64_t inputBytes = 0;  ///< traces and joins

    storage::TraceFormat formatOf(const std::filesystem::path& input) const;
};

/// The request of `ingest`'s arguments (INPUT... -o STORE [--format F] [--threads N]
/// [--shards N]); throws UsageError.
IngestRequest ingestRequestFrom(const std::vector<std::string>& args);

/// Sorts the request's inputs into traces and joins (no check: see checkInputs).
IngestPlan planIngest(const IngestRequest& request);

/// Pass 1 of trace `index` when it is a Chrome file (scanned by `scanThreads`), made
/// ahead of its import (ImportContext::chromePrescans) so that the ranks of a run agree on
/// time 0 before any is imported; an empty prescan for the other formats.
storage::ChromePrescan prescanTraceFile(const IngestPlan& plan, std::size_t index, int scanThreads,
    const storage::ProgressFn& progress);

/// Several Chrome files are the ranks of one run, aligned on their earliest absolute
/// time: the earliest of `prescans` (some of the plan's traces), when the plan has several.
std::optional<model::TimeNs> ranksOrigin(
    const IngestPlan& plan, const std::vector<storage::ChromePrescan>& prescans);

/// Rank files read once (chrome_json_importer.h) start each at its own time 0; once all are
/// imported, their tracks move to the earliest, as ranksOrigin() would have aligned them
/// before. Thread-safe: the shards' workers note their files at once.
class RankAlignment
{
public:
    /// `builder` holds tracks [first, end) of a file imported with time 0 at `originNs`.
    void imported(storage::StoreBuilder& builder, model::TrackId first, model::TrackId end,
        model::TimeNs originNs);
    /// Moves every file's tracks to the earliest time 0, which becomes each builder's
    /// "origin_ns".
    void align();
    /// The earliest time 0 of the files noted; nullopt when none was.
    std::optional<model::TimeNs> earliest() const;
    /// Moves every file's tracks to `originNs` (the earliest of several processes' files,
    /// strata-mpi), which becomes each builder's "origin_ns".
    void alignTo(model::TimeNs originNs);

private:
    struct File
    {
        storage::StoreBuilder* builder = nullptr;
        model::TrackId first = 0;
        model::TrackId end = 0;
        model::TimeNs originNs = 0;
    };
    mutable std::mutex m_mutex;
    std::vector<File> m_files;
};

/// Whether the plan's trace files are rank files that are read once and aligned after
/// (RankAlignment): several, all Chrome, and no file joins to them. Otherwise each Chrome
/// file's pass 1 comes first (prescanTraceFile), so that they agree on time 0 before any is
/// imported.
bool alignsRanksAfter(const IngestPlan& plan);

/// Trace `index` of the plan into `sink` (`builder` gets its import report); it is rank
/// `index` when the plan has several. Throws InputError when the file yields no event: an
/// error, not an empty store over a good one. Returns its warning lines.
std::vector<std::string> importTraceFile(const IngestPlan& plan, std::size_t index, storage::TraceSink& sink,
                                         storage::StoreBuilder& builder, const ImportContext& context,
                                         const storage::ProgressFn& progress);

/// Consecutive files per group, balanced by size: group k ends where the running total
/// passes (k + 1) / groups of all bytes, and every group gets a file. Returns the first
/// file of each group, then the end.
std::vector<std::size_t> groupsBySize(const std::vector<std::uint64_t>& sizes, int groups);

} // namespace strata::app
