#include "bench/flame_bench.h"

#include "storage/analysis/flame_query.h"
#include "storage/store/sqlite_db.h"
#include "storage/store/store_builder.h"
#include "storage/synth/synthetic_trace.h"

#include "bench/bench_support.h"

#include <cstdlib>
#include <filesystem>
#include <random>
#include <string>

namespace strata::bench {

namespace {

/// 16 threads of 1 kHz call-stack samples: a random call tree of ~4000 stacks up to 24
/// frames deep; each thread spends 90% of its samples on 64 hot stacks (Zipf-like).
void writeSampleStore(const std::filesystem::path& path, long long samples)
{
    storage::StoreBuilder builder(path);
    std::mt19937_64 rng(7);
    auto below = [&](std::uint64_t n) {
        return rng() % n;
    };
    std::vector<model::StackId> stacks { 0 };
    std::vector<int> depth { 0 };
    while (stacks.size() < 4000) {
        const std::size_t parent = below(stacks.size());
        if (depth[parent] >= 24)
            continue;
        const model::StringId frame = builder.strings().intern("fn_" + std::to_string(below(2000)));
        stacks.push_back(builder.internStack(stacks[parent], frame));
        depth.push_back(depth[parent] + 1);
    }
    constexpr int kThreads = 16;
    const auto process =
        builder.addTrack(model::kNoTrack, model::ResourceKind::Process, "train.py");
    std::vector<model::TrackId> threads;
    for (int t = 0; t < kThreads; ++t)
        threads.push_back(builder.addTrack(
            process, model::ResourceKind::Thread, "worker " + std::to_string(t), t, "cpu-clock"));
    std::vector<model::StackId> hot(64);
    for (auto& h : hot)
        h = stacks[1 + below(stacks.size() - 1)];
    const long long perThread = samples / kThreads;
    for (int t = 0; t < kThreads; ++t) {
        for (long long i = 0; i < perThread; ++i) {
            const std::uint64_t r = below(1000);
            const model::StackId stack = r < 900
                ? hot[std::min<std::uint64_t>(63, 64 * 64 / (1 + below(64 * 64)) - 1)]
                : stacks[below(stacks.size())];
            builder.addStackSample(threads[static_cast<std::size_t>(t)],
                { i * 1'000'000 + static_cast<model::TimeNs>(below(1000)), stack, 1 });
        }
    }
    builder.finish();
}

void writeNestedStore(const std::filesystem::path& path, long long events)
{
    storage::StoreBuilder builder(path);
    storage::SynthOptions synth;
    synth.events = static_cast<std::uint64_t>(events);
    synth.ranks = 8;
    storage::generateSyntheticTrace(synth, builder);
    builder.finish();
}

double flameShareOfStore(const std::filesystem::path& path)
{
    storage::SqliteDb db(path, storage::SqliteDb::Mode::ReadOnly);
    if (!db.hasTable("flame_bucket_groups"))
        return 0;  // no track has a pyramid
    auto stmt =
        db.prepare("SELECT (SELECT coalesce(sum(length(payload)), 0) FROM flame_bucket_groups)"
                   " + (SELECT coalesce(sum(length(payload)), 0) FROM flame_paths)");
    stmt.step();
    return static_cast<double>(stmt.int64(0))
        / static_cast<double>(std::filesystem::file_size(path));
}

/// {whole p50, whole p99, mid p50, mid p99} x {pyramid, exact}, and the nodes of the
/// whole-run tree; mid-zoom windows are 10% of the run at fixed pseudo-random places.
/// Pyramid and exact queries alternate (which goes first too), so both see the same
/// tile cache.
std::vector<double> measureQueries(const std::filesystem::path& path, int queries)
{
    storage::StoreReader reader(path);
    const model::TimeRange span = reader.span();
    std::vector<double> whole[2], mid[2];
    std::size_t nodes = 0;
    auto time = [&](std::vector<double>& into, bool pyramid, model::TimeRange window) {
        storage::FlameRequest request;
        request.usePyramid = pyramid;
        request.startNs = window.startNs;
        request.endNs = window.endNs;
        const auto start = Clock::now();
        nodes = storage::buildFlameTree(reader, request).size();
        into.push_back(msSince(start));
    };
    for (int i = 0; i < queries; ++i) {
        for (int k = 0; k < 2; ++k) {
            const bool pyramid = (i + k) % 2 == 0;
            if (pyramid || i < 5)  // the exact whole-run walk is slow: five suffice
                time(whole[pyramid ? 0 : 1], pyramid, { 0, 0 });
        }
    }
    const std::size_t wholeNodes = nodes;
    std::mt19937_64 rng(11);
    const model::TimeNs width = span.durationNs() / 10;
    for (int i = 0; i < queries; ++i) {
        const model::TimeNs start = span.startNs
            + static_cast<model::TimeNs>(
                rng() % static_cast<std::uint64_t>(span.durationNs() - width));
        for (int k = 0; k < 2; ++k) {
            const bool pyramid = (i + k) % 2 == 0;
            time(mid[pyramid ? 0 : 1], pyramid, { start, start + width });
        }
    }
    std::vector<double> out;
    for (int p = 0; p < 2; ++p) {
        out.insert(out.end(),
            { percentile(whole[p], 0.5), percentile(whole[p], 0.99), percentile(mid[p], 0.5),
                percentile(mid[p], 0.99) });
    }
    out.push_back(static_cast<double>(wholeNodes));
    return out;
}

}  // namespace

std::vector<Metric> runFlameBench(const FlameBenchOptions& options, void (*report)(const Metric&))
{
    const std::filesystem::path dir = scratchFolder("strata-flame-bench");
    MetricLog emit { report, {} };
    const std::string size = std::to_string(options.events / 1'000'000) + "M";
    for (const std::string kind : { "samples", "nested" }) {
        const std::string caseName = kind + size;
        const auto store = dir / (caseName + ".strata");
        const auto build = inChild([&] {
            const auto start = Clock::now();
            if (kind == "samples")
                writeSampleStore(store, options.events);
            else
                writeNestedStore(store, options.events);
            return std::vector<double> { msSince(start) / 1000.0, peakRssMb() };
        });
        emit({ "flame_build_s", build[0], "s", caseName });
        emit({ "flame_build_peak_rss_mb", build[1], "MB", caseName });
        emit({ "flame_pyramid_store_share", flameShareOfStore(store), "fraction", caseName });
        const auto q = inChild([&] { return measureQueries(store, options.queries); });
        const char* names[] = { "flame_whole_pyramid_p50_ms", "flame_whole_pyramid_p99_ms",
            "flame_mid_pyramid_p50_ms", "flame_mid_pyramid_p99_ms", "flame_whole_exact_p50_ms",
            "flame_whole_exact_p99_ms", "flame_mid_exact_p50_ms", "flame_mid_exact_p99_ms" };
        for (std::size_t i = 0; i < 8; ++i)
            emit({ names[i], q[i], "ms", caseName });
        emit({ "flame_whole_tree_nodes", q[8], "nodes", caseName });
        std::filesystem::remove(store);
    }
    std::filesystem::remove_all(dir);
    return std::move(emit.metrics);
}

}  // namespace strata::bench
