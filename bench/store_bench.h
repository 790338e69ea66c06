#pragma once
// The store benchmark behind `strata bench`: builds synthetic stores of 1 M, 10 M and
// (without --quick) 100 M events and measures build rate, bytes per event, viewport
// query latency over a fixed pseudo-random sequence of zooms and pans (1920 px, 64
// tracks), open-to-first-query time and peak memory. Each build and each query phase
// runs in a child process, so peak RSS is that phase's own. Reports medians and ratios;
// never asserts on time.

#include <filesystem>
#include <functional>
#include <string>
#include <vector>

namespace strata::bench {

struct Metric
{
    std::string name;
    double value = 0;
    std::string unit;
    std::string caseName;  ///< empty for headline figures
};

/// Keeps a phase's metrics, reporting each as soon as it is known.
struct MetricLog
{
    void (*report)(const Metric&) = nullptr;
    std::vector<Metric> metrics;

    void operator()(Metric m)
    {
        if (report)
            report(m);
        metrics.push_back(std::move(m));
    }
};

struct BenchOptions
{
    bool quick = false;
    std::vector<long long> eventCounts;  ///< default: 1M, 10M and 100M (not with quick)
    int queries = 400;
    bool ingest = true;  ///< also time a Chrome JSON ingest end to end
    /// Each ingest case runs this many times; its figures are the median run's.
    int ingestRuns = 3;
    /// An existing store (a real trace): only its query and frame phases are measured,
    /// no synthetic stores are built and nothing is ingested.
    std::string store;
    /// The app's ingest of several trace files into a run of shards by `workers`
    /// parallel workers (app/ingest_job.h), for the parallel-ingest case; unset: skipped.
    std::function<void(const std::vector<std::filesystem::path>& inputs, const std::filesystem::path& store,
                       int workers)>
        ingestFiles;
};

/// Runs the benchmark; `report` is called with each metric as soon as it is known.
std::vector<Metric> runStoreBench(const BenchOptions& options, void (*report)(const Metric&) = nullptr);

} // namespace strata::bench
