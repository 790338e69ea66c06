#pragma once
// Role time: how long a worker (a thread, a process, a GPU, a stream) spent in each role
// inside a window. This is the input of every efficiency metric (model/efficiency.h).
//
// Counting rule. A worker is a set of tracks; at each instant several of its intervals
// may be open (nested CPU ops, PDL kernels at depth > 0 of one stream, several threads
// of a process, several streams of a GPU). The instant counts once: first each track's
// role is the role ranked highest by the worker's `within` priority among the track's
// open intervals, then the worker's role is the highest of its tracks' roles by the
// `across` priority. An instant with no open interval is "uncovered" (idle, no
// activity). So nothing is ever counted twice, and the role times plus the uncovered
// time add up to the window length. The orders:
//   - host (CPU threads, processes): comm > sync > transfer > runtime > idle > useful, so
//     a cudaLaunchKernel inside aten::linear is runtime and the cudaStreamSynchronize
//     inside a c10d::allreduce_ is comm: the innermost *non-useful* call decides, and
//     an outer user range never hides it; an explicit idle state (Paraver "Not
//     created") stays idle under a user-function event that is still open;
//   - device (GPUs, streams): useful > comm > transfer > sync > runtime > idle, so a
//     GPU's comm and transfer times are exactly "C_g, the time in communication kernels
//     and memcpy/memset not overlapped by compute kernels" of the GPU model;
//   - across tracks, for hosts and devices alike, the device order: a process computes
//     while any of its threads computes (a gloo thread communicating in the background
//     overlaps the main thread's work, as POP wants overlap to count).
//
// Two ways to compute it, one exact and one from summaries:
//   - sweepRoleTimes: from exact intervals, a sweep over their start/end points,
//     O(n log n); exact.
//   - BucketRoleMixer: from per-bucket coverage (what the store's summary cells hold per
//     track, depth and role). Inside one bucket, the intervals of one (track, depth)
//     "layer" never overlap, so each layer's coverage of a set of roles is exact, but how
//     layers overlap each other is unknown. For the set S_j of the j highest roles the
//     covered time U_j lies in [max over layers, min(bucket, sum over layers)]; the mixer
//     takes the estimate "layers independent" w(1 - prod(1 - c/w)), which lies in those
//     bounds, and role j gets U_j - U_(j-1). Its error is at most the two bounds' widths,
//     which the mixer adds to RoleTimes::errorNs. The bound is zero (the result exact)
//     in every bucket where at most one layer partly covers S_j for every j: always for
//     one track of depth 0 (Paraver states), and for buckets fully inside a long event.

#include "model/events.h"
#include "model/role.h"

#include <array>
#include <functional>
#include <span>
#include <vector>

namespace strata::model {

/// Roles from highest to lowest priority (all six, each once).
using RolePriority = std::array<Role, kRoleCount>;

/// comm > sync > transfer > runtime > idle > useful (CPU threads and processes).
inline constexpr RolePriority kHostPriority = { Role::Comm, Role::Sync, Role::Transfer,
    Role::Runtime, Role::Idle, Role::Useful };
/// useful > comm > transfer > sync > runtime > idle (GPUs and streams).
inline constexpr RolePriority kDevicePriority = { Role::Useful, Role::Comm, Role::Transfer,
    Role::Sync, Role::Runtime, Role::Idle };

struct WorkerPriority
{
    RolePriority within;  ///< nesting on one track
    RolePriority across;  ///< the tracks of one worker
};
inline constexpr WorkerPriority kHostWorker = { kHostPriority, kDevicePriority };
inline constexpr WorkerPriority kDeviceWorker = { kDevicePriority, kDevicePriority };

/// Time of one worker in a window, by role (see the file comment).
struct RoleTimes
{
    TimeNs windowNs = 0;
    std::array<TimeNs, kRoleCount> ns {};  ///< indexed by Role
    /// |this - exact| <= errorNs[role] for each role; all zero when computed exactly.
    std::array<TimeNs, kRoleCount> errorNs {};

    TimeNs at(Role r) const { return ns[static_cast<std::size_t>(r)]; }
    TimeNs error(Role r) const { return errorNs[static_cast<std::size_t>(r)]; }
    TimeNs coveredNs() const;
    /// Window time with no interval open (no activity).
    TimeNs uncoveredNs() const { return windowNs - coveredNs(); }
    /// Explicit idle states plus uncovered time.
    TimeNs idleNs() const { return at(Role::Idle) + uncoveredNs(); }
    bool exact() const;
    RoleTimes& operator+=(const RoleTimes& other);
};

/// An interval reduced to what the sweep needs: its span and the role it counts for.
struct RoleSpan
{
    TimeNs startNs = 0;
    TimeNs endNs = 0;
    Role role = Role::Useful;
};

/// Exact role times of the spans (any order, any overlap) clipped to `window`.
RoleTimes sweepRoleTimes(
    std::span<const RoleSpan> spans, TimeRange window, const RolePriority& priority);
/// The same as pieces: calls fn(startNs, endNs, role) for each maximal stretch of the
/// window with one winning role, in time order (uncovered stretches are skipped).
void sweepRoleSegments(std::span<const RoleSpan> spans, TimeRange window,
    const RolePriority& priority, const std::function<void(TimeNs, TimeNs, Role)>& fn);

/// Per-bucket estimate from layer coverage (see the file comment). Feed one bucket at a
/// time: addLayer() for each layer with coverage in it, then closeBucket().
class BucketRoleMixer
{
public:
    explicit BucketRoleMixer(const RolePriority& priority);

    /// One layer's coverage of each role inside the current bucket (indexed by Role).
    void addLayer(const std::array<TimeNs, kRoleCount>& coverageNs);
    /// Time of the current bucket in which the role cannot be told (e.g. summary
    /// entries a rules file could not classify): added to every role's error.
    void addUnresolved(TimeNs ns) { m_unresolvedNs += ns; }
    /// Ends the bucket (widthNs long): returns its role times and adds them to result().
    RoleTimes closeBucket(TimeNs widthNs);
    const RoleTimes& result() const { return m_result; }

private:
    RolePriority m_priority;
    RoleTimes m_result;
    // Per priority prefix j: max, sum and product of (1 - c/w) over the bucket's layers;
    // the product needs w, so layers are kept until closeBucket.
    std::vector<std::array<TimeNs, kRoleCount>> m_layers;
    TimeNs m_unresolvedNs = 0;
};

}  // namespace strata::model
