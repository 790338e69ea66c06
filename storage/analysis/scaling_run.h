#pragma once
// One run's column of the POP scaling table (model/scaling.h): its store's efficiency
// report, with hardware counters and the ideal replay, turned into model::RunFactors, and
// what the run lacks in words ("no hardware counters ...", "serialization/transfer not
// available: ..."). `strata metrics RUN...`, `strata render RUN... --view metrics` and the
// Efficiency panel's "Compare runs" share it.

#include "model/scaling.h"
#include "storage/analysis/efficiency_report.h"

#include <string>
#include <vector>

namespace strata::storage {

struct ScalingRun
{
    model::RunFactors factors;
    std::vector<std::string> notes;
};

/// From a report computed with `counters` and `idealReplay`.
ScalingRun scalingRun(const std::string& name, const EfficiencyReport& report);

/// Opens nothing: computes `store`'s report for `level` (whole run, counters, replay).
ScalingRun computeScalingRun(StoreReader& store, const std::string& name,
    model::WorkerLevel level = model::WorkerLevel::Process);

/// The table of `runs`, with `force` overriding the strong/weak guess.
model::ScalingTable scalingTableOf(
    const std::vector<ScalingRun>& runs, std::optional<model::Scaling> force = {});

/// The notes of the run named `name` ("" when it has none).
std::vector<std::string> notesOf(const std::vector<ScalingRun>& runs, const std::string& name);

}  // namespace strata::storage
