#pragma once
// Frame time as the GUI lives it: query + paint of a 1920x1080 timeline frame, offscreen,
// over the fixed sequence of zooms and pans from the whole run down to single kernels.
// Also open-to-first-frame (open the store, lay out the rows, query and paint the whole
// run) and the process's peak RSS. Run it in a child process (bench_support.h inChild):
// it creates the QApplication it needs.

#include <filesystem>
#include <vector>

namespace strata::bench {

/// {open_first_frame_ms, frame_p50_ms, frame_p99_ms, query_p99_ms, paint_p99_ms, peak_rss_mb}
std::vector<double> measureFrames(const std::filesystem::path& store, int frames);

} // namespace strata::bench
