#pragma once
// Imports folded stacks ("collapsed" stacks, as written by FlameGraph's stackcollapse-*.pl,
// py-spy --format raw, inferno): one line per distinct call path,
//     root;caller;...;leaf COUNT
// The count is the last space-separated field; frames may contain spaces but not ';'.
// Blank lines and lines starting with '#' are skipped.
//
// Folded stacks have no time. Each line becomes ONE stack sample whose weight is the
// line's count (StackSample::weight), on a single track (Process "<file name>" > Thread
// "folded stacks", unit "count"), so the flame graph's total is exactly the sum of the counts. The
// samples are laid out on a synthetic time axis of 1 ns per count: line k sits at the sum
// of the counts of the lines before it. A window over part of that axis therefore selects
// whole lines in file order, and the trace's span equals the total count (in ns). Meta:
// source_format=folded, origin_ns=0, time_axis=synthetic.
//
// Errors (InputError, "file: line N: ..."): a line without a trailing integer count, a
// count or running total beyond int64, an empty path.

#include "storage/store/progress.h"

#include <cstdint>
#include <filesystem>

namespace strata::storage {

class TraceSink;

struct FoldedImportStats
{
    std::uint64_t lines = 0;  ///< all lines, blank and comment lines included
    std::uint64_t stackLines = 0;  ///< lines holding a stack and a count
    std::uint64_t samples = 0;  ///< stack samples added (more than stackLines only for counts >= 2^32)
    std::uint64_t totalCount = 0;  ///< sum of the counts
    std::uint64_t maxDepth = 0;  ///< frames on the longest line
};

/// Imports `path` (plain or .gz) into `sink`. Throws InputError on malformed input,
/// Cancelled when `progress` returns false (progress is in bytes of the file on disk).
FoldedImportStats importFolded(const std::filesystem::path& path, TraceSink& sink,
                               const ProgressFn& progress = {});

} // namespace strata::storage
