#pragma once
// One input file into the sink, by format, with its import report: what the importer
// read and the anomalies it counted, kept in the store's meta as "import.N.ROW" (the
// table `strata info` prints) and its warnings returned as "FILE: warning: ..." lines.

#include "storage/import/chrome/chrome_json_importer.h"
#include "storage/import/common/format_detect.h"
#include "storage/import/common/kernel_recorder.h"
#include "storage/import/paraver/paraver_importer.h"
#include "storage/store/progress.h"
#include "storage/store/store_builder.h"

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace strata::app {

/// What an import needs to know about the whole ingest.
class RankAlignment;

struct ImportContext
{
    int rank = -1;  ///< the file's rank when several trace files make one run
    std::optional<model::TimeNs> originNs;  ///< the run's common origin (Chrome ranks)
    /// The trace kernels and origin seen so far (for Nsight Compute and counter logs,
    /// which join to them); null when nothing joins.
    const storage::KernelRecorder* recorder = nullptr;
    /// Threads that may scan one file (Chrome JSON): all of the ingest's when its files
    /// are read one after another, 1 when workers read several files at once.
    int scanThreads = 1;
    /// The Chrome files' pass 1 by trace index, made ahead (prescanTraceFile) so that
    /// their import reads them once more instead of twice; null, or an entry without
    /// layout: the import makes its own.
    const std::vector<storage::ChromePrescan>* chromePrescans = nullptr;
    /// Rank files each read once, with its own time 0, and aligned after all are
    /// (importTraceFile notes them there); null: `originNs` aligns them.
    RankAlignment* alignment = nullptr;
};

/// What one import tells the ingest besides the events it sent.
struct ImportResult
{
    std::vector<std::string> warnings;  ///< "FILE: warning: ..." lines
    /// Why the file would yield no event ("truncated at byte 812 with only metadata
    /// before it"), from the importer's counts; read only when it yielded none.
    std::string noEventsReason;
    /// A Chrome file's time 0 (absolute, as the "origin_ns" meta).
    std::optional<model::TimeNs> originNs;
};

/// Imports `input` (whose format is `format`) into `sink`; `builder` receives the report
/// as meta under "import.INDEX.".
ImportResult importFile(const std::filesystem::path& input, storage::TraceFormat format,
    storage::TraceSink& sink, storage::StoreBuilder& builder, std::size_t index,
    const ImportContext& context, const storage::ProgressFn& progress);

/// The import report of Paraver file `input` whose import `stats` sums up (importFile's
/// for a file that strata-mpi split across ranks) into `sink`'s meta under "import.INDEX.".
ImportResult reportParaverImport(const storage::ParaverImportStats& stats,
    const std::filesystem::path& input, storage::TraceSink& sink, std::size_t index);

/// The same for a Chrome JSON file that strata-mpi split across ranks.
ImportResult reportChromeImport(const storage::ImportStats& stats,
    const std::filesystem::path& input, storage::TraceSink& sink, std::size_t index);

/// The formats that join to traces ingested with them (imported after them).
bool joinsToTraces(storage::TraceFormat format);
/// The formats `strata ingest` reads.
bool isSupported(storage::TraceFormat format);

} // namespace strata::app
