#include "app/ingest_job.h"

#include "app/file_import.h"

#include "storage/import/chrome/chrome_json_importer.h"
#include "storage/store/input_error.h"
#include "storage/store/store_builder.h"

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
        // An OTF2 archive may be given as its folder.
        if (!std::filesystem::is_regular_file(input, ec) && !std::filesystem::is_directory(input, ec))
            throw storage::InputError(input.string() + ": no such file");
        const TraceFormat format = formatOf(request, input);
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
            const std::vector<std::string> warnings
                = importFile(input, formatOf(request, input), sink, builder, index, context,
                             phase(progress, "reading " + input.filename().string()));
            summary.warnings.insert(summary.warnings.end(), warnings.begin(), warnings.end());
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

} // namespace strata::app
