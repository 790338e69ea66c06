#include "app/scaling_format.h"

#include "model/json_text.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
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

}  // namespace

std::string scalingText(
    const model::ScalingTable& table, const std::vector<storage::ScalingRun>& runs)
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
    for (const model::ScalingRow& row : model::scalingRows()) {
        out += format("%-*s", kLabel, (std::string(2 * row.indent, ' ') + row.label).c_str());
        for (const ScalingColumn& c : table.columns) {
            const auto v = row.value(c);
            // A space always separates columns; huge ratios (runs of unrelated codes)
            // switch to 4 significant digits.
            out += !v ? format(" %*s", kColumn - 1, "-")
                      : format(std::abs(*v) < 1e6 ? " %*.4f" : " %*.4g", kColumn - 1, *v);
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
    bool anyNote = false;
    for (const ScalingColumn& c : table.columns) {
        for (const std::string& note : storage::notesOf(runs, c.run.store)) {
            out += "\n" + c.run.store + ": " + note;
            anyNote = true;
        }
    }
    if (anyNote)
        out += "\n";
    return out;
}

std::string scalingJson(
    const model::ScalingTable& table, const std::vector<storage::ScalingRun>& runs)
{
    std::string out = "{\"runs\":[";
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
        const auto n = storage::notesOf(runs, r.store);
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
