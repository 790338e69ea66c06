#pragma once
// Which importer a file needs, decided from its content (never from its name alone):
// magic bytes and the shape of the first lines, looking through gzip (a .gz is inflated
// for the sniff). The rules, in order:
//
//   directory with an OTF2 anchor (*.otf2) ............................. Otf2
//   SQLite header "SQLite format 3\0": a Strata store (meta table with format=strata, or
//     the store's tables) ............................................. Strata
//     an Nsight Systems export (its StringIds/CUPTI_/NVTX_/TARGET_INFO_ tables) ... Nsys
//   OTF2 anchor ("OTF2" after the 2-byte chunk header), or an OTF2 .def/.evt next to one  Otf2
//   first non-space byte '{' or '[' ....................................... Chrome
//   "#Paraver", or a Paraver .pcf / .row companion ....................... Paraver
//   CSV whose header (after ncu's "==PROF==" lines) starts "ID","Process ID" ... Ncu
//   CSV with a time column (epoch_ns, timestamp, time, ts, ...) ........... Counters
//   lines "frame;frame;frame COUNT" ....................................... Folded
//   `perf script` output (header comments, or a sample line then stack frames) PerfScript
//   anything else ......................................................... Unknown

#include <filesystem>
#include <string_view>

namespace strata::storage {

enum class TraceFormat {
    Chrome,
    Paraver,
    Nsys,
    Ncu,
    Counters,
    Folded,
    PerfScript,
    Otf2,
    Strata,
    Unknown
};

/// "chrome", "paraver", "nsys", "ncu", "counters", "folded", "perf", "otf2", "strata",
/// "unknown".
std::string_view formatName(TraceFormat format);

/// The --format names (case-insensitive; also "perf-script", and "kineto"/"json" for
/// chrome). Unknown for "auto", "" and anything unrecognised: a caller that must tell
/// "auto" from a typo checks for "auto" first.
TraceFormat parseFormatName(std::string_view name);

/// The format of `path` by content. Throws InputError when it cannot be read.
TraceFormat detectFormat(const std::filesystem::path& path);

/// The format of a file's first bytes (already inflated), without looking at the file
/// system: what detectFormat() decides for regular files, minus the SQLite table checks
/// (SQLite content gives Nsys unless it mentions Strata's tables).
TraceFormat detectFormatFromHead(std::string_view head);

}  // namespace strata::storage
