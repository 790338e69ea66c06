#pragma once
// Which store opens for the files a user names (`strata FILE...`, File > Open, drag and
// drop), with no Qt, so the GUI and the no-display path share it: a store opens as is;
// raw traces (one, several ranks of one run, a trace with its counter log and Nsight
// Compute CSV: whatever `strata ingest` takes) are ingested into a store next to the
// first file ("trace.json.gz.strata", "rank0.json.gz+3.strata"), or into the cache
// folder when that folder is not writable. The store is reused the next time the same
// files are opened unchanged (its meta "source_signature" matches).

#include "app/ingest_job.h"

#include <filesystem>
#include <optional>
#include <vector>

namespace strata::app {

/// $XDG_CACHE_HOME/strata (or ~/.cache/strata), created on demand.
std::filesystem::path cacheFolder();

/// Where the store for these inputs lives (or would live).
std::filesystem::path storePathFor(const std::vector<std::filesystem::path>& inputs);

/// True when `store` exists and was built from exactly these unchanged inputs.
bool storeIsCurrent(
    const std::filesystem::path& store, const std::vector<std::filesystem::path>& inputs);

struct InputStore
{
    std::filesystem::path store;  ///< the store to open
    /// The request and what it did, when the inputs were ingested just now.
    std::optional<IngestRequest> request;
    std::optional<IngestSummary> ingest;
};

/// The store to open for `inputs` (not empty): the store itself, a current one, or one
/// ingested now with `progress`. Throws what ingestTraces() throws (storage::InputError
/// for a bad file, naming it and the position; storage::Cancelled).
InputStore storeForInputs(
    const std::vector<std::filesystem::path>& inputs, const IngestProgress& progress);

}  // namespace strata::app
