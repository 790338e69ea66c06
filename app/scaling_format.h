#pragma once
// `strata metrics RUN1 RUN2 ...`: the POP scaling table (model/scaling.h) of several
// stores, as text (one column per run) or JSON, and the per-run inputs it needs.

#include "model/scaling.h"
#include "storage/analysis/efficiency_report.h"

#include <string>
#include <vector>

namespace strata::app {

/// One run's column inputs, plus what it lacks (no counters, no replay) in words.
struct ScalingRun
{
    model::RunFactors factors;
    std::vector<std::string> notes;
};

/// From a store's report computed with counters and the ideal replay.
ScalingRun scalingRun(const std::string& store, const storage::EfficiencyReport& report);

std::string scalingText(const model::ScalingTable& table, const std::vector<ScalingRun>& runs);
/// {"runs": [{"store", "processes", "threads", "runtime_ns", ...}], "scaling", ...}
std::string scalingJson(const model::ScalingTable& table, const std::vector<ScalingRun>& runs);

}  // namespace strata::app
