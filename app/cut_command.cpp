// `strata cut STORE -o OUT [--window T0:T1] [--tracks REGEX] [--filter EXPR] [--rebase]`:
// a sub-trace of a store (storage/export/trace_cut.h) as a new store, Chrome JSON or Paraver.
// The cut itself is app/cut_job.h (shared with the GUI's File > Export sub-trace).

#include "app/arg_parser.h"
#include "app/commands.h"
#include "app/cut_job.h"
#include "app/output_guard.h"
#include "app/progress_bar.h"
#include "model/filter_expression.h"
#include "storage/export/trace_cut.h"
#include "storage/store/store_reader.h"

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <regex>

namespace strata::app {

int cutCommand(const Args& args)
{
    ArgParser p(args, { "-o", "--output", "--window", "--tracks", "--filter" }, { "--rebase" });
    const auto output = p.value("-o") ? p.value("-o") : p.value("--output");
    if (p.positional().size() != 1 || !output)
        throw UsageError { "cut needs one STORE and -o OUT.strata|OUT.json|OUT.json.gz|OUT.prv" };
    const std::filesystem::path input = p.positional().front();
    if (!cutWritesTo(*output))
        throw UsageError{"cut writes .strata, .json, .json.gz or .prv, not '" + *output + "'"};

    storage::CutOptions options;
    options.rebase = p.flag("--rebase");
    if (const auto window = p.value("--window")) {
        options.window = model::parseTimeRange(*window);
        if (!options.window)
            throw UsageError {
                "--window wants T0:T1 with T0 < T1 (units: 12.5ms, 300us, 42ns, 2s), not '"
                + *window + "'"
            };
    }
    if (const auto tracks = p.value("--tracks")) {
        try {
            std::regex check(*tracks, std::regex::ECMAScript);
        } catch (const std::regex_error& e) {
            std::fprintf(stderr, "strata: --tracks: bad regular expression '%s': %s\n",
                tracks->c_str(), e.what());
            return kExitBadInput;
        }
        options.tracks = *tracks;
    }
    if (const auto filter = p.value("--filter")) {
        try {
            options.filter = model::FilterExpression::parse(*filter);
        } catch (const model::FilterSyntaxError& e) {
            std::fprintf(stderr, "strata: --filter: %s\n%s\n", e.what(),
                model::FilterSyntaxError::caretLines(*filter, e.column()).c_str());
            return kExitBadInput;
        }
    }

    checkOutputSparesInputs(*output, { input });
    if (std::filesystem::path(*output).extension() == ".strata")
        checkStoreOutputReplaceable(*output);

    const auto started = std::chrono::steady_clock::now();
    storage::StoreReader::Options readerOptions;
    readerOptions.cacheBytes = 8u << 20;  // the cut reads tiles uncached; queries are not made
    storage::StoreReader store(input, readerOptions);
    ProgressBar bar("cutting", "events");
    options.progress = bar.callback();
    const storage::CutStats stats = cutToFile(store, *output, options);
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    std::fprintf(stderr,
        "cut %llu events (%llu intervals, clipped: %llu at the start, %llu at the end; %llu "
        "filtered "
        "out) on %llu tracks into %s (%.1f MB) in %.2f s\n",
        static_cast<unsigned long long>(stats.events()),
        static_cast<unsigned long long>(stats.intervals),
        static_cast<unsigned long long>(stats.clippedAtStart),
        static_cast<unsigned long long>(stats.clippedAtEnd),
        static_cast<unsigned long long>(stats.filteredOut),
        static_cast<unsigned long long>(stats.tracks), output->c_str(),
        std::filesystem::file_size(*output) / 1e6, seconds);
    return kExitOk;
}

}  // namespace strata::app
