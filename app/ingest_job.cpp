#include "app/ingest_job.h"

#include "app/file_import.h"
#include "app/output_guard.h"
#include "storage/import/chrome/chrome_json_importer.h"
#include "storage/store/input_error.h"
#include "storage/store/store_builder.h"

#include <algorithm>
#include <chrono>
#include <cstdio>

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

} // namespace

std::string sourceSignature(const std::vector<std::filesystem::path>& inputs)
{
    std::string signature;
    for (const std::filesystem::path& input : inputs) {
        std::error_code ec;
        const auto size = std::filesystem::file_size(input, ec);
        const auto time = std::filesystem::last_write_time(input, ec).time_since_epoch().count();
        // Normalised, so "./x.json" and "x.json" are the same file.
        signature += std::filesystem::absolute(input).lexically_normal().string() + "|"
            + std::to_string(size) + "|" + std::to_string(time) + ";";
    }
    return signature;
}

void checkInputs(const IngestRequest& request)
{
    for (const std::filesystem::path& input : request.inputs) {
        std::error_code ec;
        // An OTF2 archive may be given as its folder.
        if (!std::filesystem::is_regular_file(input, ec) && !std::filesystem::is_directory(input, ec))
            throw storage::InputError(input.string() + ": no such file");
        const TraceFormat format = formatOf(request, input);
        if (format == TraceFormat::Strata)
            throw storage::InputError(input.string()
                + ": already a Strata store: open it as is (strata FILE), or cut it (strata cut)");
        if (format == TraceFormat::Unknown)
            throw storage::InputError::atByte(input.string(), 0,
                                              "expected a trace (Chrome/Kineto JSON, Paraver, nsys, ncu, counters "
                                              "CSV, folded stacks, perf script, OTF2): format not recognised");
        if (!isSupported(format))
            throw storage::InputError(input.string() + ": format '" + std::string(storage::formatName(format))
                                      + "' detected; it is not supported yet");
    }
}

IngestSummary ingestTraces(const IngestRequest& request, const IngestProgress& progress)
{
    const auto started = std::chrono::steady_clock::now();
    checkInputs(request);
    checkOutputSparesInputs(request.output, request.inputs);
    checkStoreOutputReplaceable(request.output);
    IngestSummary summary;
    storage::StoreBuildOptions options;
    options.threads = request.threads;
    options.progress = phase(progress, "tiling");
    storage::StoreBuilder builder(request.output, options);

    // Nsight Compute files and counter logs join to the traces, so they go after them,
    // whatever the argument order; a recorder between the importers and the builder
    // remembers the traces' kernels and origin for them.
    std::vector<std::filesystem::path> traces, joins;
    for (const std::filesystem::path& input : request.inputs)
        (joinsToTraces(formatOf(request, input)) ? joins : traces).push_back(input);
    storage::KernelRecorder recorder(builder);
    storage::TraceSink& sink = joins.empty() ? static_cast<storage::TraceSink&>(builder) : recorder;

    // Several Chrome files are ranks of one run: align them on the earliest origin.
    ImportContext context;
    if (traces.size() > 1) {
        for (const std::filesystem::path& input : traces) {
            if (formatOf(request, input) != TraceFormat::Chrome)
                continue;
            if (const auto o = storage::chromeTraceOriginNs(input))
                context.originNs = context.originNs ? std::min(*context.originNs, *o) : *o;
        }
    }
    std::string sources;
    std::size_t index = 0;
    for (const auto* group : {&traces, &joins}) {
        for (std::size_t i = 0; i < group->size(); ++i, ++index) {
            const std::filesystem::path& input = (*group)[i];
            std::error_code ec;
            if (std::filesystem::is_regular_file(input, ec))
                summary.inputBytes += std::filesystem::file_size(input);
            context.rank = group == &traces && traces.size() > 1 ? static_cast<int>(i) : -1;
            context.recorder = joins.empty() ? nullptr : &recorder;
            const std::uint64_t eventsBefore = builder.eventCount();
            ImportResult result = importFile(input, formatOf(request, input), sink, builder, index,
                context, phase(progress, "reading " + input.filename().string()));
            summary.warnings.insert(
                summary.warnings.end(), result.warnings.begin(), result.warnings.end());
            // A trace that gives nothing is an error, not an empty store over a good one
            // (the builder is not finished, so an existing store stays as it was). Files
            // that join to traces (counter logs, Nsight Compute) may add only metrics,
            // unless nothing at all came before the last of them.
            const bool nothing = group == &traces
                ? builder.eventCount() == eventsBefore
                : i + 1 == joins.size() && builder.eventCount() == 0;
            if (nothing)
                throw storage::InputError(
                    "no events in " + input.string() + ": " + result.noEventsReason);
            sources += (sources.empty() ? "" : ";") + input.string();
        }
    }
    builder.setMeta("source", sources);
    builder.setMeta("source_signature", sourceSignature(request.inputs));
    builder.finish();
    summary.events = builder.eventCount();
    summary.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    return summary;
}

std::string summaryLine(const IngestRequest& request, const IngestSummary& summary)
{
    std::error_code ec;
    const auto storeBytes = std::filesystem::file_size(request.output, ec);
    const auto print = [&](char* buffer, std::size_t size) {
        return std::snprintf(buffer, size,
            "ingested %llu events from %zu file(s) (%.1f MB) into %s (%.1f MB) in %.2f s",
            static_cast<unsigned long long>(summary.events), request.inputs.size(),
            static_cast<double>(summary.inputBytes) / 1e6, request.output.c_str(),
            ec ? 0.0 : static_cast<double>(storeBytes) / 1e6, summary.seconds);
    };
    std::string line(static_cast<std::size_t>(print(nullptr, 0)), '\0');
    print(line.data(), line.size() + 1);
    return line;
}

std::string_view phaseUnit(std::string_view phase)
{
    return phase.starts_with("reading ") ? "B" : "tracks";
}

} // namespace strata::app
