#pragma once
// What the benchmark phases share: timing, peak memory, percentiles, running a phase in
// a child process (so its peak RSS is its own), and the fixed viewer workload (the
// busiest tracks, a pseudo-random sequence of zooms and pans).

#include "model/time_units.h"
#include "storage/store/store_reader.h"

#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <vector>

namespace strata::bench {

using Clock = std::chrono::steady_clock;

double msSince(Clock::time_point start);
/// A fresh folder for a run's stores: $TMPDIR (or /tmp) / `prefix`-PID.
std::filesystem::path scratchFolder(const std::string& prefix);
double peakRssMb();
double percentile(std::vector<double> v, double p);

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

/// Runs `fn` in a child process `runs` times and returns the values of the run whose first
/// value (its time) is the median: the lower middle of an even count. Ingest rates move by
/// a fifth from run to run on a shared machine; one run's figure is no reading.
template<typename Fn>
std::vector<double> medianRunInChild(int runs, Fn fn)
{
    std::vector<std::vector<double>> all;
    for (int i = 0; i < std::max(1, runs); ++i)
        all.push_back(inChild(fn));
    std::sort(
        all.begin(), all.end(), [](const std::vector<double>& a, const std::vector<double>& b) {
            return a.at(0) < b.at(0);
        });
    return all[(all.size() - 1) / 2];
}

/// The 64 busiest tracks, as a viewer shows them (interval tracks and counters).
std::vector<model::TrackId> viewportTracks(const storage::StoreReader& store);

/// A fixed sequence of windows: zoom in and out around random points, pan, and jump to
/// random scales from the whole run down to a few microseconds.
std::vector<model::TimeRange> viewportSequence(model::TimeRange span, int count);

/// Where the per-step log goes when $STRATA_BENCH_LOG names a file (appended to), else
/// null: one line per query or frame, to find the slow ones behind a p99.
std::FILE* stepLog();

} // namespace strata::bench
