#include "app/scaling_format.h"

#include "model/json_text.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <map>
#include <optional>

namespace strata::app {

using model::ScalingColumn;

namespace {

std::string format(const char* fmt, auto... args)
{
    char buf[512];
    std::snprintf(buf, sizeof buf, fmt, args...);
    return buf;
}

std::string jsonNumber(const std::optional<double>& v)
{
    return v ? format("%.10g", *v) : std::string("null");
}

const char* scalingName(model::Scaling s)
{
    return s == model::Scaling::Weak ? "weak" : "strong";
}

/// The rows of the table: label and value of a column (nullopt: not available).
struct Row
{
    const char* label;
    std::function<std::optional<double>(const ScalingColumn&)> value;
};

const std::vector<Row>& rows()
{
    static const std::vector<Row> kRows = {
        { "Global efficiency",
            [](const ScalingColumn& c) {
                return c.globalEfficiency;
            } },
        { "  Parallel efficiency",
            [](const ScalingColumn& c) {
                return c.run.parallelEfficiency;
            } },
        { "    Load balance",
            [](const ScalingColumn& c) {
                return c.run.loadBalance;
            } },
        { "    Communication efficiency",
            [](const ScalingColumn& c) {
                return c.run.communicationEfficiency;
            } },
        { "      Serialization efficiency",
            [](const ScalingColumn& c) {
                return c.run.serializationEfficiency;
            } },
        { "      Transfer efficiency",
            [](const ScalingColumn& c) {
                return c.run.transferEfficiency;
            } },
        { "  Computation scalability",
            [](const ScalingColumn& c) {
                return c.computationScalability;
            } },
        { "    Instruction scalability",
            [](const ScalingColumn& c) {
                return c.instructionScalability;
            } },
        { "    IPC scalability",
            [](const ScalingColumn& c) {
                return c.ipcScalability;
            } },
        { "    Frequency scalability",
            [](const ScalingColumn& c) {
                return c.frequencyScalability;
            } },
        { "Speedup",
            [](const ScalingColumn& c) {
                return c.speedup;
            } },
        { "Average useful IPC",
            [](const ScalingColumn& c) {
                return c.averageIpc;
            } },
        { "Average useful frequency (GHz)",
            [](const ScalingColumn& c) {
                return c.averageFrequencyGhz;
            } },
    };
    return kRows;
}

std::map<std::string, std::vector<std::string>> notesByStore(const std::vector<ScalingRun>& runs)
{
    std::map<std::string, std::vector<std::string>> out;
    for (const ScalingRun& r : runs)
        out[r.factors.store] = r.notes;
    return out;
}

}  // namespace

ScalingRun scalingRun(const std::string& store, const storage::EfficiencyReport& report)
{
    ScalingRun run;
    model::RunFactors& f = run.factors;
    f.store = store;
    f.runtimeNs = report.window.durationNs();
    f.parallelEfficiency = report.pop.parallelEfficiency;
    f.loadBalance = report.pop.loadBalance;
    f.communicationEfficiency = report.pop.communicationEfficiency;
    f.serializationEfficiency = report.pop.serializationEfficiency;
    f.transferEfficiency = report.pop.transferEfficiency;
    if (!report.replayUnavailable.empty())
        run.notes.push_back("serialization/transfer not available: " + report.replayUnavailable);
    std::map<std::string, int> threadsPerProcess;
    if (report.counters) {
        for (const storage::ThreadCounters& t : report.counters->threads)
            ++threadsPerProcess[t.process];
        f.usefulNs = report.counters->usefulNs();
        if (report.counters->complete()) {
            f.instructions = report.counters->instructions();
            f.cycles = report.counters->cycles();
        } else {
            run.notes.push_back("no hardware counters (PAPI_TOT_INS and PAPI_TOT_CYC on every "
                                "thread with useful time): no IPC or frequency");
        }
    }
    f.processes = report.level == model::WorkerLevel::Process
        ? static_cast<int>(report.workers.size())
        : static_cast<int>(std::max<std::size_t>(1, threadsPerProcess.size()));
    for (const auto& [process, n] : threadsPerProcess)
        f.threads = std::max(f.threads, n);
    return run;
}

std::string scalingText(const model::ScalingTable& table, const std::vector<ScalingRun>& runs)
{
    std::string out = format("scaling: %s (detected %s from useful %s; --strong / --weak force "
                             "it)\n\n",
        scalingName(table.scaling), scalingName(table.detected),
        table.detectedFromInstructions ? "instructions" : "time (no counters in every run)");
    constexpr int kLabel = 32, kColumn = 13;
    out += format("%-*s", kLabel, "");
    for (const ScalingColumn& c : table.columns) {
        std::string name = std::filesystem::path(c.run.store).stem().string();
        if (name.size() > kColumn - 1)
            name = name.substr(0, kColumn - 2) + "~";
        out += format("%*s", kColumn, name.c_str());
    }
    out += "\n";
    for (const Row& row : rows()) {
        out += format("%-*s", kLabel, row.label);
        for (const ScalingColumn& c : table.columns) {
            const auto v = row.value(c);
            out += v ? format("%*.4f", kColumn, *v) : format("%*s", kColumn, "-");
        }
        out += "\n";
    }
    out += format("%-*s", kLabel, "Runtime");
    for (const ScalingColumn& c : table.columns)
        out += format("%*s", kColumn, model::formatDuration(c.run.runtimeNs).c_str());
    out += format("\n%-*s", kLabel, "Processes x threads");
    for (const ScalingColumn& c : table.columns)
        out += format("%*s", kColumn, format("%d x %d", c.run.processes, c.run.threads).c_str());
    out += "\n";
    const auto notes = notesByStore(runs);
    for (const ScalingColumn& c : table.columns) {
        for (const std::string& note : notes.at(c.run.store))
            out += "\n" + c.run.store + ": " + note;
    }
    if (!notes.empty())
        out += "\n";
    return out;
}

std::string scalingJson(const model::ScalingTable& table, const std::vector<ScalingRun>& runs)
{
    std::string out = "{\"runs\":[";
    const auto notes = notesByStore(runs);
    for (std::size_t i = 0; i < table.columns.size(); ++i) {
        const ScalingColumn& c = table.columns[i];
        const model::RunFactors& r = c.run;
        out += i ? "," : "";
        out += "{\"store\":" + model::jsonString(r.store) + ",\"processes\":"
            + std::to_string(r.processes) + ",\"threads\":" + std::to_string(r.threads)
            + ",\"runtime_ns\":" + std::to_string(r.runtimeNs) + ",\"parallel_efficiency\":"
            + jsonNumber(r.parallelEfficiency) + ",\"load_balance\":" + jsonNumber(r.loadBalance)
            + ",\"communication_efficiency\":" + jsonNumber(r.communicationEfficiency)
            + ",\"serialization_efficiency\":" + jsonNumber(r.serializationEfficiency)
            + ",\"transfer_efficiency\":" + jsonNumber(r.transferEfficiency)
            + ",\"computation_scalability\":" + jsonNumber(c.computationScalability)
            + ",\"global_efficiency\":" + jsonNumber(c.globalEfficiency)
            + ",\"instruction_scalability\":" + jsonNumber(c.instructionScalability)
            + ",\"ipc_scalability\":" + jsonNumber(c.ipcScalability) + ",\"frequency_scalability\":"
            + jsonNumber(c.frequencyScalability) + ",\"speedup\":" + jsonNumber(c.speedup)
            + ",\"average_ipc\":" + jsonNumber(c.averageIpc)
            + ",\"average_frequency_ghz\":" + jsonNumber(c.averageFrequencyGhz) + ",\"notes\":[";
        const auto& n = notes.at(r.store);
        for (std::size_t k = 0; k < n.size(); ++k)
            out += (k ? "," : "") + model::jsonString(n[k]);
        out += "]}";
    }
    out += "],\"scaling\":\"" + std::string(scalingName(table.scaling))
        + "\",\"detected_scaling\":\"" + scalingName(table.detected) + "\",\"detected_from\":\""
        + (table.detectedFromInstructions ? "useful_instructions" : "useful_time") + "\"}\n";
    return out;
}

}  // namespace strata::app
