#pragma once
// Ideal-network replay speed (`strata bench --replay`), in records (MPI calls + messages)
// per second, on a synthetic MPI run: 64 ranks in a ring, each iteration a computation
// burst, a send to the right and a receive from the left, and an allreduce every 32
// iterations. Two figures, medians of 5 runs:
//   - "replay records/s (in memory)": storage::replayIdeal on the prepared input;
//   - "replay records/s (from store)": buildReplayInput (reading the calls and messages
//     from a store) plus the replay, on a store of a fifth as many records.
// Never asserts on time.

#include "bench/store_bench.h"

namespace strata::bench {

std::vector<Metric> runReplayBench(long long records, void (*report)(const Metric&) = nullptr);

}  // namespace strata::bench
