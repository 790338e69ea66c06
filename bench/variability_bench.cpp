#include "bench/variability_bench.h"

#include "storage/analysis/variability.h"
#include "storage/store/store_builder.h"
#include "storage/synth/synthetic_trace.h"

#include "bench/bench_support.h"

#include <filesystem>

namespace strata::bench {

namespace {

std::vector<model::TrackId> activeTracks(const storage::StoreReader& store)
{
    std::vector<model::TrackId> out;
    for (const model::TrackInfo& t : store.resources().tracks()) {
        if (store.summary(t.id).intervals > 0 || store.summary(t.id).counters > 0)
            out.push_back(t.id);
    }
    return out;
}

/// Whole-run report (the top 10 names, as `strata variability`): [seconds, peak RSS MB,
/// intervals read].
std::vector<double> wholeRun(const std::filesystem::path& path)
{
    const auto start = Clock::now();
    storage::StoreReader store(path);
    storage::computeVariability(store, {});
    double intervals = 0;
    for (const model::TrackInfo& t : store.resources().tracks())
        intervals += static_cast<double>(store.summary(t.id).intervals);
    return { msSince(start) / 1000.0, peakRssMb(), intervals };
}

/// Two partials over halves of the tracks, merged, then finished: [seconds, peak RSS MB].
std::vector<double> mergedHalves(const std::filesystem::path& path)
{
    const auto start = Clock::now();
    storage::StoreReader store(path);
    const std::vector<model::TrackId> tracks = activeTracks(store);
    const auto half = static_cast<std::ptrdiff_t>(tracks.size() / 2);
    const model::TimeRange run = store.activitySpan();
    const model::TimeRange read { run.startNs, run.endNs + 1 };
    storage::VariabilityPartial a, b;
    a.collect(store, std::span(tracks.begin(), tracks.begin() + half), read);
    b.collect(store, std::span(tracks.begin() + half, tracks.end()), read);
    a.merge(std::move(b));
    storage::VariabilityRequest request;
    request.window = run;
    storage::finishVariability(std::move(a), store.resources(), request);
    return { msSince(start) / 1000.0, peakRssMb() };
}

}  // namespace

std::vector<Metric> runVariabilityBench(
    const VariabilityBenchOptions& options, void (*report)(const Metric&))
{
    MetricLog emit { report, {} };
    const std::filesystem::path dir = scratchFolder("strata-variability-bench");
    std::filesystem::path store = options.store;
    std::string caseName = "store";
    if (store.empty()) {
        caseName = "synth" + std::to_string(options.events / 1'000'000) + "M";
        store = dir / (caseName + ".strata");
        const auto build = inChild([&] {
            const auto start = Clock::now();
            storage::StoreBuilder builder(store);
            storage::SynthOptions synth;
            synth.events = static_cast<std::uint64_t>(options.events);
            synth.ranks = 8;
            storage::generateSyntheticTrace(synth, builder);
            builder.finish();
            return std::vector<double> { msSince(start) / 1000.0 };
        });
        emit({ "variability_store_build_s", build[0], "s", caseName });
    }
    std::vector<double> seconds, rss, mergedSeconds, mergedRss;
    double intervals = 0;
    for (int i = 0; i < options.runs; ++i) {
        const auto whole = inChild([&] { return wholeRun(store); });
        seconds.push_back(whole[0]);
        rss.push_back(whole[1]);
        intervals = whole[2];
        const auto merged = inChild([&] { return mergedHalves(store); });
        mergedSeconds.push_back(merged[0]);
        mergedRss.push_back(merged[1]);
    }
    emit({ "variability_intervals", intervals, "intervals", caseName });
    emit({ "variability_whole_run_s", percentile(seconds, 0.5), "s", caseName });
    emit({ "variability_peak_rss_mb", percentile(rss, 0.5), "MB", caseName });
    emit({ "variability_merged_halves_s", percentile(mergedSeconds, 0.5), "s", caseName });
    emit({ "variability_merged_peak_rss_mb", percentile(mergedRss, 0.5), "MB", caseName });
    std::filesystem::remove_all(dir);
    return std::move(emit.metrics);
}

}  // namespace strata::bench
