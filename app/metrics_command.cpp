// `strata metrics`: the POP efficiency metrics (and their GPU extension) of a store for
// a window, as a table or JSON; with --profile, the analyzer's tracks x names table.
// The computation lives in storage/analysis/efficiency_report.h and
// storage/analysis/name_profile.h; this file parses the command line and formats (shared with
// `strata-mpi metrics`: metrics_command.h).

#include "app/metrics_command.h"

#include "app/arg_parser.h"
#include "app/metrics_format.h"
#include "app/scaling_format.h"
#include "model/role_rules.h"
#include "storage/analysis/efficiency_report.h"
#include "storage/analysis/name_profile.h"
#include "storage/store/input_error.h"

#include <cstdio>
#include <fstream>
#include <sstream>

namespace strata::app {

namespace {

model::RoleRules loadRules(const std::string& path)
{
    std::ifstream in(path, std::ios::binary);
    if (!in)
        throw storage::InputError(path + ": cannot open the rules file");
    std::ostringstream text;
    text << in.rdbuf();
    try {
        return model::RoleRules::parse(text.str());
    } catch (const std::invalid_argument& e) {
        throw storage::InputError(path + ": " + e.what());
    }
}

}  // namespace

MetricsArgs metricsArgsFrom(const Args& args)
{
    ArgParser p(args, { "--window", "--level", "--rules", "--top", "--slots" },
        { "--json", "--profile", "--all-workers", "--strong", "--weak" });
    if (p.positional().empty())
        throw UsageError { "metrics needs a STORE (or several runs to compare)" };
    if (p.positional().size() > 1 && (p.flag("--profile") || p.value("--window")))
        throw UsageError { "--profile and --window take one STORE" };
    if (p.flag("--strong") && p.flag("--weak"))
        throw UsageError { "--strong and --weak exclude each other" };

    MetricsArgs a;
    a.stores = p.positional();
    if (const auto window = windowOption(p))
        a.request.window = *window;
    a.request.level = levelOption(p);
    if (auto path = p.value("--rules"))
        a.rules = loadRules(*path);
    a.request.maxSlots = static_cast<int>(p.integer("--slots", 4096, 16, 1 << 20));
    a.request.allWorkers = p.flag("--all-workers");
    a.request.idealReplay = true;
    a.json = p.flag("--json");
    a.rulesPath = p.valueOr("--rules", "");
    a.profile = p.flag("--profile");
    if (a.profile)
        a.top = static_cast<std::size_t>(p.integer("--top", 10, 1, 1'000'000));
    if (p.flag("--strong"))
        a.force = model::Scaling::Strong;
    if (p.flag("--weak"))
        a.force = model::Scaling::Weak;
    return a;
}

std::unique_ptr<storage::StoreReader> LocalMetricsEngine::open(const std::string& path)
{
    return std::make_unique<storage::StoreReader>(path);
}

storage::EfficiencyReport LocalMetricsEngine::efficiency(
    storage::StoreReader& store, const storage::EfficiencyRequest& request)
{
    return storage::computeEfficiency(store, request);
}

storage::NameProfile LocalMetricsEngine::profile(storage::StoreReader& store,
    std::span<const model::TrackId> tracks, model::TimeRange window, int maxSlots)
{
    return storage::profileNames(store, tracks, window, maxSlots);
}

std::string metricsOutput(const MetricsArgs& a, MetricsEngine& engine)
{
    storage::EfficiencyRequest request = a.request;
    request.rules = a.rules ? &*a.rules : nullptr;

    if (a.stores.size() > 1) {
        request.counters = true;  // also the useful time per thread the table needs
        std::vector<storage::ScalingRun> runs;
        for (const std::string& path : a.stores) {
            const auto run = engine.open(path);
            const storage::EfficiencyReport report = engine.efficiency(*run, request);
            if (engine.formats())
                runs.push_back(storage::scalingRun(path, report));
        }
        if (!engine.formats())
            return {};
        const model::ScalingTable table = storage::scalingTableOf(runs, a.force);
        return a.json ? scalingJson(table, runs) : scalingText(table, runs);
    }
    const auto store = engine.open(a.stores[0]);
    request.counters = storage::hasUsefulCounters(*store);

    if (a.profile) {
        const model::TimeRange window =
            request.window.empty() ? store->activitySpan() : request.window;
        const model::WorkerLevel level = request.level.value_or(model::WorkerLevel::Thread);
        std::vector<model::TrackId> tracks;
        for (const model::Worker& w : model::workersAt(store->resources(), level,
                 [&](model::TrackId t) { return store->summary(t).intervals > 0; })) {
            tracks.insert(tracks.end(), w.tracks.begin(), w.tracks.end());
        }
        const auto profile = engine.profile(*store, tracks, window, request.maxSlots);
        if (!engine.formats())
            return {};
        return a.json ? profileJson(*store, profile, a.top) : profileTable(*store, profile, a.top);
    }

    const storage::EfficiencyReport report = engine.efficiency(*store, request);
    if (!engine.formats())
        return {};
    const RulesSource source { request.rules, a.rulesPath };
    return a.json ? metricsJson(*store, report, source) : metricsTable(*store, report, source);
}

int metricsCommand(const Args& args)
{
    LocalMetricsEngine engine;
    std::fputs(metricsOutput(metricsArgsFrom(args), engine).c_str(), stdout);
    return kExitOk;
}

}  // namespace strata::app
