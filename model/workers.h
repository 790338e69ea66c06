#pragma once
// Workers: the units the efficiency metrics compare (POP's "processes"). A worker is a
// resource of the tree and the tracks below it that hold intervals:
//   process: each Process (rank) with all its CPU threads (and grouped async tracks);
//   thread:  each Thread;
//   gpu:     each Gpu with all its streams;
//   stream:  each Stream.
// Tracks with no interval (counters, empty groups) belong to no worker.

#include "model/resource_tree.h"

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace strata::model {

enum class WorkerLevel : std::uint8_t { Process, Thread, Gpu, Stream };

std::string_view workerLevelName(WorkerLevel level);
std::optional<WorkerLevel> parseWorkerLevel(std::string_view name);
/// Host levels count roles with kHostPriority, device levels with kDevicePriority.
bool isDeviceLevel(WorkerLevel level);

struct Worker
{
    TrackId resource = kNoTrack;
    std::string name;  ///< the resource's path ("node0/rank 1")
    std::vector<TrackId> tracks;  ///< tracks holding its intervals
};

/// The workers of a level, in tree order; `hasIntervals(track)` says which tracks count.
std::vector<Worker> workersAt(
    const ResourceTree& tree, WorkerLevel level, const std::function<bool(TrackId)>& hasIntervals);

}  // namespace strata::model
