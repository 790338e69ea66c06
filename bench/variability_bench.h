#pragma once
// Variability latency (`strata bench --variability`): the whole-run report
// (storage::computeVariability at the process level) of `strata synth`'s training run
// (ranks with nested ops, kernels, all-reduces, memcpys and counters), or of a given
// store, in a child process so that its peak RSS is the report's own; the same again as
// two partials over halves of the tracks, merged (the shards path). Reports the median of
// a few runs; never asserts on time.

#include "bench/store_bench.h"

namespace strata::bench {

struct VariabilityBenchOptions
{
    long long events = 10'000'000;  ///< events of the synthetic store
    int runs = 3;
    std::string store;  ///< an existing store instead of the synthetic one
};

std::vector<Metric> runVariabilityBench(
    const VariabilityBenchOptions& options, void (*report)(const Metric&) = nullptr);

}  // namespace strata::bench
