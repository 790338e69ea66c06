#pragma once
// One cut: part of a store into a file whose extension picks the format (.strata, .json,
// .json.gz, .prv). `strata cut` and the GUI's File > Export sub-trace both run it. Every
// writer builds into temporary files and renames them into place at the end, so an
// error or a cancel leaves no half-written output.

#include "storage/export/trace_cut.h"

#include <filesystem>

namespace strata::storage {
class StoreReader;
}

namespace strata::app {

/// True when `path` ends with an extension cutToFile writes.
bool cutWritesTo(const std::filesystem::path& path);

/// Throws storage::Cancelled when options.progress says stop; std::invalid_argument for
/// an extension cutToFile does not write.
storage::CutStats cutToFile(storage::StoreReader& store, const std::filesystem::path& output,
                            const storage::CutOptions& options);

} // namespace strata::app
