#include "bench/store_bench.h"

#include "app/allocator_tuning.h"
#include "storage/export/chrome_json_writer.h"
#include "storage/export/paraver_writer.h"
#include "storage/import/chrome/chrome_json_importer.h"
#include "storage/import/paraver/paraver_importer.h"
#include "storage/store/store_builder.h"
#include "storage/store/store_reader.h"
#include "storage/synth/synthetic_trace.h"

#include "bench/bench_support.h"
#include "bench/json_parse_bench.h"
#include "bench/frame_bench.h"
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <random>
#include <stdexcept>

namespace strata::bench {

namespace {

/// The frame-time phase (query + paint, 1920x1080) of one store, in a child process.
template<typename Emit>
void emitFrames(
    Emit& emit, const std::filesystem::path& store, const std::string& caseName, int frames)
{
    const auto f = inChild([&] { return measureFrames(store, frames); });
    emit({ "open_first_frame_ms", f[0], "ms", caseName });
    emit({ "frame_p50_ms", f[1], "ms", caseName });
    emit({ "frame_p99_ms", f[2], "ms", caseName });
    emit({ "frame_query_p99_ms", f[3], "ms", caseName });
    emit({ "frame_paint_p99_ms", f[4], "ms", caseName });
    emit({ "gui_peak_rss_mb", f[5], "MB", caseName });
}

/// Viewport query latency over the zoom/pan sequence (64 busiest tracks, 1920 px), in a
/// child process: {open_first_query_ms, p50, p99, peak RSS}. `detail`: Drawn is what the
/// timeline asks for a frame; Full what its legend and tooltips read after it.
std::vector<double> measureQueries(const std::filesystem::path& store, int queries,
    storage::CellDetail detail = storage::CellDetail::Drawn)
{
    return inChild([&] {
        app::keepLargeAllocationsInTheHeap();  // as the GUI does
        const auto openStart = Clock::now();
        storage::StoreReader reader(store);
        const auto tracks = viewportTracks(reader);
        const auto windows = viewportSequence(reader.span(), queries);
        reader.query({ tracks, windows[0].startNs, windows[0].endNs, 1920, 0, detail });
        const double openMs = msSince(openStart);
        std::vector<double> latencies;
        std::FILE* log = stepLog();
        if (log)
            std::fprintf(log, "open_query %.3f tiles_read %llu index_reads %llu\n", openMs,
                static_cast<unsigned long long>(reader.tileReads()),
                static_cast<unsigned long long>(reader.indexReads()));
        for (const model::TimeRange& w : windows) {
            const std::uint64_t tilesBefore = reader.tileReads();
            const auto t = Clock::now();
            const auto slices = reader.query({ tracks, w.startNs, w.endNs, 1920, 0, detail });
            latencies.push_back(msSince(t));
            if (log) {
                std::size_t intervals = 0, cells = 0, entries = 0;
                for (const storage::TrackSlice& s : slices) {
                    intervals += s.intervals.size();
                    cells += s.cells.size();
                    entries += s.entries.size();
                }
                std::fprintf(log,
                    "query %zu start %lld width %lld ms %.3f level %d tiles_read %llu intervals %zu"
                    " cells %zu entries %zu\n",
                    latencies.size() - 1, static_cast<long long>(w.startNs),
                    static_cast<long long>(w.durationNs()), latencies.back(),
                    slices.empty() ? -1 : slices.front().intervalLevel,
                    static_cast<unsigned long long>(reader.tileReads() - tilesBefore), intervals,
                    cells, entries);
            }
        }
        return std::vector<double> { openMs, percentile(latencies, 0.5),
            percentile(latencies, 0.99), peakRssMb() };
    });
}

/// The query phase then the frame phase of one store; returns the query figures.
template<typename Emit>
std::vector<double> emitQueriesAndFrames(
    Emit& emit, const std::filesystem::path& store, const std::string& caseName, int queries)
{
    const auto query = measureQueries(store, queries);
    emit({ "open_first_query_ms", query[0], "ms", caseName });
    emit({ "query_p50_ms", query[1], "ms", caseName });
    emit({ "query_p99_ms", query[2], "ms", caseName });
    emit({ "query_peak_rss_mb", query[3], "MB", caseName });
    const auto full = measureQueries(store, queries, storage::CellDetail::Full);
    emit({ "query_full_cells_p99_ms", full[2], "ms", caseName });
    emitFrames(emit, store, caseName, queries);
    return query;
}

/// Writes an 8-rank synthetic run of `events` with `Writer` (a child process: the
/// writer's memory is not the ingest's).
template<typename Writer>
void writeSynthetic(const std::filesystem::path& path, long long events, int ranks = 8, std::uint64_t seed = 1)
{
    inChild([&] {
        Writer writer(path);
        storage::SynthOptions synth;
        synth.events = static_cast<std::uint64_t>(events);
        synth.ranks = ranks;
        synth.seed = seed;
        storage::generateSyntheticTrace(synth, writer);
        writer.finish();
        return std::vector<double> {};
    });
}

/// Python's json.load over `files` in one process: the median of three runs' milliseconds
/// (0 when python3 is not there), and which Python ran ("3.11.2 /usr/bin/python3"): the
/// python3 first on the PATH, whose speed differs between builds of one version (a
/// pyenv 3.11.7 took 19 % longer than Debian's 3.11.2 on the same files).
struct PythonJsonLoad
{
    double ms = 0;
    std::string python;
};

PythonJsonLoad pythonJsonLoad(const std::vector<std::filesystem::path>& files)
{
    std::string command =
        "python3 -c 'import json, sys, time\nt = time.perf_counter()\n"
        "for f in sys.argv[1:]: json.load(open(f))\n"
        "print((time.perf_counter() - t) * 1000, sys.version.split()[0], sys.executable)'";
    for (const auto& f : files)
        command += " '" + f.string() + "'";
    command += " 2>/dev/null";
    std::vector<double> runs;
    PythonJsonLoad out;
    for (int i = 0; i < 3; ++i) {
        FILE* pipe = ::popen(command.c_str(), "r");
        if (!pipe)
            return {};
        double ms = 0;
        char version[64] = {};
        char executable[512] = {};
        // sys.executable may be empty (an embedded Python): the version alone then.
        const bool read = std::fscanf(pipe, "%lf %63s %511s", &ms, version, executable) >= 2;
        if (::pclose(pipe) != 0 || !read)
            return {};
        runs.push_back(ms);
        out.python = executable[0] ? std::string(version) + " " + executable : std::string(version);
    }
    out.ms = percentile(runs, 0.5);
    return out;
}

}  // namespace

std::vector<Metric> runStoreBench(const BenchOptions& options, void (*report)(const Metric&))
{
    std::vector<long long> counts = options.eventCounts;
    if (!options.store.empty())
        counts.clear();
    else if (counts.empty())
        counts = options.quick ? std::vector<long long> { 1'000'000, 10'000'000 }
                               : std::vector<long long> { 1'000'000, 10'000'000, 100'000'000 };
    const std::filesystem::path dir = scratchFolder("strata-bench");

    MetricLog emit { report, {} };
    std::vector<Metric>& metrics = emit.metrics;
    std::vector<double> p50s;
    double peakRss = 0;
    std::string largestCase;
    for (const long long events : counts) {
        const std::string caseName =
            events >= 1'000'000 ? std::to_string(events / 1'000'000) + "M" : std::to_string(events);
        const std::filesystem::path store = dir / (caseName + ".strata");
        largestCase = caseName;
        const auto build = inChild([&] {
            const auto start = Clock::now();
            storage::StoreBuilder builder(store);
            storage::SynthOptions synth;
            synth.events = static_cast<std::uint64_t>(events);
            synth.ranks = 16;
            storage::generateSyntheticTrace(synth, builder);
            builder.finish();
            const double ms = msSince(start);
            return std::vector<double> { static_cast<double>(builder.eventCount()), ms,
                peakRssMb() };
        });
        const double storeBytes = static_cast<double>(std::filesystem::file_size(store));
        emit({ "build_events_per_s", build[0] / (build[1] / 1000.0), "events/s", caseName });
        emit({ "store_bytes_per_event", storeBytes / build[0], "B", caseName });
        emit({ "build_peak_rss_mb", build[2], "MB", caseName });

        const auto query = emitQueriesAndFrames(emit, store, caseName, options.queries);
        emit({ "peak_rss_mb", std::max(build[2], query[3]), "MB", caseName });
        peakRss = std::max({ peakRss, build[2], query[3] });
        p50s.push_back(query[1]);
        std::filesystem::remove(store);
    }
    if (!options.store.empty()) {
        const std::filesystem::path store(options.store);
        largestCase = store.stem().string();
        peakRss = emitQueriesAndFrames(emit, store, largestCase, options.queries)[3];
    }
    // Ingest: a Kineto-style JSON file of about 500 MB (170 MB with --quick), parsed,
    // tiled, compressed and written, end to end.
    if (options.ingest && options.store.empty()) {
        const long long events = options.quick ? 1'000'000 : 3'000'000;
        const std::string caseName = options.quick ? "chrome-170MB" : "chrome-500MB";
        const std::filesystem::path json = dir / "trace.json";
        const std::filesystem::path store = dir / "ingested.strata";
        writeSynthetic<storage::ChromeJsonWriter>(json, events);
        const double jsonBytes = static_cast<double>(std::filesystem::file_size(json));
        // The app's ingest when it gave it (one file: its threads scan the file, then tile),
        // by one thread and by two; else the storage path on one thread.
        auto ingestWith = [&](int threads) {
            return medianRunInChild(options.ingestRuns, [&] {
                const auto start = Clock::now();
                double ingested = 0;
                if (options.ingestFiles) {
                    options.ingestFiles({ json }, store, threads);
                    const storage::StoreReader reader(store);  // shards() refers into it
                    for (const storage::ShardInfo& shard : reader.shards())
                        ingested += static_cast<double>(shard.events);
                } else {
                    storage::StoreBuilder builder(store);
                    storage::importChromeJson(json, builder);
                    builder.finish();
                    ingested = static_cast<double>(builder.eventCount());
                }
                return std::vector<double> { msSince(start), ingested, peakRssMb() };
            });
        };
        const auto ingest = ingestWith(2);
        emit(
            { "ingest_chrome_mb_per_s", jsonBytes / 1e6 / (ingest[0] / 1000.0), "MB/s", caseName });
        // The parsers alone, on the same file: the scanner the importer uses, and simdjson.
        if (const JsonParseRates parsers = measureJsonParsers(json); parsers.scannerMbPerS > 0) {
            if (parsers.scannerMembers != parsers.simdjsonMembers)
                throw std::runtime_error("json parse bench: the parsers saw different members");
            emit({ "json_scanner_mb_per_s", parsers.scannerMbPerS, "MB/s", caseName });
            emit({ "simdjson_ondemand_mb_per_s", parsers.simdjsonMbPerS, "MB/s", caseName });
        }
        if (options.ingestFiles) {
            const auto oneThread = ingestWith(1);
            emit({ "ingest_chrome_1_thread_mb_per_s", jsonBytes / 1e6 / (oneThread[0] / 1000.0), "MB/s",
                caseName });
            emit({ "ingest_chrome_2_over_1_threads", oneThread[0] / ingest[0], "ratio", caseName });
        }
        emit({ "ingest_chrome_events_per_s", ingest[1] / (ingest[0] / 1000.0), "events/s",
            caseName });
        emit({ "ingest_peak_rss_mb", ingest[2], "MB", caseName });
        emitFrames(emit, store, caseName, options.queries);
        emit({ "ingest_store_to_json_ratio",
            static_cast<double>(std::filesystem::file_size(store)) / jsonBytes, "ratio",
            caseName });
    }
    // Parallel ingest: the same Kineto-style run as two rank files (about 2 x 250 MB; 2 x
    // 85 MB with --quick), ingested as two shards by one worker, then by two, and Python's
    // json.load of the same files for scale.
    if (options.ingest && options.store.empty() && options.ingestFiles) {
        const long long events = options.quick ? 500'000 : 1'500'000;
        const std::string caseName = options.quick ? "chrome-2x85MB" : "chrome-2x250MB";
        std::vector<std::filesystem::path> ranks;
        double jsonBytes = 0;
        for (int r = 0; r < 2; ++r) {
            ranks.push_back(dir / ("rank" + std::to_string(r) + ".json"));
            writeSynthetic<storage::ChromeJsonWriter>(ranks.back(), events, 4, r + 1);
            jsonBytes += static_cast<double>(std::filesystem::file_size(ranks.back()));
        }
        double ms[3] = {};
        for (int workers = 1; workers <= 2; ++workers) {
            const auto ingest = medianRunInChild(options.ingestRuns, [&] {
                const auto start = Clock::now();
                options.ingestFiles(ranks, dir / "ranks.strata", workers);
                return std::vector<double> { msSince(start), peakRssMb() };
            });
            ms[workers] = ingest[0];
            emit({ "ingest_" + std::to_string(workers) + "_workers_mb_per_s", jsonBytes / 1e6 / (ingest[0] / 1000.0),
                "MB/s", caseName });
            emit({ "ingest_" + std::to_string(workers) + "_workers_peak_rss_mb", ingest[1], "MB", caseName });
        }
        emit({ "ingest_2_over_1_workers", ms[1] / ms[2], "ratio", caseName });
        if (const PythonJsonLoad python = pythonJsonLoad(ranks); python.ms > 0) {
            emit({ "python_json_load_mb_per_s", jsonBytes / 1e6 / (python.ms / 1000.0),
                "MB/s (Python " + python.python + ")", caseName });
            emit(
                { "ingest_2_workers_over_python_json_load", python.ms / ms[2], "ratio", caseName });
        }
    }
    // Paraver: a synthetic .prv (2M events, 4M+ records; 500k with --quick), ingested end
    // to end; the rate is in .prv records (lines) per second.
    if (options.ingest && options.store.empty()) {
        const long long events = options.quick ? 500'000 : 2'000'000;
        const std::string caseName = options.quick ? "paraver-500k" : "paraver-2M";
        const std::filesystem::path prv = dir / "trace.prv";
        const std::filesystem::path store = dir / "paraver.strata";
        writeSynthetic<storage::ParaverWriter>(prv, events);
        const auto ingest = medianRunInChild(options.ingestRuns, [&] {
            const auto start = Clock::now();
            storage::StoreBuilder builder(store);
            storage::ParaverImportOptions paraver;
            paraver.threads = storage::StoreBuildOptions {}.threads;  // the builder's
            const storage::ParaverImportStats stats = storage::importParaver(prv, builder, paraver);
            builder.finish();
            return std::vector<double> { msSince(start), static_cast<double>(stats.lines),
                peakRssMb() };
        });
        emit({ "ingest_paraver_records_per_s", ingest[1] / (ingest[0] / 1000.0), "records/s",
            caseName });
        emit({ "ingest_paraver_mb_per_s",
            static_cast<double>(std::filesystem::file_size(prv)) / 1e6 / (ingest[0] / 1000.0),
            "MB/s", caseName });
        emit({ "ingest_peak_rss_mb", ingest[2], "MB", caseName });
    }
    std::filesystem::remove_all(dir);
    if (p50s.size() >= 2) {
        const std::string name = counts.back() == 100'000'000 && counts.front() == 1'000'000
            ? "query_ratio_100m_1m"
            : "query_ratio_largest_smallest";
        emit({ name, p50s.back() / std::max(p50s.front(), 1e-6), "ratio", "" });
    }
    // Headlines: the largest case.
    for (const Metric& m : std::vector<Metric>(metrics)) {
        if (m.caseName == largestCase && m.name != "peak_rss_mb")
            emit({ m.name, m.value, m.unit, "" });
    }
    emit({ "peak_rss_mb", peakRss, "MB", "" });
    return metrics;
}

}  // namespace strata::bench
