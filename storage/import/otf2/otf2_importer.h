#pragma once
// Imports an OTF2 archive (Score-P's output: the anchor `traces.otf2`, the global
// definitions `traces.def`, and per location `traces/<id>.def` + `traces/<id>.evt`) into a
// TraceSink, through Debian's libotf2 (libopen-trace-format2).
//
// Two passes of libotf2's readers: the global definitions into tables
// (storage/otf2_definitions.h), then every location's events merged in time order by the
// global event reader, in batches (progress and cancellation between batches). Memory
// besides the sink: the definitions, one open-region stack per location, and the MPI
// messages in flight (storage/import/otf2/mpi_message_matcher.h).
//
// Tracks, all created before the events: the system tree (a node with a SHARED_MEMORY
// domain or class "node" -> Node, others such as "machine" -> Group) > location groups
// (PROCESS, i.e. an MPI rank -> Process; ACCELERATOR -> Gpu) > locations (CPU_THREAD ->
// Thread, ACCELERATOR_STREAM -> Stream, METRIC -> Group). Tracks are keyed by reference,
// never by name (Score-P names every rank's main thread "Master thread"). Counter tracks
// are created under a location at its first sample of a metric member.
//
// Events:
//  - Enter/Leave -> an interval per region instance on its location, depth = nesting,
//    name = the region's name, category = its paradigm ("MPI", "user", "compiler", ...),
//    role from otf2RegionRole() (MPI waits/barriers Sync, other MPI calls Comm, user code
//    Useful). Args: the Enter's attributes, and what happened inside the region: the
//    peer/tag/bytes/communicator of MPI sends and receives, the operation/root/sizes of
//    an MPI collective, parameter values. A Leave that skips open regions closes them;
//    regions open at the end close at their location's last event (both counted).
//  - MpiSend/MpiIsend and MpiRecv/MpiIrecv -> flows "MPI message" from the send record to
//    the matching receive record, with the message size and tag; ranks are resolved to
//    locations through the communicator's group. Unmatched ends are counted.
//  - Metric -> a counter sample per member (value x base^exponent; PAPI counters are
//    ACCUMULATED_START: the raw running count), on a Counter track named by the member,
//    with its unit.
//  - ProgramBegin/ProgramEnd -> instants; other records are counted and skipped.
// Time: ticks -> ns from the global offset with exact 128-bit arithmetic (otf2_clock.h).
// Meta: source_format=otf2, otf2_timer_resolution, otf2_global_offset_ticks,
// otf2_trace_length_ticks, and origin_ns (epoch ns of time 0) when the clock properties
// carry a realtime timestamp; otherwise origin_clock says time 0 is the global offset of
// an unknown (non-epoch) clock.

#include "storage/store/progress.h"

#include <cstdint>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

namespace strata::storage {

class TraceSink;

struct Otf2ImportStats
{
    std::uint64_t strings = 0;  ///< definitions
    std::uint64_t regions = 0;
    std::uint64_t locations = 0;
    std::uint64_t locationGroups = 0;
    std::uint64_t systemTreeNodes = 0;
    std::uint64_t comms = 0;
    std::uint64_t groups = 0;
    std::uint64_t metricMembers = 0;
    std::uint64_t attributes = 0;
    std::uint64_t events = 0;  ///< all event records read
    std::uint64_t enters = 0;
    std::uint64_t leaves = 0;
    std::uint64_t sends = 0;  ///< MpiSend + MpiIsend
    std::uint64_t receives = 0;  ///< MpiRecv + MpiIrecv
    std::uint64_t collectives = 0;  ///< MpiCollectiveEnd
    std::uint64_t metricEvents = 0;
    std::uint64_t programEvents = 0;  ///< ProgramBegin + ProgramEnd
    std::uint64_t intervals = 0;
    std::uint64_t flows = 0;
    std::uint64_t counterSamples = 0;
    std::uint64_t counterTracks = 0;
    std::uint64_t instants = 0;
    std::uint64_t unmatchedLeaves = 0;  ///< Leave with no open region of its kind
    std::uint64_t skippedLeaves = 0;  ///< open regions closed by an outer Leave
    std::uint64_t unclosedEnters = 0;  ///< closed at their location's last event
    std::uint64_t unresolvedPeers = 0;  ///< a send/receive rank no location answers to
    std::uint64_t unmatchedSends = 0;
    std::uint64_t unmatchedReceives = 0;
    std::uint64_t unknownMetrics = 0;  ///< Metric records of undefined metrics
    std::uint64_t backwardTimes = 0;  ///< Leave before its Enter: made empty
    /// Where the first event of each anomaly above is ("DIR/traces/3.evt, tick 1234"), by
    /// the count's name in the import report ("unmatched_leaves").
    std::map<std::string, std::string> firstAt;
    std::vector<std::string> warnings;  ///< one line each
};

/// The anchor file of an OTF2 archive given as the anchor itself, the folder holding it,
/// or one of the archive's .def/.evt files. Throws InputError when there is none.
std::filesystem::path otf2AnchorFor(const std::filesystem::path& input);

/// Imports the archive of `input` (see otf2AnchorFor) into `sink`. Throws InputError (one
/// line naming the file and what was expected, with libotf2's message) when a file of the
/// archive is missing, truncated or corrupt, Cancelled when `progress` returns false.
/// Progress counts events out of the total the definitions declare.
Otf2ImportStats importOtf2(
    const std::filesystem::path& input, TraceSink& sink, const ProgressFn& progress = {});

}  // namespace strata::storage
