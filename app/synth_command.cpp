#include "app/arg_parser.h"
#include "app/commands.h"
#include "app/output_guard.h"
#include "app/progress_bar.h"
#include "storage/export/chrome_json_writer.h"
#include "storage/export/paraver_writer.h"
#include "storage/store/run_builder.h"
#include "storage/store/run_manifest.h"
#include "storage/store/shard_router.h"
#include "storage/synth/synthetic_trace.h"

#include <cstdio>
#include <filesystem>

namespace strata::app {

namespace {

constexpr std::uint64_t kEventsPerShard = 64'000'000;

} // namespace

int synthCommand(const Args& args)
{
    ArgParser p(args, {"-o", "--output", "--events", "--ranks", "--seed", "--shards"}, {});
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
        // Big runs are built as shards of whole nodes: about kEventsPerShard events each.
        const int roots = storage::syntheticRootCount(options);
        const auto byEvents = static_cast<std::int64_t>((options.events + kEventsPerShard - 1) / kEventsPerShard);
        const int wanted = static_cast<int>(p.integer("--shards", std::min<std::int64_t>(byEvents, roots), 1, 4096));
        const int rootsPerShard = (roots + std::min(wanted, roots) - 1) / std::min(wanted, roots);
        storage::RunBuildOptions runOptions;
        runOptions.shards = (roots + rootsPerShard - 1) / rootsPerShard;
        ProgressBar tiling("tiling", "tracks");
        runOptions.progress = tiling.callback();
        storage::RunBuilder run(path, runOptions);
        storage::ShardRouter router(run, rootsPerShard);
        storage::generateSyntheticTrace(options, router, bar.callback());
        run.finish();
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
    std::fprintf(stderr, "wrote %s (%.1f MB)\n", path.c_str(), storage::storeBytes(path) / 1e6);
    return kExitOk;
}

} // namespace strata::app
