#pragma once
// Internals shared by the stages of finishVariability (variability.cpp, the stragglers in
// variability_stragglers.cpp, the coincidences in variability_coincidence.cpp).

#include "storage/analysis/variability.h"

#include <vector>

namespace strata::storage::detail {

/// Which worker each track's instances count for (see VariabilityRequest::level).
struct WorkerMap
{
    std::vector<model::Worker> workers;
    std::vector<int> workerOf;  ///< [track] -> index in `workers`, or -1
    /// [track]: the track belongs to its worker at the level itself, not only through the
    /// fallback (a GPU stream counted for its host process).
    std::vector<bool> native;
};

WorkerMap mapWorkers(
    const VariabilityPartial& partial, const model::ResourceTree& tree, model::WorkerLevel level);

/// The ancestor of `track` (or itself) of this kind, or kNoTrack.
model::TrackId ancestorOfKind(
    const model::ResourceTree& tree, model::TrackId track, model::ResourceKind kind);

std::vector<Straggler> findStragglers(const VariabilityPartial& partial, const WorkerMap& map,
    std::string& stepSource, int& stepsCompared);

std::vector<Coincidence> findCoincidences(const VariabilityPartial& partial,
    const model::ResourceTree& tree, const std::vector<NameVariability>& names);

/// The median of `values` (the lower middle one: nearest rank 0.5), which it reorders.
model::TimeNs medianOf(std::vector<model::TimeNs>& values);

}  // namespace strata::storage::detail
