#pragma once
// The event kinds a trace holds, as plain values. Importers produce them, the store
// keeps them (storage/store/tile_codec.h gives their on-disk layout), queries return them.
// Arguments (the JSON "args" of an event) travel beside an event, never inside it: they
// are stored in the exact tiles and fetched on demand for the details panel.

#include "model/role.h"
#include "model/string_table.h"
#include "model/time_units.h"

#include <cstdint>

namespace strata::model {

using TrackId = std::uint32_t;
inline constexpr TrackId kNoTrack = 0xFFFFFFFFu;

using Depth = std::uint16_t;
/// Ask the store builder to compute nesting depth from containment.
inline constexpr Depth kAutoDepth = 0xFFFF;

/// Something that ran from startNs to endNs on one track (a CPU op, a kernel, a state).
struct Interval
{
    TimeNs startNs = 0;
    TimeNs endNs = 0;
    StringId name = kEmptyString;
    StringId category = kEmptyString;
    Depth depth = 0;  ///< 0 = outermost; nested intervals are deeper
    Role role = Role::Useful;
    std::uint32_t seq = 0;  ///< order of arrival on its track (ties of equal start keep it)

    TimeNs durationNs() const { return endNs - startNs; }
    friend bool operator==(const Interval&, const Interval&) = default;
};

/// A point in time on one track (a marker, a Paraver punctual event).
struct Instant
{
    TimeNs timeNs = 0;
    StringId name = kEmptyString;
    StringId category = kEmptyString;
    friend bool operator==(const Instant&, const Instant&) = default;
};

/// One value of a counter track; the value holds until the next sample.
struct CounterSample
{
    TimeNs timeNs = 0;
    double value = 0;
    friend bool operator==(const CounterSample&, const CounterSample&) = default;
};

/// A dependency or message from one track and time to another: a kernel launch to its
/// kernel, an MPI send to its receive. Stored with its source track.
struct Flow
{
    TimeNs fromNs = 0;
    TrackId toTrack = kNoTrack;
    TimeNs toNs = 0;
    StringId name = kEmptyString;
    std::uint64_t sizeBytes = 0;
    std::int64_t tag = 0;
    friend bool operator==(const Flow&, const Flow&) = default;
};

using StackId = std::uint32_t;

/// A sampled call stack (perf, py-spy): the stack is interned in the store's stack table.
/// `weight` is what the sample counts for in a flame graph: 1 for a plain sample, the
/// perf period (cycles, ns of cpu-clock, page faults) when the profiler recorded one, a
/// folded line's count. 32 bits keep the sample at 16 bytes; an importer splits larger
/// weights into several samples at the same time.
struct StackSample
{
    TimeNs timeNs = 0;
    StackId stack = 0;
    std::uint32_t weight = 1;
    friend bool operator==(const StackSample&, const StackSample&) = default;
};

} // namespace strata::model
