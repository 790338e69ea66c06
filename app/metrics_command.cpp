// `strata metrics`: the POP efficiency metrics (and their GPU extension) of a store for
// a window, as a table or JSON; with --profile, the analyzer's tracks x names table.
// The computation lives in storage/analysis/efficiency_report.h and storage/analysis/name_profile.h; this
// file parses the command line and formats.

#include "app/arg_parser.h"
#include "app/commands.h"
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

int metricsCommand(const Args& args)
{
    ArgParser p(args, { "--window", "--level", "--rules", "--top", "--slots" },
        { "--json", "--profile", "--all-workers", "--strong", "--weak" });
    if (p.positional().empty())
        throw UsageError { "metrics needs a STORE (or several runs to compare)" };
    if (p.positional().size() > 1 && (p.flag("--profile") || p.value("--window")))
        throw UsageError { "--profile and --window take one STORE" };
    if (p.flag("--strong") && p.flag("--weak"))
        throw UsageError { "--strong and --weak exclude each other" };

    storage::EfficiencyRequest request;
    if (const auto window = windowOption(p))
        request.window = *window;
    request.level = levelOption(p);
    std::optional<model::RoleRules> rules;
    if (auto path = p.value("--rules")) {
        rules = loadRules(*path);
        request.rules = &*rules;
    }
    request.maxSlots = static_cast<int>(p.integer("--slots", 4096, 16, 1 << 20));
    request.allWorkers = p.flag("--all-workers");
    const bool json = p.flag("--json");
    const std::string rulesSource = p.valueOr("--rules", "");
    request.idealReplay = true;

    if (p.positional().size() > 1) {
        request.counters = true;  // also the useful time per thread the table needs
        std::vector<storage::ScalingRun> runs;
        for (const std::string& path : p.positional()) {
            storage::StoreReader run(path);
            runs.push_back(storage::scalingRun(path, storage::computeEfficiency(run, request)));
        }
        std::optional<model::Scaling> force;
        if (p.flag("--strong"))
            force = model::Scaling::Strong;
        if (p.flag("--weak"))
            force = model::Scaling::Weak;
        const model::ScalingTable table = storage::scalingTableOf(runs, force);
        std::fputs((json ? scalingJson(table, runs) : scalingText(table, runs)).c_str(), stdout);
        return kExitOk;
    }
    storage::StoreReader store(p.positional()[0]);
    request.counters = storage::hasUsefulCounters(store);

    if (p.flag("--profile")) {
        const model::TimeRange window = request.window.empty() ? store.activitySpan() : request.window;
        const model::WorkerLevel level = request.level.value_or(model::WorkerLevel::Thread);
        std::vector<model::TrackId> tracks;
        for (const model::Worker& w : model::workersAt(store.resources(), level,
                 [&](model::TrackId t) { return store.summary(t).intervals > 0; })) {
            tracks.insert(tracks.end(), w.tracks.begin(), w.tracks.end());
        }
        const auto profile = storage::profileNames(store, tracks, window, request.maxSlots);
        const auto top = static_cast<std::size_t>(p.integer("--top", 10, 1, 1'000'000));
        std::fputs(
            (json ? profileJson(store, profile, top) : profileTable(store, profile, top)).c_str(),
            stdout);
        return kExitOk;
    }

    const storage::EfficiencyReport report = storage::computeEfficiency(store, request);
    const RulesSource source { request.rules, rulesSource };
    std::fputs(
        (json ? metricsJson(store, report, source) : metricsTable(store, report, source)).c_str(),
        stdout);
    return kExitOk;
}

}  // namespace strata::app
