#include "bench/bench_support.h"

#include <cstdlib>

#include <algorithm>
#include <cmath>
#include <random>
#include <sys/resource.h>

namespace strata::bench {

double msSince(Clock::time_point start)
{
    return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

std::filesystem::path scratchFolder(const std::string& prefix)
{
    const char* tmp = std::getenv("TMPDIR");
    const std::filesystem::path dir
        = std::filesystem::path(tmp ? tmp : "/tmp") / (prefix + "-" + std::to_string(getpid()));
    std::filesystem::create_directories(dir);
    return dir;
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

std::FILE* stepLog()
{
    static std::FILE* log = [] {
        const char* path = std::getenv("STRATA_BENCH_LOG");
        std::FILE* f = path && *path ? std::fopen(path, "a") : nullptr;
        if (f)
            std::setvbuf(f, nullptr, _IOLBF, 0);  // phases end with _exit, which flushes nothing
        return f;
    }();
    return log;
}

} // namespace strata::bench
