#include "bench/store_bench.h"

#include "app/allocator_tuning.h"

#include "storage/chrome_json_importer.h"
#include "storage/chrome_json_writer.h"
#include "storage/store_builder.h"
#include "storage/store_reader.h"
#include "storage/synthetic_trace.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <random>
#include <stdexcept>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

namespace strata::bench {

namespace {

using Clock = std::chrono::steady_clock;

double msSince(Clock::time_point start)
{
    return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

double peakRssMb()
{
    rusage usage{};
    getrusage(RUSAGE_SELF, &usage);
    return static_cast<double>(usage.ru_maxrss) / 1024.0;
}

double percentile(std::vector<double> v, double p)
{
    if (v.empty())
        return 0;
    std::sort(v.begin(), v.end());
    const double rank = p * static_cast<double>(v.size() - 1);
    const auto lo = static_cast<std::size_t>(rank);
    const auto hi = std::min(lo + 1, v.size() - 1);
    return v[lo] + (v[hi] - v[lo]) * (rank - static_cast<double>(lo));
}

/// Runs `fn` in a child process and returns the doubles it writes to the pipe.
template<typename Fn>
std::vector<double> inChild(Fn fn)
{
    int fds[2];
    if (pipe(fds) != 0)
        throw std::runtime_error("bench: pipe failed");
    const pid_t pid = fork();
    if (pid < 0)
        throw std::runtime_error("bench: fork failed");
    if (pid == 0) {
        close(fds[0]);
        int rc = 0;
        try {
            const std::vector<double> values = fn();
            const auto bytes = static_cast<ssize_t>(values.size() * sizeof(double));
            rc = write(fds[1], values.data(), static_cast<std::size_t>(bytes)) == bytes ? 0 : 1;
        } catch (const std::exception& e) {
            std::fprintf(stderr, "bench: %s\n", e.what());
            rc = 1;
        }
        close(fds[1]);
        _exit(rc);
    }
    close(fds[1]);
    std::vector<double> values;
    double v;
    while (read(fds[0], &v, sizeof v) == static_cast<ssize_t>(sizeof v))
        values.push_back(v);
    close(fds[0]);
    int status = 0;
    waitpid(pid, &status, 0);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
        throw std::runtime_error("bench: a child phase failed");
    return values;
}

/// The 64 busiest tracks, as a viewer shows them (interval tracks and counters).
std::vector<model::TrackId> viewportTracks(const storage::StoreReader& store)
{
    std::vector<std::pair<std::int64_t, model::TrackId>> busy;
    for (const model::TrackInfo& t : store.resources().tracks()) {
        const auto& s = store.summary(t.id);
        const std::int64_t n = s.intervals + s.instants + s.counters;
        if (n > 0)
            busy.emplace_back(-n, t.id);
    }
    std::sort(busy.begin(), busy.end());
    std::vector<model::TrackId> tracks;
    for (std::size_t i = 0; i < busy.size() && tracks.size() < 64; ++i)
        tracks.push_back(busy[i].second);
    std::sort(tracks.begin(), tracks.end());
    return tracks;
}

/// A fixed sequence of windows: zoom in and out around random points, pan, and jump to
/// random scales from the whole run down to a few microseconds.
std::vector<model::TimeRange> viewportSequence(model::TimeRange span, int count)
{
    std::mt19937_64 rng(20261123);
    auto uniform = [&rng] { return static_cast<double>(rng() >> 11) / 9007199254740992.0; };
    std::vector<model::TimeRange> out;
    double start = static_cast<double>(span.startNs);
    double width = static_cast<double>(span.durationNs());
    const double minWidth = 2000.0;
    for (int i = 0; i < count; ++i) {
        const double r = uniform();
        if (i == 0) {
            // whole run
        } else if (r < 0.35) {
            const double anchor = start + uniform() * width;
            const double newWidth = std::max(minWidth, width * 0.5);
            start = anchor - (anchor - start) * newWidth / width;
            width = newWidth;
        } else if (r < 0.6) {
            const double anchor = start + uniform() * width;
            const double newWidth = std::min(static_cast<double>(span.durationNs()), width * 2);
            start = anchor - (anchor - start) * newWidth / width;
            width = newWidth;
        } else if (r < 0.9) {
            start += (uniform() - 0.5) * 0.5 * width;
        } else {
            width = std::exp(std::log(minWidth)
                             + uniform() * (std::log(static_cast<double>(span.durationNs())) - std::log(minWidth)));
            start = static_cast<double>(span.startNs) + uniform() * (static_cast<double>(span.durationNs()) - width);
        }
        start = std::clamp(start, static_cast<double>(span.startNs),
                           std::max(static_cast<double>(span.startNs), static_cast<double>(span.endNs) - width));
        const auto s = static_cast<model::TimeNs>(start);
        out.push_back({s, s + std::max<model::TimeNs>(1, static_cast<model::TimeNs>(width))});
    }
    return out;
}

} // namespace

std::vector<Metric> runStoreBench(const BenchOptions& options, void (*report)(const Metric&))
{
    std::vector<long long> counts = options.eventCounts;
    if (counts.empty())
        counts = options.quick ? std::vector<long long>{1'000'000, 10'000'000}
                               : std::vector<long long>{1'000'000, 10'000'000, 100'000'000};
    const char* tmp = std::getenv("TMPDIR");
    const std::filesystem::path dir = std::filesystem::path(tmp ? tmp : "/tmp")
                                      / ("strata-bench-" + std::to_string(getpid()));
    std::filesystem::create_directories(dir);

    std::vector<Metric> metrics;
    auto emit = [&](Metric m) {
        if (report)
            report(m);
        metrics.push_back(std::move(m));
    };
    std::vector<double> p50s;
    double peakRss = 0;
    std::string largestCase;
    for (const long long events : counts) {
        const std::string caseName = events >= 1'000'000 ? std::to_string(events / 1'000'000) + "M"
                                                         : std::to_string(events);
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
            return std::vector<double>{static_cast<double>(builder.eventCount()), ms, peakRssMb()};
        });
        const double storeBytes = static_cast<double>(std::filesystem::file_size(store));
        emit({"build_events_per_s", build[0] / (build[1] / 1000.0), "events/s", caseName});
        emit({"store_bytes_per_event", storeBytes / build[0], "B", caseName});
        emit({"build_peak_rss_mb", build[2], "MB", caseName});

        const auto query = inChild([&] {
            app::keepLargeAllocationsInTheHeap();  // as the GUI does
            const auto openStart = Clock::now();
            storage::StoreReader reader(store);
            const auto tracks = viewportTracks(reader);
            const auto windows = viewportSequence(reader.span(), options.queries);
            reader.query({tracks, windows[0].startNs, windows[0].endNs, 1920});
            const double openMs = msSince(openStart);
            std::vector<double> latencies;
            for (const model::TimeRange& w : windows) {
                const auto t = Clock::now();
                reader.query({tracks, w.startNs, w.endNs, 1920});
                latencies.push_back(msSince(t));
            }
            return std::vector<double>{openMs, percentile(latencies, 0.5), percentile(latencies, 0.99),
                                       peakRssMb()};
        });
        emit({"open_first_query_ms", query[0], "ms", caseName});
        emit({"query_p50_ms", query[1], "ms", caseName});
        emit({"query_p99_ms", query[2], "ms", caseName});
        emit({"query_peak_rss_mb", query[3], "MB", caseName});
        emit({"peak_rss_mb", std::max(build[2], query[3]), "MB", caseName});
        peakRss = std::max({peakRss, build[2], query[3]});
        p50s.push_back(query[1]);
        std::filesystem::remove(store);
    }
    // Ingest: a Kineto-style JSON file of about 500 MB (170 MB with --quick), parsed,
    // tiled, compressed and written, end to end.
    if (options.ingest) {
        const long long events = options.quick ? 1'000'000 : 3'000'000;
        const std::string caseName = options.quick ? "chrome-170MB" : "chrome-500MB";
        const std::filesystem::path json = dir / "trace.json";
        const std::filesystem::path store = dir / "ingested.strata";
        inChild([&] {
            storage::ChromeJsonWriter writer(json);
            storage::SynthOptions synth;
            synth.events = static_cast<std::uint64_t>(events);
            synth.ranks = 8;
            storage::generateSyntheticTrace(synth, writer);
            writer.finish();
            return std::vector<double>{};
        });
        const double jsonBytes = static_cast<double>(std::filesystem::file_size(json));
        const auto ingest = inChild([&] {
            const auto start = Clock::now();
            storage::StoreBuilder builder(store);
            storage::importChromeJson(json, builder);
            builder.finish();
            return std::vector<double>{msSince(start), static_cast<double>(builder.eventCount()), peakRssMb()};
        });
        emit({"ingest_chrome_mb_per_s", jsonBytes / 1e6 / (ingest[0] / 1000.0), "MB/s", caseName});
        emit({"ingest_chrome_events_per_s", ingest[1] / (ingest[0] / 1000.0), "events/s", caseName});
        emit({"ingest_peak_rss_mb", ingest[2], "MB", caseName});
        emit({"ingest_store_to_json_ratio", static_cast<double>(std::filesystem::file_size(store)) / jsonBytes,
              "ratio", caseName});
    }
    std::filesystem::remove_all(dir);
    if (p50s.size() >= 2) {
        const std::string name = counts.back() == 100'000'000 && counts.front() == 1'000'000
                                     ? "query_ratio_100m_1m"
                                     : "query_ratio_largest_smallest";
        emit({name, p50s.back() / std::max(p50s.front(), 1e-6), "ratio", ""});
    }
    // Headlines: the largest case.
    for (const Metric& m : std::vector<Metric>(metrics)) {
        if (m.caseName == largestCase && m.name != "peak_rss_mb")
            emit({m.name, m.value, m.unit, ""});
    }
    emit({"peak_rss_mb", peakRss, "MB", ""});
    return metrics;
}

} // namespace strata::bench
