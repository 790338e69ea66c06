#pragma once
// UsefulCounters: per thread, its useful time and the hardware-counter increments read at
// the end of its useful bursts (instructions, cycles), the inputs of POP's average useful
// IPC (sum instructions / sum cycles) and average useful frequency (sum cycles / sum
// useful time).
//
// Extrae writes PAPI counters as increments since the previous reading, at every burst
// boundary (state change, MPI call). The Paraver importer keeps them as counter tracks
// under the thread, named by the .pcf label ("PAPI_TOT_INS [Instr completed]"). A reading
// at time t covers [previous reading, t); it counts as useful when the thread is useful
// just before t, i.e. when it closes a useful burst; a second reading at the same time
// closes nothing (it measured a call Extrae timed as zero-length). That is what
// modelfactors' useful_instructions.cfg computes with paramedir (the next reading's value
// over the Running state, summed per burst): on the EPOCH runs the sums equal its
// modelfactors.csv to the instruction.
//
// Only Paraver stores' counters are read: OTF2 PAPI metrics are mostly accumulated since
// the start and kept so by the importer (TODO(#19): difference them), `perf stat` logs
// are not imported yet.
//
// Useful time is what the role-time reader counts exactly on one track: the time some
// useful interval is open and no interval of another role is (kHostPriority within a
// track). Each thread is one pass over its exact intervals and counter samples:
// O(n log n) in its events. Results are keyed by the thread's path (name text, not ids),
// so partials of shards merge by name.

#include "model/time_units.h"
#include "model/workers.h"
#include "storage/store/store_reader.h"

#include <cstdint>
#include <string>
#include <vector>

namespace strata::storage {

struct ThreadCounters
{
    std::string thread;  ///< resource path
    std::string process;  ///< the process's path ("" for a thread outside a process)
    model::TimeNs usefulNs = 0;
    double instructions = 0;  ///< sum over readings that close a useful burst
    double cycles = 0;
    bool hasInstructions = false;  ///< the thread has a PAPI_TOT_INS counter track
    bool hasCycles = false;
};

struct UsefulCounters
{
    std::vector<ThreadCounters> threads;  ///< threads with intervals, in tree order

    model::TimeNs usefulNs() const;
    double instructions() const;
    double cycles() const;
    /// Every thread with useful time has both counters.
    bool complete() const;
};

/// Counter track names: Extrae's labels start with the PAPI preset name.
inline constexpr const char* kInstructionsCounter = "PAPI_TOT_INS";
inline constexpr const char* kCyclesCounter = "PAPI_TOT_CYC";

/// Whether any counter track is a PAPI_TOT_INS or PAPI_TOT_CYC one (a look at the
/// resource tree: callers skip the pass over every event without them).
bool hasUsefulCounters(const StoreReader& store);

/// Useful time and counter sums of every thread holding intervals, over `window`
/// (readings at window.startNs < t <= window.endNs).
UsefulCounters computeUsefulCounters(StoreReader& store, model::TimeRange window);

/// The threads computeUsefulCounters reports (every thread worker holding intervals), in
/// tree order, and one thread's entry: what a process that reads only some shards computes.
std::vector<model::Worker> counterThreads(const StoreReader& store);
ThreadCounters threadCounters(
    StoreReader& store, const model::Worker& thread, model::TimeRange window);

}  // namespace strata::storage
