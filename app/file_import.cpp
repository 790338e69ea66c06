#include "app/file_import.h"

#include "storage/import/chrome/chrome_json_importer.h"
#include "storage/import/counters/counter_log_importer.h"
#include "storage/import/ncu/ncu_importer.h"
#include "storage/import/nsys/nsys_importer.h"
#include "storage/import/otf2/otf2_importer.h"
#include "storage/import/paraver/paraver_importer.h"
#include "storage/import/stacks/folded_importer.h"
#include "storage/import/stacks/perf_script_importer.h"

#include <cstdio>

namespace strata::app {

namespace {

using storage::TraceFormat;

/// The import report of one file, kept in the store's meta.
class ImportReport
{
public:
    ImportReport(storage::TraceSink& builder, std::size_t index, const std::filesystem::path& input,
        TraceFormat format)
        : m_builder(builder)
        , m_prefix("import." + std::to_string(index) + ".")
        , m_input(input.string())
    {
        m_builder.setMeta(m_prefix + "file", m_input);
        m_builder.setMeta(m_prefix + "format", std::string(storage::formatName(format)));
    }
    void row(std::string_view name, std::uint64_t value)
    {
        if (value > 0)
            m_builder.setMeta(m_prefix + std::string(name), std::to_string(value));
    }
    /// Keeps each line in the meta ("warning.001", ... in order; `strata info` prints them)
    /// and returns it as "FILE: warning: LINE" for stderr.
    void warnings(const std::vector<std::string>& lines)
    {
        for (const std::string& line : lines) {
            m_warnings.push_back(m_input + ": warning: " + line);
            char key[32];
            std::snprintf(key, sizeof key, "warning.%03zu", m_warnings.size());
            m_builder.setMeta(m_prefix + key, line);
        }
        if (!lines.empty())
            m_lastWarning = lines.back();
        row("warnings", m_warnings.size());
    }
    ImportResult take(std::string noEventsReason)
    {
        if (noEventsReason.empty())
            noEventsReason =
                m_warnings.empty() ? "the file holds no event that Strata imports" : m_lastWarning;
        return { std::move(m_warnings), std::move(noEventsReason), std::nullopt };
    }

private:
    storage::TraceSink& m_builder;
    std::string m_prefix;
    std::string m_input;
    std::vector<std::string> m_warnings;
    std::string m_lastWarning;
};

/// The rows of a Paraver import (one file's, or the merged shares of one split across
/// ranks by strata-mpi).
void reportParaver(ImportReport& report, const storage::ParaverImportStats& stats)
{
    for (const auto& [name, value] :
        { std::pair<std::string_view, std::uint64_t> { "lines", stats.lines },
            { "states", stats.states }, { "event_lines", stats.eventLines },
            { "event_pairs", stats.eventPairs }, { "communications", stats.communications },
            { "intervals", stats.intervals }, { "instants", stats.instants },
            { "counter_samples", stats.counterSamples }, { "flows", stats.flows },
            { "unmatched_ends", stats.unmatchedEnds }, { "unclosed_begins", stats.unclosedBegins },
            { "ends_before_begin", stats.endsBeforeBegin },
            { "depth_overflows", stats.depthOverflows },
            { "truncated", stats.truncated ? 1u : 0u } })
        report.row(name, value);
    report.warnings(stats.warnings);
}

/// Why a Chrome import sent no event, from its counts: the cut-off point of a truncated
/// file, an empty traceEvents, only metadata, or what dropped every event.
std::string chromeNoEventsReason(const storage::ImportStats& stats)
{
    const std::uint64_t metadata = stats.phase("M");
    std::string reason;
    if (stats.truncated)
        reason = "truncated at byte " + std::to_string(stats.bytes) + " (of the JSON text) ";
    if (stats.totalEvents == 0)
        return reason + (stats.truncated ? "before the first event" : "traceEvents is empty");
    if (metadata == stats.totalEvents)
        return reason
            + (stats.truncated ? "with only metadata before it" : "it holds only metadata") + " ("
            + std::to_string(metadata) + (metadata == 1 ? " \"M\" event)" : " \"M\" events)");
    reason += (stats.truncated ? "and " : "") + std::string("all ")
        + std::to_string(stats.totalEvents - metadata) + " of its events were dropped";
    std::string why;
    for (const storage::ImportStatRow& row : stats.rows()) {
        if (row.value > 0 && row.effect == storage::AnomalyEffect::Dropped)
            why +=
                (why.empty() ? "" : ", ") + std::string(row.name) + " " + std::to_string(row.value);
    }
    return reason + (why.empty() ? "" : " (" + why + ")");
}

ImportResult reportChrome(ImportReport& report, const storage::ImportStats& stats)
{
    report.row("events", stats.totalEvents);
    for (const storage::ImportStatRow& row : stats.rows())
        report.row(row.name, row.value);
    report.warnings(stats.warnings);
    return report.take(chromeNoEventsReason(stats));
}

} // namespace

bool joinsToTraces(TraceFormat format)
{
    return format == TraceFormat::Ncu || format == TraceFormat::Counters;
}

bool isSupported(TraceFormat format)
{
    switch (format) {
    case TraceFormat::Chrome:
    case TraceFormat::Paraver:
    case TraceFormat::Nsys:
    case TraceFormat::Ncu:
    case TraceFormat::Counters:
    case TraceFormat::Folded:
    case TraceFormat::PerfScript:
    case TraceFormat::Otf2: return true;
    default: return false;
    }
}

ImportResult importFile(const std::filesystem::path& input, TraceFormat format,
    storage::TraceSink& sink, storage::StoreBuilder& builder, std::size_t index,
    const ImportContext& context, const storage::ProgressFn& progress)
{
    ImportReport report(builder, index, input, format);
    if (format == TraceFormat::Folded) {
        const storage::FoldedImportStats stats = storage::importFolded(input, sink, progress);
        for (const auto& [name, value] : {std::pair<std::string_view, std::uint64_t>{"lines", stats.lines},
                                          {"stack_lines", stats.stackLines}, {"samples", stats.samples},
                                          {"total_count", stats.totalCount}, {"max_depth", stats.maxDepth}})
            report.row(name, value);
    } else if (format == TraceFormat::PerfScript) {
        const storage::PerfImportStats stats = storage::importPerfScript(input, sink, progress);
        for (const auto& [name, value] :
             {std::pair<std::string_view, std::uint64_t>{"lines", stats.lines}, {"samples", stats.samples},
              {"frames", stats.frames}, {"max_depth", stats.maxDepth}, {"empty_stacks", stats.emptyStacks},
              {"unknown_frames", stats.unknownFrames}, {"threads", stats.threads}})
            report.row(name, value);
        report.warnings(stats.warnings);
    } else if (format == TraceFormat::Nsys) {
        const storage::NsysImportStats stats = storage::importNsys(input, sink, progress);
        for (const auto& [name, value] :
             {std::pair<std::string_view, std::uint64_t>{"kernels", stats.kernels}, {"memcpys", stats.memcpys},
              {"memsets", stats.memsets}, {"api_calls", stats.apiCalls}, {"nvtx_ranges", stats.nvtxRanges},
              {"nvtx_marks", stats.nvtxMarks}, {"osrt_calls", stats.osrtCalls},
              {"gpu_metric_samples", stats.gpuMetricSamples}, {"flows", stats.flows},
              {"backtrace_rows_skipped", stats.backtraceRows}, {"nvtx_unclosed_skipped", stats.nvtxUnclosed},
              {"gpu_ops_without_call", stats.gpuOpsWithoutCall}, {"negative_durations", stats.negativeDurations}})
            report.row(name, value);
        report.warnings(stats.warnings);
    } else if (format == TraceFormat::Paraver) {
        storage::ParaverImportOptions options;
        options.threads = context.scanThreads;
        reportParaver(report, storage::importParaver(input, sink, options, progress));
    } else if (format == TraceFormat::Otf2) {
        const storage::Otf2ImportStats stats = storage::importOtf2(input, sink, progress);
        for (const auto& [name, value] :
             {std::pair<std::string_view, std::uint64_t>{"events", stats.events}, {"intervals", stats.intervals},
              {"flows", stats.flows}, {"counter_samples", stats.counterSamples}, {"instants", stats.instants},
              {"unmatched_leaves", stats.unmatchedLeaves}, {"unclosed_enters", stats.unclosedEnters},
              {"unmatched_sends", stats.unmatchedSends}, {"unmatched_receives", stats.unmatchedReceives},
              {"skipped_leaves", stats.skippedLeaves}, {"backward_times", stats.backwardTimes},
              {"unknown_metrics", stats.unknownMetrics}, {"unresolved_peers", stats.unresolvedPeers}})
            report.row(name, value);
        report.warnings(stats.warnings);
    } else if (format == TraceFormat::Ncu) {
        const auto* kernels = context.recorder && !context.recorder->kernels().empty()
                                  ? &context.recorder->kernels()
                                  : nullptr;
        const storage::NcuImportStats stats = storage::importNcuCsv(input, sink, kernels);
        for (const auto& [name, value] :
             {std::pair<std::string_view, std::uint64_t>{"kernels", stats.kernels}, {"joined", stats.joined},
              {"not_joined", stats.unjoined}, {"joined_by_correlation", stats.joinedByCorrelation},
              {"joined_by_base_name", stats.joinedByBaseName}, {"launch_mismatches", stats.launchMismatches},
              {"kernel_metrics", stats.kernelMetrics}, {"counter_samples", stats.counterSamples},
              {"non_numeric_cells", stats.nonNumericCells}})
            report.row(name, value);
        report.warnings(stats.warnings);
    } else if (format == TraceFormat::Counters) {
        storage::CounterLogOptions options;
        options.originNs = context.recorder ? context.recorder->originNs() : std::nullopt;
        const storage::CounterLogStats stats = storage::importCounterLog(input, sink, options, progress);
        for (const auto& [name, value] :
             {std::pair<std::string_view, std::uint64_t>{"rows", stats.rows}, {"samples", stats.samples},
              {"counter_tracks", stats.counterTracks}, {"empty_cells", stats.emptyCells},
              {"non_numeric_cells", stats.nonNumericCells}, {"ragged_rows", stats.raggedRows}})
            report.row(name, value);
        report.warnings(stats.warnings);
    } else {
        storage::ChromeImportOptions importOptions;
        if (context.rank >= 0)
            importOptions.rank = context.rank;
        importOptions.originNs = context.originNs;
        importOptions.threads = context.scanThreads;
        if (context.chromePrescans && index < context.chromePrescans->size())
            importOptions.prescan = (*context.chromePrescans)[index];
        const storage::ImportStats stats =
            storage::importChromeJson(input, sink, importOptions, progress);
        ImportResult result = reportChrome(report, stats);
        result.originNs = stats.originNs;
        return result;
    }
    return report.take({});
}

ImportResult reportChromeImport(const storage::ImportStats& stats, const std::filesystem::path& input,
                                storage::TraceSink& sink, std::size_t index)
{
    ImportReport report(sink, index, input, TraceFormat::Chrome);
    return reportChrome(report, stats);
}

ImportResult reportParaverImport(const storage::ParaverImportStats& stats,
    const std::filesystem::path& input, storage::TraceSink& sink, std::size_t index)
{
    ImportReport report(sink, index, input, TraceFormat::Paraver);
    reportParaver(report, stats);
    return report.take({});
}

} // namespace strata::app
