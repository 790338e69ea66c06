#pragma once
// What `strata metrics` and `strata-mpi metrics` share: the command line and the output
// around storage/analysis/efficiency_report.h and name_profile.h. The figures come from a
// MetricsEngine: one process (LocalMetricsEngine), or MPI ranks that each read their own
// shards and merge on rank 0 (app/mpi/mpi_metrics.cpp); the output is the same bytes.

#include "app/commands.h"
#include "model/role_rules.h"
#include "model/scaling.h"
#include "storage/analysis/efficiency_report.h"
#include "storage/analysis/name_profile.h"

#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace strata::app {

struct MetricsArgs
{
    std::vector<std::string> stores;  ///< one, or several runs to compare
    storage::EfficiencyRequest request;  ///< its rules are set from `rules` where used
    std::optional<model::RoleRules> rules;
    std::string rulesPath;
    bool json = false;
    bool profile = false;
    std::size_t top = 10;  ///< --profile: names per track
    std::optional<model::Scaling> force;  ///< --strong / --weak
};

/// Throws UsageError, or storage::InputError for a rules file it cannot read.
MetricsArgs metricsArgsFrom(const Args& args);

/// How a store's figures are computed. A distributed engine's processes all make the same
/// calls in the same order; only where formats() holds (rank 0) are the answers whole.
class MetricsEngine
{
public:
    virtual ~MetricsEngine() = default;
    virtual std::unique_ptr<storage::StoreReader> open(const std::string& path) = 0;
    virtual storage::EfficiencyReport efficiency(
        storage::StoreReader& store, const storage::EfficiencyRequest& request) = 0;
    virtual storage::NameProfile profile(storage::StoreReader& store,
        std::span<const model::TrackId> tracks, model::TimeRange window, int maxSlots) = 0;
    virtual bool formats() const { return true; }
};

/// Everything in this process.
class LocalMetricsEngine : public MetricsEngine
{
public:
    std::unique_ptr<storage::StoreReader> open(const std::string& path) override;
    storage::EfficiencyReport efficiency(
        storage::StoreReader& store, const storage::EfficiencyRequest& request) override;
    storage::NameProfile profile(storage::StoreReader& store,
        std::span<const model::TrackId> tracks, model::TimeRange window, int maxSlots) override;
};

/// What `strata metrics` prints for `args` ("" where the engine does not format).
std::string metricsOutput(const MetricsArgs& args, MetricsEngine& engine);

}  // namespace strata::app
