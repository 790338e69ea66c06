#include "app/arg_parser.h"
#include "app/commands.h"
#include "app/progress_bar.h"
#include "model/json_text.h"
#include "storage/store/run_manifest.h"
#include "storage/store/store_reader.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace strata::app {

namespace {

struct EventTotals
{
    std::int64_t intervals = 0, instants = 0, counters = 0, flows = 0, samples = 0;
    std::int64_t all() const { return intervals + instants + counters + flows + samples; }
};

EventTotals totals(const storage::StoreReader& store)
{
    EventTotals t;
    for (const model::TrackInfo& track : store.resources().tracks()) {
        const storage::TrackSummary& s = store.summary(track.id);
        t.intervals += s.intervals;
        t.instants += s.instants;
        t.counters += s.counters;
        t.flows += s.flows;
        t.samples += s.samples;
    }
    return t;
}

std::string categoryName(const storage::StoreReader& store, model::StringId id)
{
    const std::string_view name = store.strings().text(id);
    return name.empty() ? std::string("(none)") : std::string(name);
}

/// The categories by name: a run's string ids follow its shards, and one trace split
/// between shards (strata-mpi) interns its names in another order than one store.
std::vector<std::pair<std::string, storage::CategoryTotals>> categoriesByName(const storage::StoreReader& store)
{
    std::vector<std::pair<std::string, storage::CategoryTotals>> out;
    for (const auto& [category, c] : store.categories())
        out.emplace_back(categoryName(store, category), c);
    std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    return out;
}

void printJson(const storage::StoreReader& store, std::uintmax_t storeBytes, std::optional<std::size_t> verified)
{
    const EventTotals t = totals(store);
    std::string out = "{";
    out += "\"store\":" + model::jsonString(store.path().string());
    out += ",\"format_version\":" + store.meta("format_version").value_or("0");
    out += ",\"tracks\":" + std::to_string(store.resources().size());
    out += ",\"span_ns\":" + std::to_string(store.span().durationNs());
    out += ",\"span_start_ns\":" + std::to_string(store.span().startNs);
    out += ",\"span_end_ns\":" + std::to_string(store.span().endNs);
    out += ",\"events\":{\"total\":" + std::to_string(t.all())
           + ",\"interval\":" + std::to_string(t.intervals) + ",\"instant\":" + std::to_string(t.instants)
           + ",\"counter\":" + std::to_string(t.counters) + ",\"flow\":" + std::to_string(t.flows)
           + ",\"sample\":" + std::to_string(t.samples) + "}";
    out += ",\"intervals_by_category\":{";
    bool first = true;
    for (const auto& [category, c] : categoriesByName(store)) {
        if (!first)
            out += ",";
        first = false;
        model::appendJsonString(out, category);
        out += ":{\"count\":" + std::to_string(c.intervals) + ",\"total_ns\":" + std::to_string(c.totalNs) + "}";
    }
    out += "}";
    const model::LodGrid& g = store.grid();
    out += ",\"levels\":{\"summary_levels\":" + std::to_string(g.levels)
           + ",\"base_bucket_ns\":" + std::to_string(g.baseBucketNs)
           + ",\"factor\":" + std::to_string(1 << g.factorLog2)
           + ",\"coarsest_bucket_ns\":" + std::to_string(g.bucketNs(g.levels)) + "}";
    out += ",\"store_bytes\":" + std::to_string(storeBytes);
    out += ",\"shards\":[";
    for (std::size_t i = 0; i < store.shards().size(); ++i) {
        const storage::ShardInfo& shard = store.shards()[i];
        out += i ? ",{" : "{";
        out += "\"path\":" + model::jsonString(shard.path.string());
        out += ",\"tracks\":" + std::to_string(shard.tracks) + ",\"events\":" + std::to_string(shard.events)
               + ",\"bytes\":" + std::to_string(shard.bytes) + "}";
    }
    out += "]";
    if (verified)
        out += ",\"verified_shards\":" + std::to_string(*verified);
    out += ",\"meta\":{";
    first = true;
    for (const auto& [k, v] : store.allMeta()) {
        if (!first)
            out += ",";
        first = false;
        model::appendJsonString(out, k);
        out += ":";
        model::appendJsonString(out, v);
    }
    out += "}}\n";
    std::fputs(out.c_str(), stdout);
}

/// The import report the ingest left in the meta ("import.N.file", "import.N.ROW",
/// "import.N.warning.NNN"):
/// per input file, what its importer read and the anomalies it counted.
void printImportReport(const storage::StoreReader& store)
{
    const auto& meta = store.allMeta();
    for (int i = 0;; ++i) {
        const std::string prefix = "import." + std::to_string(i) + ".";
        const auto file = meta.find(prefix + "file");
        if (file == meta.end())
            return;
        const auto format = meta.find(prefix + "format");
        std::printf("\nimport of %s (%s)\n", file->second.c_str(),
                    format == meta.end() ? "?" : format->second.c_str());
        std::vector<std::string> warnings;  // "warning.NNN", in order
        for (auto it = meta.lower_bound(prefix); it != meta.end() && it->first.starts_with(prefix); ++it) {
            const std::string row = it->first.substr(prefix.size());
            if (row.starts_with("warning."))
                warnings.push_back(it->second);
            else if (row != "file" && row != "format")
                std::printf("  %-30s %14s\n", row.c_str(), it->second.c_str());
        }
        for (const std::string& warning : warnings)
            std::printf("  warning: %s\n", warning.c_str());
    }
}

void printTable(const storage::StoreReader& store, std::uintmax_t storeBytes, std::optional<std::size_t> verified)
{
    const EventTotals t = totals(store);
    std::printf("store        %s (%.2f MB, format %s)\n", store.path().c_str(), storeBytes / 1e6,
                store.meta("format_version").value_or("?").c_str());
    if (auto source = store.meta("source"))
        std::printf("source       %s\n", source->c_str());
    std::printf("span         %s (%lld .. %lld ns)\n", model::formatDuration(store.span().durationNs()).c_str(),
                static_cast<long long>(store.span().startNs), static_cast<long long>(store.span().endNs));
    std::printf("tracks       %zu\n", store.resources().size());
    if (verified)
        std::printf("verified     %s\n",
                    *verified ? (std::to_string(*verified) + " shards match the manifest's checksums").c_str()
                              : "a single store: each tile's checksum is checked when it is read");
    if (store.isRun()) {
        std::printf("shards       %zu\n", store.shards().size());
        for (const storage::ShardInfo& shard : store.shards())
            std::printf("  %s: %zu tracks, %lld events, %.2f MB\n", shard.path.c_str(), shard.tracks,
                        static_cast<long long>(shard.events), static_cast<double>(shard.bytes) / 1e6);
    }
    std::printf("events       %lld: %lld intervals, %lld instants, %lld counter samples, %lld flows, %lld stack samples\n",
                static_cast<long long>(t.all()), static_cast<long long>(t.intervals),
                static_cast<long long>(t.instants), static_cast<long long>(t.counters),
                static_cast<long long>(t.flows), static_cast<long long>(t.samples));
    if (t.all() > 0)
        std::printf("bytes/event  %.2f\n", static_cast<double>(storeBytes) / static_cast<double>(t.all()));
    const model::LodGrid& g = store.grid();
    std::printf("levels       %d summary levels, buckets %s .. %s (x%d)\n", g.levels,
                model::formatDuration(g.bucketNs(1)).c_str(), model::formatDuration(g.bucketNs(g.levels)).c_str(),
                1 << g.factorLog2);
    std::printf("\n%-32s %12s %14s\n", "category", "intervals", "total time");
    for (const auto& [category, c] : categoriesByName(store)) {
        std::printf("%-32s %12lld %14s\n", category.c_str(),
                    static_cast<long long>(c.intervals), model::formatDuration(c.totalNs).c_str());
    }
    printImportReport(store);
}

} // namespace

int infoCommand(const Args& args)
{
    ArgParser p(args, {}, {"--json", "--verify"});
    if (p.positional().size() != 1)
        throw UsageError{"info needs exactly one STORE"};
    storage::StoreReader store(p.positional()[0]);
    const auto bytes = storage::storeBytes(store.path());
    std::optional<std::size_t> verified;
    if (p.flag("--verify")) {
        // Before printing anything: an altered shard ends the command with its error.
        ProgressBar bar("verifying", "B");
        verified = store.verifyShards(bar.callback());
    }
    if (p.flag("--json"))
        printJson(store, bytes, verified);
    else
        printTable(store, bytes, verified);
    return kExitOk;
}

} // namespace strata::app
