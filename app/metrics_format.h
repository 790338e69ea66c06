#pragma once
// Text and JSON output of `strata metrics` (efficiency report and --profile).

#include "model/role_rules.h"
#include "storage/analysis/efficiency_report.h"
#include "storage/analysis/name_profile.h"

#include <string>

namespace strata::app {

/// Where the roles came from: a rules file, or the importers' own classification.
struct RulesSource
{
    const model::RoleRules* rules = nullptr;
    std::string path;
};

std::string metricsTable(const storage::StoreReader& store, const storage::EfficiencyReport& report,
    const RulesSource& rules);
std::string metricsJson(const storage::StoreReader& store, const storage::EfficiencyReport& report,
    const RulesSource& rules);
/// At most `top` names per track, by decreasing time.
std::string profileTable(
    const storage::StoreReader& store, const storage::NameProfile& profile, std::size_t top);
std::string profileJson(
    const storage::StoreReader& store, const storage::NameProfile& profile, std::size_t top);

}  // namespace strata::app
