#include "storage/import/ncu/ncu_importer.h"

#include "model/json_text.h"
#include "storage/import/common/csv_reader.h"
#include "storage/import/common/import_anomaly.h"
#include "storage/import/common/kernel_name.h"
#include "storage/import/common/kernel_recorder.h"
#include "storage/import/ncu/ncu_csv_reader.h"
#include "storage/store/trace_sink.h"

#include <algorithm>
#include <charconv>
#include <cstdio>
#include <map>
#include <optional>
#include <unordered_map>

namespace strata::storage {

namespace {

using model::TimeNs;
using model::TrackId;

/// Where a profiled kernel lies in the store.
struct Placement
{
    TrackId track = model::kNoTrack;  ///< the kernel interval's track
    TrackId counterParent = model::kNoTrack;  ///< its GPU (or the stream when no GPU is known)
    TimeNs startNs = 0;
    TimeNs endNs = 0;
};

using Placements = std::vector<std::optional<Placement>>;

/// The shortest text that reads back as `value` (finite: parseCsvNumber gives no others).
std::string jsonNumber(double value)
{
    char buf[32];
    const auto [end, ec] = std::to_chars(buf, buf + sizeof buf, value);
    return ec == std::errc() ? std::string(buf, end) : "0";
}

std::string argsJson(const NcuReport& report, const NcuKernel& k)
{
    std::string out = "{\"ncu_id\":" + std::to_string(k.id);
    for (const auto& [metric, text] : k.cells) {
        const std::string& name = report.metrics[metric].name;
        if (name == "ID" || name == "Kernel Name" || name == "Function Name")
            continue;
        out.push_back(',');
        model::appendJsonString(out, name);
        out.push_back(':');
        if (const auto v = parseCsvNumber(text); v)
            out += jsonNumber(*v);
        else
            model::appendJsonString(out, text);
    }
    out.push_back('}');
    return out;
}

/// Alone: tracks per (device, stream), kernels back to back in ID order.
Placements layOut(const NcuReport& report, TraceSink& sink, NcuImportStats& stats)
{
    std::map<std::int64_t, TrackId> gpus;
    std::map<std::pair<std::int64_t, std::int64_t>, TrackId> streams;
    std::vector<std::size_t> order(report.kernels.size());
    for (std::size_t i = 0; i < order.size(); ++i)
        order[i] = i;
    std::stable_sort(order.begin(), order.end(),
        [&](std::size_t a, std::size_t b) { return report.kernels[a].id < report.kernels[b].id; });
    const model::StringId category = sink.intern("kernel");
    Placements out(report.kernels.size());
    TimeNs cursor = 0;
    for (std::size_t i : order) {
        const NcuKernel& k = report.kernels[i];
        const std::int64_t device = k.device.value_or(0), stream = k.stream.value_or(0);
        auto gpu = gpus.find(device);
        if (gpu == gpus.end())
            gpu = gpus.emplace(device,
                          sink.addTrack(model::kNoTrack, model::ResourceKind::Gpu,
                              "GPU " + std::to_string(device), device))
                      .first;
        auto track = streams.find({ device, stream });
        if (track == streams.end()) {
            track = streams
                        .emplace(std::pair(device, stream),
                            sink.addTrack(gpu->second, model::ResourceKind::Stream,
                                "stream " + std::to_string(stream), stream))
                        .first;
        }
        const TimeNs duration = std::max<TimeNs>(1, k.durationNs.value_or(1));
        model::Interval interval { cursor, cursor + duration, sink.intern(k.name), category, 0,
            model::Role::Useful, 0 };
        sink.addInterval(track->second, interval, argsJson(report, k));
        out[i] = Placement { track->second, gpu->second, interval.startNs, interval.endNs };
        cursor = interval.endNs;
    }
    if (report.kernelsWithoutDuration > 0) {
        const auto first = std::find_if(report.kernels.begin(), report.kernels.end(),
            [](const NcuKernel& k) { return !k.durationNs; });
        stats.warnings.push_back(anomalyWarning(report.kernelsWithoutDuration,
            AnomalyEffect::Altered, "kernel without a duration metric: drawn 1 ns long",
            "line " + std::to_string(first->line)));
    }
    return out;
}

/// Joined: each ncu kernel to a trace kernel (see the header).
class Joiner
{
public:
    Joiner(const std::vector<RecordedKernel>& trace, TraceSink& sink)
        : m_trace(trace)
        , m_used(trace.size(), false)
    {
        std::unordered_map<model::StringId, std::pair<std::string, std::string>> keysOf;
        std::vector<std::size_t> order(trace.size());
        for (std::size_t i = 0; i < order.size(); ++i)
            order[i] = i;
        std::stable_sort(order.begin(), order.end(),
            [&](std::size_t a, std::size_t b) { return trace[a].startNs < trace[b].startNs; });
        for (std::size_t i : order) {
            const RecordedKernel& k = trace[i];
            auto [it, fresh] = keysOf.try_emplace(k.name);
            if (fresh) {
                const std::string_view name = sink.strings().text(k.name);
                it->second = { kernelExactKey(name), kernelBaseKey(name) };
            }
            m_byExact[it->second.first].push_back(i);
            m_byBase[it->second.second].push_back(i);
            if (k.correlation)
                m_byCorrelation.try_emplace(*k.correlation, i);
        }
    }

    std::optional<std::size_t> match(const NcuKernel& k, NcuImportStats& stats)
    {
        if (k.correlation) {
            auto it = m_byCorrelation.find(*k.correlation);
            if (it != m_byCorrelation.end() && !m_used[it->second]) {
                ++stats.joinedByCorrelation;
                return take(it->second);
            }
        }
        std::string key = kernelExactKey(k.name);
        const std::vector<std::size_t>* candidates = nullptr;
        bool base = false;
        if (auto it = m_byExact.find(key); it != m_byExact.end()) {
            candidates = &it->second;
        } else {
            key = kernelBaseKey(k.name);
            if (auto b = m_byBase.find(key); b != m_byBase.end())
                candidates = &b->second;
            base = true;
        }
        if (!candidates)
            return std::nullopt;
        auto onStream = [&](std::size_t i) {
            return m_trace[i].device == k.device && m_trace[i].stream == k.stream;
        };
        const bool sameStream =
            k.device && k.stream && std::any_of(candidates->begin(), candidates->end(), onStream);
        // A base name is weak (other template instances share it): then the launch
        // configuration must agree too, where both sides know it.
        auto sameLaunch = [&](std::size_t i) {
            const RecordedKernel& t = m_trace[i];
            return !base || k.grid.empty() || k.block.empty() || t.grid.empty() || t.block.empty()
                || (t.grid == k.grid && t.block == k.block);
        };
        // The Nth ncu kernel of a key takes the Nth trace kernel of that key: a cursor per
        // (key, stream, launch) that skips kernels already taken by another rule.
        const std::string cursorKey = (base ? "b\n" + k.grid + '/' + k.block + '\n' : "e\n") + key
            + '\n'
            + (sameStream ? std::to_string(*k.device) + ':' + std::to_string(*k.stream) : "*");
        std::size_t& cursor = m_cursors[cursorKey];
        for (; cursor < candidates->size(); ++cursor) {
            const std::size_t i = (*candidates)[cursor];
            if (m_used[i] || (sameStream && !onStream(i)) || !sameLaunch(i))
                continue;
            ++cursor;
            stats.joinedByBaseName += base ? 1 : 0;
            return take(i);
        }
        return std::nullopt;
    }

private:
    std::size_t take(std::size_t i)
    {
        m_used[i] = true;
        return i;
    }

    const std::vector<RecordedKernel>& m_trace;
    std::vector<bool> m_used;
    std::unordered_map<std::string, std::vector<std::size_t>> m_byExact, m_byBase;
    std::unordered_map<std::int64_t, std::size_t> m_byCorrelation;
    std::unordered_map<std::string, std::size_t> m_cursors;
};

Placements join(const NcuReport& report, const std::vector<RecordedKernel>& trace, TraceSink& sink,
    NcuImportStats& stats)
{
    Joiner joiner(trace, sink);
    Placements out(report.kernels.size());
    std::vector<std::string> missed;
    for (std::size_t i = 0; i < report.kernels.size(); ++i) {
        const NcuKernel& k = report.kernels[i];
        const auto found = joiner.match(k, stats);
        if (!found) {
            ++stats.unjoined;
            if (missed.size() < 3)
                missed.push_back("ID " + std::to_string(k.id) + " '" + k.name.substr(0, 60) + "'");
            continue;
        }
        const RecordedKernel& t = trace[*found];
        ++stats.joined;
        if (!k.grid.empty() && !t.grid.empty() && !k.block.empty() && !t.block.empty()
            && (k.grid != t.grid || k.block != t.block))
            ++stats.launchMismatches;
        out[i] = Placement { t.track, t.gpuTrack != model::kNoTrack ? t.gpuTrack : t.track,
            t.startNs, t.endNs };
    }
    std::string line = "joined " + std::to_string(stats.joined) + " of "
        + std::to_string(report.kernels.size()) + " profiled kernel(s) to trace kernels ("
        + std::to_string(stats.joinedByCorrelation) + " by correlation, "
        + std::to_string(stats.joinedByBaseName) + " by base name, "
        + std::to_string(stats.launchMismatches) + " with another grid/block); "
        + std::to_string(stats.unjoined) + " not joined";
    for (std::size_t i = 0; i < missed.size(); ++i)
        line += (i ? ", " : ": ") + missed[i];
    if (stats.unjoined > missed.size())
        line += ", ...";
    stats.warnings.push_back(line);
    return out;
}

/// The per-kernel table and the counter tracks (see the header).
void writeMetrics(
    const NcuReport& report, const Placements& placements, TraceSink& sink, NcuImportStats& stats)
{
    struct Step
    {
        TimeNs startNs, endNs;
        double value;
    };
    std::vector<std::optional<std::pair<model::StringId, model::StringId>>> ids(
        report.metrics.size());
    std::map<std::pair<TrackId, std::uint32_t>, std::vector<Step>> series;
    for (std::size_t i = 0; i < report.kernels.size(); ++i) {
        if (!placements[i])
            continue;
        const Placement& p = *placements[i];
        for (const auto& [metric, text] : report.kernels[i].cells) {
            const NcuMetricColumn& column = report.metrics[metric];
            if (isEnvironmentMetric(column.name))
                continue;
            const auto value = parseCsvNumber(text);
            if (!value) {
                ++stats.nonNumericCells;
                continue;
            }
            if (!ids[metric])
                ids[metric] = std::pair(sink.intern(column.name), sink.intern(column.unit));
            sink.addKernelMetric(
                { p.track, p.startNs, ids[metric]->first, *value, ids[metric]->second });
            ++stats.kernelMetrics;
            series[{ p.counterParent, metric }].push_back({ p.startNs, p.endNs, *value });
        }
    }
    std::map<TrackId, TrackId> groups;
    for (auto& [key, steps] : series) {
        auto group = groups.find(key.first);
        if (group == groups.end()) {
            group = groups
                        .emplace(key.first,
                            sink.addTrack(
                                key.first, model::ResourceKind::Group, "ncu metrics", 1 << 30))
                        .first;
        }
        const NcuMetricColumn& column = report.metrics[key.second];
        const TrackId track = sink.addTrack(
            group->second, model::ResourceKind::Counter, column.name, key.second, column.unit);
        ++stats.counterTracks;
        std::stable_sort(steps.begin(), steps.end(),
            [](const Step& a, const Step& b) { return a.startNs < b.startNs; });
        for (std::size_t s = 0; s < steps.size(); ++s) {
            sink.addCounterSample(track, { steps[s].startNs, steps[s].value });
            ++stats.counterSamples;
            if (s + 1 == steps.size() || steps[s + 1].startNs > steps[s].endNs) {
                sink.addCounterSample(track, { steps[s].endNs, 0.0 });
                ++stats.counterSamples;
            }
        }
    }
}

}  // namespace

NcuImportStats importNcuCsv(const std::filesystem::path& path, TraceSink& sink,
    const std::vector<RecordedKernel>* traceKernels)
{
    const NcuReport report = readNcuCsv(path);
    NcuImportStats stats;
    stats.kernels = report.kernels.size();
    const bool joined = traceKernels && !traceKernels->empty();
    if (traceKernels && traceKernels->empty())
        stats.warnings.push_back("the trace has no GPU kernels to join to: imported alone");
    const Placements placements =
        joined ? join(report, *traceKernels, sink, stats) : layOut(report, sink, stats);
    writeMetrics(report, placements, sink, stats);
    if (report.raggedRows > 0) {
        stats.warnings.push_back(anomalyWarning(report.raggedRows, AnomalyEffect::Altered,
            "row with another number of cells than the header (missing cells read as empty, "
            "extra cells ignored)",
            "line " + std::to_string(report.firstRaggedLine)));
    }
    return stats;
}

}  // namespace strata::storage
