#include "app/metrics_format.h"

#include "model/json_text.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <optional>

namespace strata::app {

using model::Role;
using model::TimeNs;

namespace {

constexpr const char* kNotAvailable = "serialization/transfer split needs the ideal-network replay";
constexpr const char* kNoCounters = "no hardware counters (Extrae's PAPI_TOT_INS and PAPI_TOT_CYC "
                                    "on every thread with useful time)";

/// Why SerE/TE are missing from a host-level report.
std::string replayReason(const storage::EfficiencyReport& r)
{
    return r.replayUnavailable.empty() ? kNotAvailable : r.replayUnavailable;
}

/// Average useful IPC and frequency (GHz), when every thread with useful time has both
/// counters.
std::optional<std::pair<double, double>> ipcAndFrequency(const storage::EfficiencyReport& r)
{
    if (!r.counters || !r.counters->complete() || r.counters->cycles() <= 0
        || r.counters->usefulNs() <= 0)
        return std::nullopt;
    return std::pair { r.counters->instructions() / r.counters->cycles(),
        r.counters->cycles() / static_cast<double>(r.counters->usefulNs()) };
}

std::string format(const char* fmt, auto... args)
{
    char buf[512];
    std::snprintf(buf, sizeof buf, fmt, args...);
    return buf;
}

std::string num(double v)
{
    return format("%.4f", v);
}

std::string ns(TimeNs v)
{
    return std::to_string(v);
}

std::string ruleLabel(const RulesSource& rules, int rule)
{
    if (rule < 0 || !rules.rules)
        return "importer";
    const auto& r = rules.rules->rules()[static_cast<std::size_t>(rule)];
    return rules.path + ":" + std::to_string(r.line) + " " + r.text;
}

std::string nameText(const storage::StoreReader& store, model::StringId name)
{
    return name == storage::kOtherNames ? std::string("(other names)")
                                        : std::string(store.strings().text(name));
}

/// Per role: coverage by rule and the top names, largest first.
struct RoleSources
{
    std::vector<std::pair<std::string, TimeNs>> rules;
    std::vector<std::pair<std::string, TimeNs>> names;
};

std::map<Role, RoleSources> roleSources(const storage::StoreReader& store,
    const storage::EfficiencyReport& r, const RulesSource& rules, std::size_t topNames)
{
    std::map<Role, RoleSources> out;
    for (const auto& [key, t] : r.attribution.byRule)
        out[key.first].rules.emplace_back(ruleLabel(rules, key.second), t);
    for (const auto& [key, t] : r.attribution.byName)
        out[key.first].names.emplace_back(nameText(store, key.second), t);
    auto bySize = [](const auto& a, const auto& b) {
        return a.second != b.second ? a.second > b.second : a.first < b.first;
    };
    for (auto& [role, s] : out) {
        std::sort(s.rules.begin(), s.rules.end(), bySize);
        std::sort(s.names.begin(), s.names.end(), bySize);
        if (s.names.size() > topNames)
            s.names.resize(topNames);
    }
    return out;
}

void appendWorker(std::string& out, const model::WorkerTimes& w)
{
    const model::RoleTimes& t = w.times;
    out += "{\"name\":" + model::jsonString(w.name) + ",\"useful_ns\":" + ns(t.at(Role::Useful))
        + ",\"comm_ns\":" + ns(t.at(Role::Comm)) + ",\"sync_ns\":" + ns(t.at(Role::Sync))
        + ",\"transfer_ns\":" + ns(t.at(Role::Transfer))
        + ",\"runtime_ns\":" + ns(t.at(Role::Runtime)) + ",\"idle_ns\":" + ns(t.idleNs())
        + ",\"error_ns\":" + ns(*std::max_element(t.errorNs.begin(), t.errorNs.end())) + "}";
}

template<typename T, typename Fn>
void appendList(std::string& out, const std::vector<T>& items, Fn fn)
{
    out += "[";
    for (std::size_t i = 0; i < items.size(); ++i) {
        if (i)
            out += ",";
        fn(items[i]);
    }
    out += "]";
}

std::string percent(TimeNs part, TimeNs whole)
{
    return whole > 0
        ? format("%5.1f%%", 100.0 * static_cast<double>(part) / static_cast<double>(whole))
        : "   -  ";
}

/// The first `top` rows of each track (rows come grouped by track, largest first).
std::vector<storage::NameStat> topRows(const storage::NameProfile& profile, std::size_t top)
{
    std::vector<storage::NameStat> out;
    model::TrackId current = model::kNoTrack;
    std::size_t shown = 0;
    for (const storage::NameStat& s : profile.rows) {
        if (s.track != current) {
            current = s.track;
            shown = 0;
        }
        if (shown++ < top)
            out.push_back(s);
    }
    return out;
}

}  // namespace

std::string metricsJson(
    const storage::StoreReader& store, const storage::EfficiencyReport& r, const RulesSource& rules)
{
    std::string out = "{\"store\":" + model::jsonString(store.path().string());
    out += ",\"window\":{\"start_ns\":" + ns(r.window.startNs) + ",\"end_ns\":" + ns(r.window.endNs)
        + "}";
    out += ",\"level\":" + model::jsonString(model::workerLevelName(r.level));
    out += ",\"runtime_ns\":" + ns(r.window.durationNs());
    out += ",\"exact\":" + std::string(r.exact ? "true" : "false");
    out += ",\"parallel_efficiency\":" + num(r.pop.parallelEfficiency);
    out += ",\"load_balance\":" + num(r.pop.loadBalance);
    if (r.gpu) {
        out += ",\"communication_efficiency\":" + num(r.gpu->communicationEfficiency);
        out += ",\"orchestration_efficiency\":" + num(r.gpu->orchestrationEfficiency);
        out += ",\"gpu\":{\"gpus\":" + std::to_string(r.gpu->gpus) + ",\"sum_compute_ns\":"
            + ns(r.gpu->sumComputeNs) + ",\"max_compute_ns\":" + ns(r.gpu->maxComputeNs)
            + ",\"max_compute_and_comm_ns\":" + ns(r.gpu->maxComputeAndCommNs) + "}";
    } else {
        out += ",\"communication_efficiency\":" + num(r.pop.communicationEfficiency);
    }
    const auto& serE = r.pop.serializationEfficiency;
    const auto& te = r.pop.transferEfficiency;
    out += ",\"serialization_efficiency\":" + (serE && !r.gpu ? num(*serE) : "null");
    out += ",\"transfer_efficiency\":" + (te && !r.gpu ? num(*te) : "null");
    if (r.idealRuntimeNs && !r.gpu)
        out += ",\"ideal_runtime_ns\":" + ns(*r.idealRuntimeNs);
    const auto ipc = ipcAndFrequency(r);
    out += ",\"average_ipc\":" + (ipc ? num(ipc->first) : "null");
    out += ",\"average_frequency_ghz\":" + (ipc ? num(ipc->second) : "null");
    std::vector<std::pair<const char*, std::string>> missing;
    if (!serE || r.gpu) {
        const std::string why = r.gpu ? kNotAvailable : replayReason(r);
        missing.emplace_back("serialization_efficiency", why);
        missing.emplace_back("transfer_efficiency", why);
    }
    if (!ipc) {
        missing.emplace_back("average_ipc", kNoCounters);
        missing.emplace_back("average_frequency_ghz", kNoCounters);
    }
    out += ",\"not_available\":{";
    for (std::size_t i = 0; i < missing.size(); ++i)
        out += (i ? ",\"" : "\"") + std::string(missing[i].first)
            + "\":" + model::jsonString(missing[i].second);
    out += "}";
    out += ",\"error_bound\":" + num(r.gpu ? r.gpu->errorBound : r.pop.errorBound);
    if (const auto& h = r.hybrid) {
        out += ",\"hybrid\":{\"parallel_efficiency\":" + num(h->parallelEfficiency)
            + ",\"mpi_parallel_efficiency\":" + num(h->mpiParallelEfficiency)
            + ",\"mpi_load_balance\":" + num(h->mpiLoadBalance)
            + ",\"mpi_communication_efficiency\":" + num(h->mpiCommunicationEfficiency)
            + ",\"thread_parallel_efficiency\":" + num(h->threadParallelEfficiency) + "}";
    }
    if (r.hostPop) {
        out += ",\"host\":{\"level\":\"process\",\"parallel_efficiency\":"
            + num(r.hostPop->parallelEfficiency)
            + ",\"load_balance\":" + num(r.hostPop->loadBalance) + ",\"communication_efficiency\":"
            + num(r.hostPop->communicationEfficiency) + ",\"device_offload_efficiency\":"
            + num(r.deviceOffloadEfficiency.value_or(0)) + ",\"workers\":";
        appendList(
            out, r.hostProcesses, [&](const model::WorkerTimes& w) { appendWorker(out, w); });
        out += "}";
    }
    if (r.gpu) {
        out += ",\"gpu_idle_causes\":";
        appendList(out, r.gpuIdle, [&](const storage::GpuIdleCauses& c) {
            out += "{\"gpu\":" + model::jsonString(c.gpu) + ",\"process\":"
                + model::jsonString(c.process) + ",\"gpu_idle_ns\":" + ns(c.gpuIdleNs);
            for (Role role : model::kAllRoles)
                out += ",\"host_" + std::string(model::roleName(role))
                    + "_ns\":" + ns(c.hostRoleNs[static_cast<std::size_t>(role)]);
            out += ",\"host_inactive_ns\":" + ns(c.hostInactiveNs) + "}";
        });
    }
    out += ",\"workers\":";
    appendList(out, r.workers, [&](const model::WorkerTimes& w) { appendWorker(out, w); });
    out += ",\"ignored_workers\":";
    appendList(out, r.ignoredWorkers, [&](const std::string& n) { out += model::jsonString(n); });
    out += ",\"roles\":{\"source\":"
        + model::jsonString(
            rules.rules ? "rules file " + rules.path : "importer roles and default rules");
    for (const auto& [role, s] : roleSources(store, r, rules, 5)) {
        out += ",\"" + std::string(model::roleName(role)) + "\":{\"by_rule\":";
        appendList(out, s.rules, [&](const auto& x) {
            out += "{\"rule\":" + model::jsonString(x.first) + ",\"coverage_ns\":" + ns(x.second)
                + "}";
        });
        out += ",\"top_names\":";
        appendList(out, s.names, [&](const auto& x) {
            out += "{\"name\":" + model::jsonString(x.first) + ",\"coverage_ns\":" + ns(x.second)
                + "}";
        });
        out += "}";
    }
    out += "}}\n";
    return out;
}

std::string metricsTable(
    const storage::StoreReader& store, const storage::EfficiencyReport& r, const RulesSource& rules)
{
    const TimeNs T = r.window.durationNs();
    std::string out =
        format("window       %s .. %s (%s)\n", model::formatDuration(r.window.startNs).c_str(),
            model::formatDuration(r.window.endNs).c_str(), model::formatDuration(T).c_str());
    out += format("level        %s, %zu workers%s\n",
        std::string(model::workerLevelName(r.level)).c_str(), r.workers.size(),
        r.exact ? " (exact)" : " (from the pyramid; bounds below)");
    out += "\n";
    out += format("  Parallel efficiency          %s\n", num(r.pop.parallelEfficiency).c_str());
    out += format("    Load balance               %s\n", num(r.pop.loadBalance).c_str());
    if (r.gpu) {
        out += format("    Communication efficiency   %s   (max B / max(B + C))\n",
            num(r.gpu->communicationEfficiency).c_str());
        out += format("    Orchestration efficiency   %s   (max(B + C) / T)\n",
            num(r.gpu->orchestrationEfficiency).c_str());
    } else {
        out += format(
            "    Communication efficiency   %s\n", num(r.pop.communicationEfficiency).c_str());
    }
    if (r.pop.serializationEfficiency && r.pop.transferEfficiency && !r.gpu) {
        out += format("      Serialization efficiency %s   (max useful / T_ideal, T_ideal %s)\n",
            num(*r.pop.serializationEfficiency).c_str(),
            model::formatDuration(r.idealRuntimeNs.value_or(0)).c_str());
        out += format("      Transfer efficiency      %s   (T_ideal / T)\n",
            num(*r.pop.transferEfficiency).c_str());
    } else {
        out += format("      Serialization / Transfer  not available: %s\n",
            (r.gpu ? std::string(kNotAvailable) : replayReason(r)).c_str());
    }
    if (const auto& h = r.hybrid) {
        out += format("  Hybrid: PE %s = MPI PE %s (LB %s x CommE %s, main threads outside MPI) "
                      "x thread PE %s\n",
            num(h->parallelEfficiency).c_str(), num(h->mpiParallelEfficiency).c_str(),
            num(h->mpiLoadBalance).c_str(), num(h->mpiCommunicationEfficiency).c_str(),
            num(h->threadParallelEfficiency).c_str());
    }
    if (const auto ipc = ipcAndFrequency(r)) {
        out += format("  Average useful IPC           %s\n", num(ipc->first).c_str());
        out += format("  Average useful frequency     %s GHz\n", num(ipc->second).c_str());
    } else if (!r.gpu) {
        out += format("  Average useful IPC/frequency not available: %s\n", kNoCounters);
    }
    if (!r.exact)
        out += format("  error bound (metrics)        +-%s\n",
            num(r.gpu ? r.gpu->errorBound : r.pop.errorBound).c_str());
    if (r.hostPop) {
        out +=
            format("\n  Host (processes)  PE %s  LB %s  CommE %s  device-offload efficiency %s\n",
                num(r.hostPop->parallelEfficiency).c_str(), num(r.hostPop->loadBalance).c_str(),
                num(r.hostPop->communicationEfficiency).c_str(),
                num(r.deviceOffloadEfficiency.value_or(0)).c_str());
    }
    out += format("\n%-40s %10s %10s %10s %10s %10s %10s\n", "worker", "useful", "comm", "sync",
        "transfer", "runtime", "idle");
    auto row = [&](const model::WorkerTimes& w) {
        const model::RoleTimes& t = w.times;
        out += format("%-40s %10s %10s %10s %10s %10s %10s\n", w.name.c_str(),
            model::formatDuration(t.at(Role::Useful)).c_str(),
            model::formatDuration(t.at(Role::Comm)).c_str(),
            model::formatDuration(t.at(Role::Sync)).c_str(),
            model::formatDuration(t.at(Role::Transfer)).c_str(),
            model::formatDuration(t.at(Role::Runtime)).c_str(),
            model::formatDuration(t.idleNs()).c_str());
    };
    for (const auto& w : r.workers)
        row(w);
    if (!r.hostProcesses.empty()) {
        out += "host processes:\n";
        for (const auto& w : r.hostProcesses)
            row(w);
    }
    if (!r.gpuIdle.empty()) {
        out += "\nGPU idle, and what its host process did meanwhile:\n";
        for (const auto& c : r.gpuIdle) {
            out += format(
                "  %-28s idle %9s: ", c.gpu.c_str(), model::formatDuration(c.gpuIdleNs).c_str());
            for (Role role : model::kAllRoles) {
                const TimeNs t = c.hostRoleNs[static_cast<std::size_t>(role)];
                if (t > 0)
                    out += format("%s %s  ", std::string(model::roleName(role)).c_str(),
                        percent(t, c.gpuIdleNs).c_str());
            }
            out += format("no host activity %s\n", percent(c.hostInactiveNs, c.gpuIdleNs).c_str());
        }
    }
    if (!r.ignoredWorkers.empty()) {
        out += "\nleft out (under 1% of the busiest worker's intervals; --all-workers keeps them):";
        for (const auto& n : r.ignoredWorkers)
            out += " " + n + ";";
        out += "\n";
    }
    out += format("\nroles from %s (coverage, before overlaps resolve):\n",
        rules.rules ? ("rules file " + rules.path).c_str()
                    : "the importers and the default rules (docs/metrics.md)");
    for (const auto& [role, s] : roleSources(store, r, rules, 3)) {
        out += format("  %-9s", std::string(model::roleName(role)).c_str());
        for (const auto& [label, t] : s.rules)
            out += format(" [%s %s]", label.c_str(), model::formatDuration(t).c_str());
        out += "  top:";
        for (const auto& [name, t] : s.names)
            out +=
                format(" %s (%s);", name.substr(0, 40).c_str(), model::formatDuration(t).c_str());
        out += "\n";
    }
    return out;
}

std::string profileTable(
    const storage::StoreReader& store, const storage::NameProfile& profile, std::size_t top)
{
    std::string out =
        format("profile of %s .. %s: time per track and name; count/mean/stddev/CV only for tracks "
               "read exactly (%zu)\n",
            model::formatDuration(profile.window.startNs).c_str(),
            model::formatDuration(profile.window.endNs).c_str(), profile.exactTracks.size());
    out += format("%-36s %-40s %-8s %10s %8s %10s %10s %6s %7s\n", "track", "name", "role", "total",
        "count", "mean", "stddev", "CV", "%win");
    for (const storage::NameStat& s : topRows(profile, top)) {
        auto opt = [](const std::optional<double>& v) {
            return v ? model::formatDuration(static_cast<TimeNs>(*v)) : std::string("-");
        };
        out += format("%-36s %-40s %-8s %10s %8s %10s %10s %6s %6.1f%%\n",
            store.resources().path(s.track).substr(0, 36).c_str(),
            nameText(store, s.name).substr(0, 40).c_str(),
            std::string(model::roleName(s.role)).c_str(), model::formatDuration(s.totalNs).c_str(),
            s.count ? std::to_string(*s.count).c_str() : "-", opt(s.meanNs).c_str(),
            opt(s.stddevNs).c_str(),
            s.coefficientOfVariation ? format("%.2f", *s.coefficientOfVariation).c_str() : "-",
            100.0 * s.windowShare);
    }
    return out;
}

std::string profileJson(
    const storage::StoreReader& store, const storage::NameProfile& profile, std::size_t top)
{
    std::string out = "{\"window\":{\"start_ns\":" + ns(profile.window.startNs)
        + ",\"end_ns\":" + ns(profile.window.endNs) + "},\"rows\":[";
    bool first = true;
    for (const storage::NameStat& s : topRows(profile, top)) {
        out += first ? "" : ",";
        first = false;
        auto opt = [](const std::optional<double>& v) {
            return v ? format("%.3f", *v) : std::string("null");
        };
        out += "{\"track\":" + model::jsonString(store.resources().path(s.track))
            + ",\"name\":" + model::jsonString(nameText(store, s.name)) + ",\"role\":\""
            + std::string(model::roleName(s.role)) + "\",\"total_ns\":" + ns(s.totalNs)
            + ",\"count\":" + (s.count ? std::to_string(*s.count) : "null")
            + ",\"mean_ns\":" + opt(s.meanNs) + ",\"stddev_ns\":" + opt(s.stddevNs)
            + ",\"cv\":" + opt(s.coefficientOfVariation)
            + ",\"window_share\":" + format("%.6f", s.windowShare) + "}";
    }
    out += "]}\n";
    return out;
}

}  // namespace strata::app
