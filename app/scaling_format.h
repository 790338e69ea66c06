#pragma once
// `strata metrics RUN1 RUN2 ...`: the POP scaling table (model/scaling.h) of several
// stores as text (one column per run) or JSON.

#include "model/scaling.h"
#include "storage/analysis/scaling_run.h"

#include <string>
#include <vector>

namespace strata::app {

std::string scalingText(
    const model::ScalingTable& table, const std::vector<storage::ScalingRun>& runs);
/// {"runs": [{"store", "processes", "threads", "runtime_ns", ...}], "scaling", ...}
std::string scalingJson(
    const model::ScalingTable& table, const std::vector<storage::ScalingRun>& runs);

}  // namespace strata::app
