#pragma once
// Small random traces with the shapes that stress the store: properly nested intervals
// at several depths with durations from 0 ns to most of the span (so every duration
// band and level is used and intervals cross tile and bucket borders), zero-length
// intervals, equal start times, args, instants, counters with repeated timestamps and
// long gaps, flows and stack samples.

#include "storage/store/memory_trace.h"

#include <cstdint>

namespace strata::test {

struct RandomTraceOptions
{
    std::uint64_t seed = 1;
    int threads = 3;
    int intervalsPerThread = 3000;
    int countersPerTrack = 2000;
    model::TimeNs spanNs = 50'000'000;  ///< 50 ms
    int nodes = 1;  ///< root tracks, each a node > rank > threads + counter (shards deal roots)
    /// Flows per thread to threads of other nodes (messages between shards of a run), after
    /// the nodes' own events.
    int crossNodeFlowsPerThread = 0;
};

/// Depths are explicit (so the expected depth of each interval is known).
void makeRandomTrace(const RandomTraceOptions& options, storage::MemoryTrace& trace);

} // namespace strata::test
