#pragma once
// Flame graph latency (`strata bench --flame`): whole-run and mid-zoom flame queries
// (storage::buildFlameTree over every track) on two stores, answered from the flame
// pyramid and by the exact walk over every event, reporting median and p99 of each:
//   - "samples": 16 threads of sampled call stacks (a fixed random call tree of a few
//     thousand stacks, hot paths by a Zipf law), 10 M samples by default;
//   - "nested": `strata synth`'s training run (nested aten ops, kernels), 10 M events.
// Also the build time and the share of the store the pyramid takes. Each build and each
// query phase runs in a child process. Never asserts on time.

#include "bench/store_bench.h"

namespace strata::bench {

struct FlameBenchOptions
{
    long long events = 10'000'000;  ///< samples of the sample store, events of the nested one
    int queries = 40;  ///< queries per kind (the exact whole-run walk does at most 5)
};

std::vector<Metric> runFlameBench(
    const FlameBenchOptions& options, void (*report)(const Metric&) = nullptr);

}  // namespace strata::bench
