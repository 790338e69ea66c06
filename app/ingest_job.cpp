#include "app/ingest_job.h"

#include "storage/chrome_json_importer.h"
#include "storage/folded_importer.h"
#include "storage/perf_script_importer.h"
#include "storage/input_error.h"
#include "storage/nsys_importer.h"
#include "storage/paraver_importer.h"
#include "storage/store_builder.h"

#include <algorithm>
#include <chrono>

namespace strata::app {

namespace {

using storage::TraceFormat;

TraceFormat formatOf(const IngestRequest& request, const std::filesystem::path& input)
{
    return request.format ? *request.format : storage::detectFormat(input);
}

storage::ProgressFn phase(const IngestProgress& progress, std::string name)
{
    if (!progress)
        return {};
    return [progress, name = std::move(name)](std::uint64_t done, std::uint64_t total) {
        return progress(name, done, total);
    };
}

/// The import report of one file, kept in the store's meta.
class ImportReport
{
public:
    ImportReport(storage::StoreBuilder& builder, std::size_t index, const std::filesystem::path& input,
                 TraceFormat format)
        : m_builder(builder)
        , m_prefix("import." + std::to_string(index) + ".")
    {
        m_builder.setMeta(m_prefix + "file", input.string());
        m_builder.setMeta(m_prefix + "format", std::string(storage::formatName(format)));
    }
    void row(std::string_view name, std::uint64_t value)
    {
        if (value > 0)
            m_builder.setMeta(m_prefix + std::string(name), std::to_string(value));
    }
    void warnings(const std::filesystem::path& input, const std::vector<std::string>& lines, IngestSummary& summary)
    {
        for (const std::string& line : lines)
            summary.warnings.push_back(input.string() + ": warning: " + line);
        row("warnings", lines.size());
    }

private:
    storage::StoreBuilder& m_builder;
    std::string m_prefix;
};

} // namespace

std::string sourceSignature(const std::vector<std::filesystem::path>& inputs)
{
    std::string signature;
    for (const std::filesystem::path& input : inputs) {
        std::error_code ec;
        const auto size = std::filesystem::file_size(input, ec);
        const auto time = std::filesystem::last_write_time(input, ec).time_since_epoch().count();
        signature += std::filesystem::absolute(input).string() + "|" + std::to_string(size) + "|"
                     + std::to_string(time) + ";";
    }
    return signature;
}

void checkInputs(const IngestRequest& request)
{
    for (const std::filesystem::path& input : request.inputs) {
        std::error_code ec;
        if (!std::filesystem::is_regular_file(input, ec))
            throw storage::InputError(input.string() + ": no such file");
        const TraceFormat format = formatOf(request, input);
        if (format == TraceFormat::Unknown)
            throw storage::InputError::atByte(input.string(), 0,
                                              "expected a trace (Chrome/Kineto JSON, Paraver, nsys, ncu, counters "
                                              "CSV, folded stacks, perf script, OTF2): format not recognised");
        if (format != TraceFormat::Chrome && format != TraceFormat::Paraver && format != TraceFormat::Nsys
            && format != TraceFormat::Folded && format != TraceFormat::PerfScript)
            throw storage::InputError(input.string() + ": format '" + std::string(storage::formatName(format))
                                      + "' detected; it is not supported yet");
    }
}

IngestSummary ingestTraces(const IngestRequest& request, const IngestProgress& progress)
{
    const auto started = std::chrono::steady_clock::now();
    checkInputs(request);
    IngestSummary summary;
    storage::StoreBuildOptions options;
    options.threads = request.threads;
    options.progress = phase(progress, "tiling");
    storage::StoreBuilder builder(request.output, options);

    // Several Chrome files are ranks of one run: align them on the earliest origin.
    const auto& inputs = request.inputs;
    std::optional<model::TimeNs> origin;
    if (inputs.size() > 1) {
        for (const std::filesystem::path& input : inputs) {
            if (formatOf(request, input) != TraceFormat::Chrome)
                continue;
            if (const auto o = storage::chromeTraceOriginNs(input))
                origin = origin ? std::min(*origin, *o) : *o;
        }
    }
    std::string sources;
    for (std::size_t i = 0; i < inputs.size(); ++i) {
        const std::filesystem::path& input = inputs[i];
        summary.inputBytes += std::filesystem::file_size(input);
        const TraceFormat format = formatOf(request, input);
        const storage::ProgressFn reading = phase(progress, "reading " + input.filename().string());
        ImportReport report(builder, i, input, format);
        if (format == TraceFormat::Folded) {
            const storage::FoldedImportStats stats = storage::importFolded(input, builder, reading);
            for (const auto& [name, value] : {std::pair<std::string_view, std::uint64_t>{"lines", stats.lines},
                                              {"stack_lines", stats.stackLines}, {"samples", stats.samples},
                                              {"total_count", stats.totalCount}, {"max_depth", stats.maxDepth}})
                report.row(name, value);
        } else if (format == TraceFormat::PerfScript) {
            const storage::PerfImportStats stats = storage::importPerfScript(input, builder, reading);
            for (const auto& [name, value] :
                 {std::pair<std::string_view, std::uint64_t>{"lines", stats.lines}, {"samples", stats.samples},
                  {"frames", stats.frames}, {"max_depth", stats.maxDepth}, {"empty_stacks", stats.emptyStacks},
                  {"unknown_frames", stats.unknownFrames}, {"threads", stats.threads}})
                report.row(name, value);
            report.warnings(input, stats.warnings, summary);
        } else if (format == TraceFormat::Nsys) {
            const storage::NsysImportStats stats = storage::importNsys(input, builder, reading);
            for (const auto& [name, value] :
                 {std::pair<std::string_view, std::uint64_t>{"kernels", stats.kernels}, {"memcpys", stats.memcpys},
                  {"memsets", stats.memsets}, {"api_calls", stats.apiCalls}, {"nvtx_ranges", stats.nvtxRanges},
                  {"nvtx_marks", stats.nvtxMarks}, {"osrt_calls", stats.osrtCalls},
                  {"gpu_metric_samples", stats.gpuMetricSamples}, {"flows", stats.flows},
                  {"backtrace_rows_skipped", stats.backtraceRows}, {"nvtx_unclosed_skipped", stats.nvtxUnclosed},
                  {"gpu_ops_without_call", stats.gpuOpsWithoutCall}, {"negative_durations", stats.negativeDurations}})
                report.row(name, value);
            report.warnings(input, stats.warnings, summary);
        } else if (format == TraceFormat::Paraver) {
            const storage::ParaverImportStats stats = storage::importParaver(input, builder, reading);
            for (const auto& [name, value] : {std::pair<std::string_view, std::uint64_t>{"lines", stats.lines},
                                              {"states", stats.states}, {"event_lines", stats.eventLines},
                                              {"event_pairs", stats.eventPairs}, {"communications", stats.communications},
                                              {"intervals", stats.intervals}, {"instants", stats.instants},
                                              {"counter_samples", stats.counterSamples}, {"flows", stats.flows},
                                              {"unmatched_ends", stats.unmatchedEnds},
                                              {"unclosed_begins", stats.unclosedBegins},
                                              {"ends_before_begin", stats.endsBeforeBegin},
                                              {"truncated", stats.truncated ? 1u : 0u}})
                report.row(name, value);
            report.warnings(input, stats.warnings, summary);
        } else {
            storage::ChromeImportOptions importOptions;
            if (inputs.size() > 1)
                importOptions.rank = static_cast<int>(i);
            importOptions.originNs = origin;
            const storage::ImportStats stats = storage::importChromeJson(input, builder, importOptions, reading);
            report.row("events", stats.totalEvents);
            for (const storage::ImportStatRow& row : stats.rows())
                report.row(row.name, row.value);
            report.warnings(input, stats.warnings, summary);
        }
        sources += (sources.empty() ? "" : ";") + input.string();
    }
    builder.setMeta("source", sources);
    builder.setMeta("source_signature", sourceSignature(inputs));
    builder.finish();
    summary.events = builder.eventCount();
    summary.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    return summary;
}

} // namespace strata::app
