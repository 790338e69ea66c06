#pragma once
// One ingest: trace files in, one store out (a single store, or a run of shards built by
// parallel workers, run_builder.h). The `strata ingest` command and the GUI's
// "open a raw trace" both run it. Several Chrome/Kineto files are the ranks of one run:
// each becomes a rank, aligned on their earliest absolute time. What each importer saw
// (rows read, anomalies counted, warnings) is kept in the store's meta as the import
// report ("import.N.file", "import.N.<row>") that `strata info` prints.

#include "storage/import/common/format_detect.h"
#include "storage/store/progress.h"

#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace strata::app {

struct IngestRequest
{
    std::vector<std::filesystem::path> inputs;
    std::filesystem::path output;
    std::optional<storage::TraceFormat> format;  ///< forced; detected per file when empty
    int threads = 2;
    /// Shards of the store (run_builder.h); 0: chosen from the inputs (shardsFor).
    int shards = 0;
};

/// Inputs of at least this many bytes (the trace files, several of them) are built as a
/// run of shards by parallel workers; smaller ones make a single store.
inline constexpr std::uint64_t kShardFromBytes = std::uint64_t(64) << 20;
/// About this many bytes of input per shard, and at least one shard per thread.
inline constexpr std::uint64_t kBytesPerShard = std::uint64_t(512) << 20;

/// How many shards an ingest builds: one for a single trace file or when files that join
/// to the traces (Nsight Compute, counter logs) come with them; `request.shards` when
/// given (at most one per trace file); else one below kShardFromBytes, and above it one
/// per kBytesPerShard and at least one per thread.
int shardsFor(const IngestRequest& request, std::size_t traces, std::size_t joins, std::uint64_t traceBytes);

struct IngestSummary
{
    std::uint64_t events = 0;
    std::uint64_t inputBytes = 0;
    std::vector<std::string> warnings;  ///< "FILE: warning: ..." lines
    double seconds = 0;
};

/// Progress of one phase: "reading NAME" (bytes of the file) or "tiling" (tracks).
/// Returning false cancels: the ingest throws storage::Cancelled and leaves no store.
using IngestProgress = std::function<bool(const std::string& phase, std::uint64_t done, std::uint64_t total)>;

/// Throws storage::InputError for bad input, for a trace that yields no event, for an
/// output that is one of the inputs or an existing file that is not a store (no store is
/// left behind, an existing one at `output` is untouched), storage::Cancelled when
/// progress says stop.
IngestSummary ingestTraces(const IngestRequest& request, const IngestProgress& progress = {});

/// What identifies the inputs' content cheaply (paths, sizes, modification times): a
/// store built from them keeps it as meta "source_signature", so it can be reused when
/// the same files are opened again unchanged.
std::string sourceSignature(const std::vector<std::filesystem::path>& inputs);

/// Checks that every input exists and has a format we import; throws InputError.
void checkInputs(const IngestRequest& request);

/// "ingested N events from K file(s) (X MB) into STORE (Y MB) in T s".
std::string summaryLine(const IngestRequest& request, const IngestSummary& summary);

/// What a phase's progress counts: "B" (bytes of the file, "reading NAME") or "tracks".
std::string_view phaseUnit(std::string_view phase);

} // namespace strata::app
