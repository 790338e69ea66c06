#pragma once
// Imports an Nsight Compute CSV (ncu_csv_reader.h) into a TraceSink, alone or joined to
// the GPU kernels of a trace ingested before it into the same sink (KernelRecorder).
//
// Alone: one Gpu track per device ("GPU d"), one Stream track per stream ("stream s"),
// and one interval per profiled kernel, named by its kernel name, category "kernel",
// role Useful, with every non-empty cell of its row(s) as args (numbers as numbers).
// ncu serialises the kernels it profiles and the CSV has no timestamps, so the intervals
// are laid back to back in result-ID order across all streams, each as long as its
// duration metric (1 ns when it has none, counted); time 0 is the first kernel's start.
//
// Joined: each ncu kernel is matched to a trace kernel, in this order of preference:
//   1. the same correlation ID, when the CSV has a "Correlation ID" column;
//   2. the Nth profiled kernel of a name <-> the Nth trace kernel of that name (by start
//      time), on the same device and stream when both sides know them and the trace has
//      kernels there, else on any stream. The name compares by kernelExactKey() when the
//      trace has a kernel of that exact key, else by kernelBaseKey() (kernel_name.h).
//   A trace kernel joins at most one ncu kernel. Unjoined ncu kernels are counted (and
//   the first few named in a warning); joined kernels whose grid/block differ from the
//   trace kernel's are counted too (same kernel, other launch: a weaker match).
//
// Either way, for every kernel and every numeric metric that is not an environment metric
// (isEnvironmentMetric):
//   - a row of the per-kernel table: addKernelMetric(kernel track, kernel start, metric,
//     value, unit): what the timeline uses to color kernels by a metric;
//   - a sample on the counter track "METRIC" (with its unit) under the Group track
//     "ncu metrics" of the kernel's GPU: the value at the kernel's start, held to its end,
//     then 0 ("no profiled kernel running") unless the next profiled kernel on that GPU
//     has started by then. So the pyramid's time-weighted mean of a % metric is the
//     GPU's busy-weighted utilisation, and a chart shows each kernel as a plateau.

#include "storage/store/progress.h"

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace strata::storage {

class TraceSink;
struct RecordedKernel;

struct NcuImportStats
{
    std::uint64_t kernels = 0;  ///< profiled kernels in the CSV
    std::uint64_t joined = 0;  ///< joined to a trace kernel
    std::uint64_t unjoined = 0;  ///< no trace kernel found (joined mode only)
    std::uint64_t joinedByCorrelation = 0;
    std::uint64_t joinedByBaseName = 0;  ///< through kernelBaseKey (demangler differences)
    std::uint64_t launchMismatches = 0;  ///< joined, but grid or block differ
    std::uint64_t kernelMetrics = 0;  ///< rows of the per-kernel table
    std::uint64_t counterTracks = 0;
    std::uint64_t counterSamples = 0;
    std::uint64_t nonNumericCells = 0;  ///< metric cells that are text (kept in args only)
    std::vector<std::string> warnings;
};

/// Imports `path`. With `traceKernels` (non-null and non-empty) joins to them, else
/// imports alone. Throws InputError (ncu_csv_reader.h).
NcuImportStats importNcuCsv(const std::filesystem::path& path, TraceSink& sink,
    const std::vector<RecordedKernel>* traceKernels = nullptr);

}  // namespace strata::storage
