#include "app/arg_parser.h"
#include "app/commands.h"
#include "app/output_guard.h"
#include "app/progress_bar.h"
#include "storage/export/chrome_json_writer.h"
#include "storage/export/paraver_writer.h"
#include "storage/store/store_builder.h"
#include "storage/synth/synthetic_trace.h"

#include <cstdio>
#include <filesystem>

namespace strata::app {

int synthCommand(const Args& args)
{
    ArgParser p(args, {"-o", "--output", "--events", "--ranks", "--seed"}, {});
    const auto output = p.value("-o") ? p.value("-o") : p.value("--output");
    if (!output || !p.positional().empty())
        throw UsageError{
            "synth needs -o OUT.json|OUT.json.gz|OUT.prv|OUT.strata and no other argument"};
    storage::SynthOptions options;
    options.events = static_cast<std::uint64_t>(p.integer("--events", 100000, 1, 10'000'000'000LL));
    options.ranks = static_cast<int>(p.integer("--ranks", 4, 1, 100000));
    options.seed = static_cast<std::uint64_t>(p.integer("--seed", 1, 0, INT64_MAX));

    ProgressBar bar("generating", "events");
    const std::string path = *output;
    auto endsWith = [&](const char* suffix) { return path.ends_with(suffix); };
    if (endsWith(".strata")) {
        checkStoreOutputReplaceable(path);
        storage::StoreBuilder builder(path);
        storage::generateSyntheticTrace(options, builder, bar.callback());
        builder.finish();
    } else if (endsWith(".json") || endsWith(".json.gz")) {
        storage::ChromeJsonWriter writer(path);
        storage::generateSyntheticTrace(options, writer, bar.callback());
        writer.finish();
    } else if (endsWith(".prv")) {
        // Paraver: X.prv plus X.pcf and X.row beside it.
        storage::ParaverWriter writer(path);
        storage::generateSyntheticTrace(options, writer, bar.callback());
        writer.finish();
    } else {
        throw UsageError{"synth writes .json, .json.gz, .prv or .strata, not '" + path + "'"};
    }
    std::fprintf(stderr, "wrote %s (%.1f MB)\n", path.c_str(), std::filesystem::file_size(path) / 1e6);
    return kExitOk;
}

} // namespace strata::app
