#pragma once
// The two kinds of line in `perf script` text output, parsed without regular expressions.
//
// A sample header (the first line of a sample), fields in this order, most optional:
//     COMM  PID[/TID]  [CPU]  TIME:  PERIOD  EVENT:  [REST]
//     "dd 29776 666709.771979:   10101010 cpu-clock: "
//     "simple-terminat     9/9     198791.127353: cpu-clock: "
//     "V8 WorkerThread 24636/25607 [000] 94564.109216: 100 cycles:u: "
//     "java 12688 cycles: "                                 (no time at all)
// COMM may contain spaces and digits, so the first token after it that reads as PID or
// PID/TID and is followed by a valid tail (optional [CPU], TIME:, PERIOD, then an EVENT:
// token) ends it, as a non-greedy regular expression would. With one number, perf prints
// the thread id (its default field set is comm,tid,...); `-F comm,pid,tid` gives both.
// EVENT is a token ending with ':' that starts with a letter or '_' ("cycles:", "cycles:u:",
// "task-clock:ppp:", "sched:sched_switch:"); REST is whatever follows (trace fields, or the
// ip/sym/dso of a sample printed without a call chain).
//
// A stack frame (leaf first, one per line, usually indented):
//     ADDRESS SYMBOL[+0xOFFSET] (DSO)       "ffffffff8103ce3b native_safe_halt+0x6 ([kernel.kallsyms])"
// The DSO is the text in the last " (...)"; a frame may lack the address (inlined frames
// of newer perf) or the DSO (-F ip,sym).

#include "model/time_units.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace strata::storage {

struct PerfSampleHeader
{
    std::string_view comm;  ///< trimmed
    std::int64_t pid = -1;  ///< -1 when the header shows only one number (then it is `tid`)
    std::int64_t tid = -1;
    int cpu = -1;
    std::optional<model::TimeNs> timeNs;  ///< absolute, exact to the ns; none without TIME
    std::optional<std::uint64_t> period;
    std::string_view event;  ///< without its final ':' ("cycles:u")
    std::string_view rest;  ///< trimmed
    bool timeOverflow = false;  ///< a TIME field too large for int64 ns
};

/// The header fields of `line`, or nullopt when it is not a sample header.
std::optional<PerfSampleHeader> parsePerfSampleHeader(std::string_view line);

struct PerfFrame
{
    std::string_view symbol;  ///< as printed, "+0x..." offset removed; may be empty
    std::string_view dso;  ///< empty when the line has none
};

/// The symbol and DSO of a frame line (never fails: any text is a symbol).
PerfFrame parsePerfFrame(std::string_view line);

/// The frame's name in a flame graph: its symbol, or "[dso basename]" when perf could not
/// symbolise it ("[unknown]" or empty) but knows the DSO, else "[unknown]" (the convention
/// of FlameGraph's stackcollapse-perf.pl, so results compare with its folded files).
std::string perfFrameName(const PerfFrame& frame);

} // namespace strata::storage
