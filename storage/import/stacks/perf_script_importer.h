#pragma once
// Imports `perf script` text output (plain or .gz): every header variant perf prints
// (with or without `--header`, `-F comm,pid,tid,...`, system-wide with a [cpu] column,
// with or without a period, any event name), see perf_script_parser.h for the lines.
//
// Structure: '#' lines are the --header block and are skipped. Samples are blocks
// separated by blank lines: a header line, then its stack frames, leaf first. A frame line
// need not be indented (some perf versions print them flush left); an unindented line that
// parses as a sample header starts a new sample inside a block (output without call
// chains, one line per sample; its REST, when it reads as "ADDRESS SYMBOL (DSO)", is the
// sample's only frame). The last sample counts even without a final blank line.
//
// Tracks, created once the file is read (sorted by ids): Process > Thread.
//   - with PID/TID: Process "COMM [PID]" > Thread "COMM [TID]";
//   - with one number (perf's default shows the thread id only): Process "COMM" (threads
//     grouped by the command of their first sample) > Thread "COMM [TID]".
//   A thread is a (PID, TID, COMM): a thread that calls exec() or renames itself gets a
//   new track from then on ("perf [47119]" then "sleep [47119]"), as stackcollapse-perf.pl
//   also names each sample by its own COMM. A process is named by its first sample. When
//   the file holds more
//   than one event (perf record -e cycles -e instructions), each thread has one track per
//   event, named "COMM [TID] EVENT", so that weights of different events never add up in
//   one track.
// Samples: each one is a StackSample on its thread's track; its stack is interned root
// first (reversed from perf's order); frames are named by perfFrameName(). Its weight is
// the PERIOD field when perf printed one (cycles, ns of cpu-clock, faults), else 1; the
// track's unit says which: "EVENT" for periods, "EVENT samples" for counts.
// Time: TIME is seconds with decimals on perf's clock (monotonic, since boot), converted
// exactly to ns; the store's origin is the earliest sample (meta origin_ns, on that clock,
// not the epoch; meta clock=perf). A file without TIME fields gets the synthetic time
// "sample k at k ns" (meta time_axis=synthetic). The cpu column is not kept.
// Meta: source_format=perf, perf_events (comma-separated, in order of first use).
//
// Errors (InputError, "file: line N: ..."): a block whose first line is not a sample
// header, a TIME beyond int64 ns, samples with and without TIME mixed, binary (NUL) data.

#include "storage/store/progress.h"

#include <cstdint>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

namespace strata::storage {

class TraceSink;

struct PerfImportStats
{
    std::uint64_t lines = 0;
    std::uint64_t headerLines = 0;  ///< '#' lines
    std::uint64_t samples = 0;
    std::uint64_t frames = 0;  ///< frame lines, all samples
    std::uint64_t maxDepth = 0;
    std::uint64_t emptyStacks = 0;  ///< samples without a frame
    std::uint64_t unknownFrames = 0;  ///< frames perf could not symbolise
    std::uint64_t samplesWithPeriod = 0;
    std::map<std::string, std::uint64_t> samplesPerEvent;
    std::map<std::string, std::uint64_t> periodPerEvent;  ///< sum of PERIOD, events that have one
    std::uint64_t processes = 0;  ///< Process tracks created
    std::uint64_t threads = 0;  ///< distinct (pid, tid, comm) (before splitting by event)
    std::uint64_t threadIds = 0;  ///< distinct (pid, tid)
    std::uint64_t sampleTracks = 0;  ///< tracks holding samples
    bool timed = false;  ///< the samples carry TIME
    std::int64_t firstNs = 0, lastNs = 0;  ///< absolute, on perf's clock (timed files)
    std::vector<std::string> warnings;
};

/// Imports `path` into `sink`. Throws InputError on malformed input, Cancelled when
/// `progress` returns false (progress is in bytes of the file on disk).
PerfImportStats importPerfScript(const std::filesystem::path& path, TraceSink& sink,
                                 const ProgressFn& progress = {});

} // namespace strata::storage
