#pragma once
// generateSyntheticTrace writes a deterministic, synthetic trace of a data-parallel ML
// training run into any TraceSink, shaped like what torch.profiler/Kineto records: per
// rank a CPU process (python main thread, pt_autograd backward thread, dataloader thread)
// and a GPU (compute, NCCL and memcpy streams, plus utilization/memory/clock counters),
// under node tracks of four ranks each. Every step is a "ProfilerStep#N" holding nested
// aten ops whose cudaLaunchKernel calls launch kernels (linked by "ac2g" flows), a
// gradient all-reduce whose NCCL kernels end together on every rank, an AdamW step and
// a cudaStreamSynchronize.
//
// Invariants (tested in tests/storage/synth/synthetic_trace_test.cpp):
//   - the same options give the same sink calls in the same order on every platform (an
//     own xoshiro256** generator and own log/exp; no std:: distributions);
//   - about `events` events in total (intervals + instants + counter samples + flows),
//     within a few percent from 10 000 events up; tiny requests still give one full step;
//   - times are ns from 0, every interval has endNs > startNs, intervals on a thread nest
//     properly by their explicit depth, kernels on one stream never overlap, each flow
//     ends at its kernel's start, and every role equals model::classifyRole(name, cat).
//
// Cost: O(events) time; memory O(one step of all ranks), since events are streamed to
// the sink step by step, so 10^8 events need no more memory than 10^4.

#include "storage/store/progress.h"
#include "storage/store/trace_sink.h"

#include <cstdint>

namespace strata::storage {

struct SynthOptions
{
    std::uint64_t events = 100000;  ///< approximate number of events to produce
    int ranks = 4;  ///< data-parallel ranks (one process and one GPU each), at least 1
    std::uint64_t seed = 1;  ///< any value; equal seeds give equal traces
};

/// The root tracks the trace has (node tracks, one per four ranks): what a ShardRouter
/// deals out to the shards of a run.
int syntheticRootCount(const SynthOptions& options);

/// Generates the synthetic training trace into `sink`. `progress` gets (events generated,
/// events requested) after every step; if it returns false, storage::Cancelled is thrown.
/// Throws std::invalid_argument when options.ranks < 1.
void generateSyntheticTrace(
    const SynthOptions& options, TraceSink& sink, const ProgressFn& progress = {});

}  // namespace strata::storage
