// GPU metrics sampling of an Nsight Systems export (`nsys profile --gpu-metrics-devices`):
// GPU_METRICS (timestamp, typeId, metricId, value) holds the samples, TARGET_INFO_GPU_METRICS
// (typeId, sourceId, metricId, metricName) names them: "SMs Active [Throughput %]",
// "Tensor Active [Throughput %]", "DRAM Read Bandwidth [Throughput %]", "NVLink RX ...",
// "PCIe Read Throughput ...". Each (typeId, metricId) becomes a counter track under its
// GPU, named by metricName, with the unit from its brackets. The GPU is TARGET_INFO_GPU id
// (sourceId >> 32) - 1 (sourceId = vmId + (id + 1) << 32), or typeId & 0xFF without a
// sourceId. Samples stream in table order; the store sorts them.

#include "storage/import/nsys/nsys_database.h"
#include "storage/import/nsys/nsys_importer_p.h"
#include "storage/store/trace_sink.h"

#include <map>

namespace strata::storage {

namespace {

constexpr std::string_view kSamples = "GPU_METRICS";
constexpr std::string_view kNames = "TARGET_INFO_GPU_METRICS";

struct Metric
{
    std::string name;
    std::int64_t gpuId = 0;
    model::TrackId track = model::kNoTrack;
};

/// "SMs Active [Throughput %]" -> "%", "GPC Clock Frequency [MHz]" -> "MHz", else "".
std::string unitOf(std::string_view name)
{
    const std::size_t open = name.rfind('[');
    const std::size_t close = name.rfind(']');
    if (open == std::string_view::npos || close == std::string_view::npos || close < open)
        return {};
    const std::string_view unit = name.substr(open + 1, close - open - 1);
    return unit.find('%') != std::string_view::npos ? "%" : std::string(unit);
}

std::map<std::pair<std::int64_t, std::int64_t>, Metric> readMetrics(NsysDatabase& db)
{
    std::map<std::pair<std::int64_t, std::int64_t>, Metric> metrics;
    if (db.column(kNames, "metricId|id").empty())
        return metrics;
    SqliteStatement rows =
        db.select(kNames, { "typeId", "metricId|id", "metricName|name", "sourceId" });
    while (rows.step()) {
        const std::int64_t typeId = rows.int64(0);
        const std::optional<std::int64_t> source = optionalInt(rows, 3);
        const std::int64_t gpuId = source ? (*source >> 32) - 1 : typeId & 0xFF;
        metrics[{ typeId, rows.int64(1) }] = { validUtf8(rows.text(2)), gpuId };
    }
    return metrics;
}

}  // namespace

std::uint64_t nsysGpuMetricRows(NsysDatabase& db)
{
    return static_cast<std::uint64_t>(db.rowCount(kSamples));
}

void importGpuMetrics(NsysImport& in)
{
    if (!in.db.hasTable(kSamples))
        return;
    for (std::string_view column : { "timestamp", "metricId", "value" }) {
        if (in.db.column(kSamples, column).empty()) {
            in.stats.warnings.push_back(
                "table GPU_METRICS has no column " + std::string(column) + ": skipped");
            return;
        }
    }
    auto metrics = readMetrics(in.db);
    SqliteStatement rows = in.db.select(kSamples, { "timestamp", "typeId", "metricId", "value" });
    while (rows.step()) {
        in.progress.tick();
        const std::int64_t typeId = rows.int64(1);
        const std::pair key(typeId, rows.int64(2));
        auto it = metrics.find(key);
        if (it == metrics.end())  // not described: name it by its ids
            it = metrics
                     .emplace(key, Metric { "metric " + std::to_string(key.second), typeId & 0xFF })
                     .first;
        Metric& metric = it->second;
        if (metric.track == model::kNoTrack) {
            metric.track = in.sink.addTrack(in.tracks.gpuById(metric.gpuId),
                model::ResourceKind::Counter, metric.name, key.second, unitOf(metric.name));
            ++in.stats.gpuMetricTracks;
        }
        in.sink.addCounterSample(metric.track, { rows.int64(0), rows.real(3) });
        ++in.stats.gpuMetricSamples;
    }
}

}  // namespace strata::storage
