#include "app/arg_parser.h"
#include "app/commands.h"
#include "app/progress_bar.h"
#include "storage/chrome_json_importer.h"
#include "storage/format_detect.h"
#include "storage/input_error.h"
#include "storage/otf2_importer.h"
#include "storage/paraver_importer.h"
#include "storage/store_builder.h"

#include <algorithm>
#include <chrono>
#include <optional>
#include <cstdio>
#include <filesystem>

namespace strata::app {

int ingestCommand(const Args& args)
{
    ArgParser p(args, {"-o", "--output", "--format", "--threads"}, {});
    const auto output = p.value("-o") ? p.value("-o") : p.value("--output");
    if (p.positional().empty() || !output)
        throw UsageError{"ingest needs INPUT... and -o STORE"};
    const std::string formatText = p.valueOr("--format", "auto");
    std::optional<storage::TraceFormat> forced;
    if (formatText != "auto") {
        forced = storage::parseFormatName(formatText);
        if (!forced || *forced == storage::TraceFormat::Unknown)
            throw UsageError{"unknown --format '" + formatText + "'"};
    }
    const int threads = static_cast<int>(p.integer("--threads", 2, 1, 256));

    const auto started = std::chrono::steady_clock::now();
    storage::StoreBuildOptions options;
    options.threads = threads;
    ProgressBar bar("tiling");
    options.progress = bar.callback();
    storage::StoreBuilder builder(*output, options);
    std::uintmax_t inputBytes = 0;
    std::string sources;
    const auto& inputs = p.positional();
    for (const std::filesystem::path input : inputs) {
        std::error_code ec;
        // An OTF2 archive may be given as its folder.
        if (!std::filesystem::is_regular_file(input, ec) && !std::filesystem::is_directory(input, ec))
            throw storage::InputError(input.string() + ": no such file");
        if (std::filesystem::is_regular_file(input, ec))
            inputBytes += std::filesystem::file_size(input);
        const storage::TraceFormat format = forced ? *forced : storage::detectFormat(input);
        if (format == storage::TraceFormat::Unknown)
            throw storage::InputError::atByte(input.string(), 0,
                                              "expected a trace (Chrome/Kineto JSON, Paraver, nsys, ncu, counters "
                                              "CSV, folded stacks, perf script, OTF2): format not recognised");
        if (format != storage::TraceFormat::Chrome && format != storage::TraceFormat::Paraver
            && format != storage::TraceFormat::Otf2)
            throw storage::InputError(input.string() + ": format '" + std::string(storage::formatName(format))
                                      + "' detected; it is not supported yet");
    }
    // Several Chrome files are ranks of one run: align them on the earliest origin.
    std::optional<model::TimeNs> origin;
    if (inputs.size() > 1) {
        for (const std::filesystem::path input : inputs) {
            if (!forced && storage::detectFormat(input) != storage::TraceFormat::Chrome)
                continue;
            if (const auto o = storage::chromeTraceOriginNs(input))
                origin = origin ? std::min(*origin, *o) : *o;
        }
    }
    for (std::size_t i = 0; i < inputs.size(); ++i) {
        const std::filesystem::path input = inputs[i];
        ProgressBar readBar("reading " + input.filename().string());
        if ((forced ? *forced : storage::detectFormat(input)) == storage::TraceFormat::Paraver) {
            const storage::ParaverImportStats stats = storage::importParaver(input, builder, readBar.callback());
            for (const std::string& warning : stats.warnings)
                std::fprintf(stderr, "%s: warning: %s\n", input.c_str(), warning.c_str());
            sources += (sources.empty() ? "" : ";") + input.string();
            continue;
        }
        if ((forced ? *forced : storage::detectFormat(input)) == storage::TraceFormat::Otf2) {
            const storage::Otf2ImportStats stats = storage::importOtf2(input, builder, readBar.callback());
            for (const std::string& warning : stats.warnings)
                std::fprintf(stderr, "%s: warning: %s\n", input.c_str(), warning.c_str());
            sources += (sources.empty() ? "" : ";") + input.string();
            continue;
        }
        storage::ChromeImportOptions importOptions;
        if (inputs.size() > 1)
            importOptions.rank = static_cast<int>(i);
        importOptions.originNs = origin;
        const storage::ImportStats stats = storage::importChromeJson(input, builder, importOptions, readBar.callback());
        for (const std::string& warning : stats.warnings)
            std::fprintf(stderr, "%s: warning: %s\n", input.c_str(), warning.c_str());
        sources += (sources.empty() ? "" : ";") + input.string();
    }
    builder.setMeta("source", sources);
    builder.finish();
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    std::fprintf(stderr, "ingested %llu events from %zu file(s) (%.1f MB) into %s (%.1f MB) in %.2f s\n",
                 static_cast<unsigned long long>(builder.eventCount()), inputs.size(), inputBytes / 1e6,
                 output->c_str(), std::filesystem::file_size(*output) / 1e6, seconds);
    return kExitOk;
}

} // namespace strata::app
