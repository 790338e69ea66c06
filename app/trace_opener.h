#pragma once
// Opening files in the GUI: a store opens as is; raw traces (one, or several ranks of
// one run) are ingested first, with a progress dialog that can cancel, into a store
// next to the first file ("trace.json.gz.strata"), or into the cache folder when that
// folder is not writable. The store is reused the next time the same files are opened
// unchanged (its meta "source_signature" matches).

#include <QStringList>

#include <filesystem>
#include <optional>
#include <vector>

class QWidget;

namespace strata::app {

/// $XDG_CACHE_HOME/strata (or ~/.cache/strata), created on demand.
std::filesystem::path cacheFolder();

/// Where the store for these inputs lives (or would live).
std::filesystem::path storePathFor(const std::vector<std::filesystem::path>& inputs);

/// True when `store` exists and was built from exactly these unchanged inputs.
bool storeIsCurrent(const std::filesystem::path& store, const std::vector<std::filesystem::path>& inputs);

/// The store to open for `paths`: the store itself, a current one, or a new one
/// ingested with a progress dialog over `parent`. Nullopt when the user cancelled;
/// errors are shown in a message box and give nullopt too.
std::optional<std::filesystem::path> storeForPaths(const QStringList& paths, QWidget* parent);

} // namespace strata::app
