// `strata variability`: per-name duration distributions across instances and workers,
// stragglers and their causes, and what coincides with slow instances, as a table or
// JSON. The computation lives in storage/analysis/variability.h; this file parses the
// command line and formats.

#include "app/arg_parser.h"
#include "app/commands.h"
#include "app/variability_command.h"
#include "model/json_text.h"
#include "storage/analysis/variability.h"

#include <cstdio>

namespace strata::app {

namespace {

using model::TimeNs;
using storage::DurationStats;

std::string number(double v)
{
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.6g", v);
    return buf;
}

void appendStats(std::string& out, const DurationStats& s)
{
    out += "\"count\": " + std::to_string(s.count) + ", \"total_ns\": " + std::to_string(s.totalNs)
        + ", \"mean_ns\": " + number(s.meanNs) + ", \"p50_ns\": " + std::to_string(s.p50Ns)
        + ", \"p95_ns\": " + std::to_string(s.p95Ns) + ", \"p99_ns\": " + std::to_string(s.p99Ns)
        + ", \"max_ns\": " + std::to_string(s.maxNs) + ", \"stddev_ns\": " + number(s.stddevNs)
        + ", \"cv\": " + number(s.cv) + ", \"outliers\": " + std::to_string(s.outliers)
        + ", \"variability_cost_ns\": " + std::to_string(s.costNs);
}

std::string side(bool device)
{
    return device ? "\"device\"" : "\"host\"";
}

/// Joins items produced by `each` with ", ".
template<typename Range, typename Each>
std::string list(const Range& items, Each each)
{
    std::string out = "[";
    bool first = true;
    for (const auto& item : items) {
        out += first ? "" : ", ";
        first = false;
        out += each(item);
    }
    return out + "]";
}

std::string variabilityJson(const storage::VariabilityReport& r)
{
    using namespace storage;
    std::string out = "{\n  \"window\": {\"start_ns\": " + std::to_string(r.window.startNs)
        + ", \"end_ns\": " + std::to_string(r.window.endNs)
        + "},\n  \"level\": " + model::jsonString(model::workerLevelName(r.level))
        + ",\n  \"quantiles\": " + "\"nearest-rank\",\n  \"names\": [";
    bool first = true;
    for (const NameVariability& n : r.names) {
        out += first ? "\n    {" : ",\n    {";
        first = false;
        out += "\"name\": " + model::jsonString(n.name) + ", \"side\": " + side(n.device)
            + ", \"role\": " + model::jsonString(model::roleName(n.role)) + ", ";
        appendStats(out, n.stats);
        out += ",\n     \"workers\": " + list(n.workers, [](const WorkerVariability& w) {
            std::string o = "{\"worker\": " + model::jsonString(w.worker) + ", ";
            appendStats(o, w.stats);
            return o + ", \"median_ratio\": " + number(w.medianRatio)
                + ", \"systematically_slower\": " + (w.systematicallySlower ? "true" : "false")
                + "}";
        });
        out += ",\n     \"slowest\": " + list(n.slowest, [](const SlowInstance& s) {
            return "{\"worker\": " + model::jsonString(s.worker) + ", \"track\": "
                + std::to_string(s.track) + ", \"start_ns\": " + std::to_string(s.startNs)
                + ", \"duration_ns\": " + std::to_string(s.durationNs) + "}";
        });
        out += "}";
    }
    out += "\n  ],\n  \"steps\": {\"source\": " + model::jsonString(r.stepSource)
        + ", \"compared\": " + std::to_string(r.stepsCompared)
        + ", \"straggler_threshold\": " + number(kStragglerThreshold) + "},\n  \"stragglers\": "
        + list(r.stragglers,
            [](const Straggler& s) {
                return "{\"worker\": " + model::jsonString(s.worker)
                    + ", \"excess_ns\": " + std::to_string(s.excessNs) + ", \"steps\": "
                    + list(s.steps,
                        [](const StragglerStep& st) {
                            return "{\"step\": " + model::jsonString(st.step)
                                + ", \"start_ns\": " + std::to_string(st.startNs)
                                + ", \"end_ns\": " + std::to_string(st.endNs)
                                + ", \"excess_ns\": " + std::to_string(st.excessNs) + "}";
                        })
                    + ", \"causes\": "
                    + list(s.causes,
                        [](const StragglerCause& c) {
                            return "{\"name\": " + model::jsonString(c.name)
                                + ", \"excess_ns\": " + std::to_string(c.excessNs) + "}";
                        })
                    + "}";
            })
        + ",\n  \"coincidence\": "
        + list(r.coincidence,
            [](const Coincidence& c) {
                return "{\"name\": " + model::jsonString(c.name) + ", \"side\": " + side(c.device)
                    + ", \"with\": " + model::jsonString(c.with) + ", \"slow\": " + number(c.slow)
                    + ", \"fast\": " + number(c.fast) + "}";
            })
        + ",\n  \"kernel_metrics\": "
        + list(r.kernelMetrics,
            [](const KernelMetricVariability& k) {
                return "{\"kernel\": " + model::jsonString(k.kernel) + ", \"metric\": "
                    + model::jsonString(k.metric) + ", \"unit\": " + model::jsonString(k.unit)
                    + ", \"count\": " + std::to_string(k.count) + ", \"mean\": " + number(k.mean)
                    + ", \"stddev\": " + number(k.stddev) + ", \"cv\": " + number(k.cv)
                    + ", \"min\": " + number(k.min) + ", \"max\": " + number(k.max) + "}";
            })
        + "\n}\n";
    return out;
}

std::string row(const std::string& label, const DurationStats& s, const std::string& extra = {})
{
    char buf[512];
    std::snprintf(buf, sizeof buf, "%-44.44s %8lld %10s %10s %10s %10s %6.2f %5lld %10s%s\n",
        label.c_str(), static_cast<long long>(s.count), model::formatDuration(s.totalNs).c_str(),
        model::formatDuration(s.p50Ns).c_str(), model::formatDuration(s.p95Ns).c_str(),
        model::formatDuration(s.maxNs).c_str(), s.cv, static_cast<long long>(s.outliers),
        model::formatDuration(s.costNs).c_str(), extra.c_str());
    return buf;
}

std::string variabilityTable(const storage::VariabilityReport& r)
{
    using namespace storage;
    std::string out = "window       " + model::formatDuration(r.window.startNs) + " .. "
        + model::formatDuration(r.window.endNs) + "\nlevel        "
        + std::string(model::workerLevelName(r.level))
        + " (quantiles by nearest rank; cost = time beyond the median)\n\n";
    char head[256];
    std::snprintf(head, sizeof head, "%-44s %8s %10s %10s %10s %10s %6s %5s %10s\n",
        "name / worker", "count", "total", "p50", "p95", "max", "cv", "outl", "cost");
    out += head;
    for (const NameVariability& n : r.names) {
        out += row(n.device ? n.name + " (GPU)" : n.name, n.stats);
        for (const WorkerVariability& w : n.workers)
            out += row("  " + w.worker, w.stats,
                w.systematicallySlower ? "  slower (x" + number(w.medianRatio) + " median)" : "");
        for (const SlowInstance& s : n.slowest)
            out += "    slow: " + s.worker + " at " + model::formatDuration(s.startNs) + " took "
                + model::formatDuration(s.durationNs) + "\n";
    }
    out += "\nstragglers   ";
    if (r.stepsCompared == 0)
        out +=
            "no steps (no ProfilerStep#N ranges or collectives, with a collective inside, on two "
            "workers)\n";
    else if (r.stragglers.empty())
        out += "none in " + std::to_string(r.stepsCompared) + " " + r.stepSource
            + " steps (a straggler works " + number(kStragglerThreshold * 100)
            + "% of the step longer than the others' median)\n";
    else
        out += std::to_string(r.stepsCompared) + " " + r.stepSource + " steps compared\n";
    for (const Straggler& s : r.stragglers) {
        out += "  " + s.worker + ": " + model::formatDuration(s.excessNs) + " excess in "
            + std::to_string(s.steps.size()) + " step(s)";
        for (const StragglerStep& st : s.steps)
            out += " " + st.step;
        out += "\n";
        for (const StragglerCause& c : s.causes)
            out += "    cause " + c.name.substr(0, 80) + " +" + model::formatDuration(c.excessNs)
                + "\n";
    }
    if (!r.coincidence.empty())
        out += "\ncoincidence (slow = longest tenth, fast = shorter half)\n";
    for (const Coincidence& c : r.coincidence) {
        out += "  " + c.name.substr(0, 44) + (c.device ? " (GPU)" : "") + "  " + c.with + "  slow "
            + number(c.slow) + "  fast " + number(c.fast) + "\n";
    }
    if (!r.kernelMetrics.empty())
        out += "\nkernel metrics across instances (Nsight Compute), largest CV first\n";
    for (const KernelMetricVariability& k : r.kernelMetrics) {
        if (k.cv == 0)
            continue;
        out += "  " + k.kernel.substr(0, 44) + "  " + k.metric + "  n " + std::to_string(k.count)
            + "  mean " + number(k.mean) + " " + k.unit + "  cv " + number(k.cv) + "  min "
            + number(k.min) + "  max " + number(k.max) + "\n";
    }
    return out;
}

}  // namespace

VariabilityArgs variabilityArgsFrom(const Args& args)
{
    ArgParser p(args, { "--window", "--level", "--names", "--top" }, { "--json" });
    if (p.positional().size() != 1)
        throw UsageError { "variability needs exactly one STORE" };
    VariabilityArgs out;
    out.store = p.positional()[0];
    if (const auto window = windowOption(p))
        out.request.window = *window;
    if (const auto level = levelOption(p))
        out.request.level = *level;
    out.request.namesRegex = p.valueOr("--names", "");
    out.request.top = static_cast<int>(p.integer("--top", 10, 1, 1'000'000));
    out.json = p.flag("--json");
    return out;
}

std::string variabilityText(const storage::VariabilityReport& report, bool json)
{
    return json ? variabilityJson(report) : variabilityTable(report);
}

int variabilityCommand(const Args& args)
{
    const VariabilityArgs a = variabilityArgsFrom(args);
    storage::StoreReader store(a.store);
    const storage::VariabilityReport report = storage::computeVariability(store, a.request);
    std::fputs(variabilityText(report, a.json).c_str(), stdout);
    return kExitOk;
}

}  // namespace strata::app
