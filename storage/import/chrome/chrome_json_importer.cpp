#include "storage/import/chrome/chrome_json_importer.h"

#include "storage/import/chrome/chrome_json_importer_p.h"
#include "storage/import/common/gzip_reader.h"
#include "storage/store/input_error.h"
#include "storage/store/trace_sink.h"

#include <algorithm>

namespace strata::storage {

using namespace chrome;
using model::TimeNs;

namespace {

// Reports file bytes read over both passes: the pre-scan is given 30% of the bar.
class ProgressReporter
{
public:
    ProgressReporter(const ProgressFn& fn, const GzipReader& input, int pass)
        : m_fn(fn)
        , m_input(input)
        , m_pass(pass)
    {}

    void tick()
    {
        if (!m_fn || ++m_events % 1024 != 0)
            return;
        report(m_input.fileBytesRead());
    }

    void report(std::uint64_t read)
    {
        if (!m_fn)
            return;
        const std::uint64_t total = std::max<std::uint64_t>(m_input.fileSizeBytes(), 1);
        read = std::min(read, total);
        const std::uint64_t share = total * 3 / 10;
        const double fraction = static_cast<double>(read) / static_cast<double>(total);
        std::uint64_t done = m_pass == 1
            ? static_cast<std::uint64_t>(fraction * share)
            : share + static_cast<std::uint64_t>(fraction * static_cast<double>(total - share));
        if (m_pass == 2 && read == total)
            done = total;
        if (done < m_last + (total >> 10) && done != total)
            return;  // about a thousand reports at most
        m_last = done;
        if (!m_fn(done, total))
            throw Cancelled();
    }

private:
    const ProgressFn& m_fn;
    const GzipReader& m_input;
    int m_pass = 1;
    std::uint64_t m_events = 0;
    std::uint64_t m_last = 0;
};

}  // namespace

ImportStats importChromeJson(const std::filesystem::path& path, TraceSink& sink,
    const ChromeImportOptions& options, const ProgressFn& progress)
{
    const std::string fileName = path.string();
    ImportStats stats;

    // Pass 1: the layout.
    ChromeLayout layout;
    {
        GzipReader input(path, true);
        ChromeEventReader reader(input, fileName, true);
        ProgressReporter reporter(progress, input, 1);
        layout = preScan(reader, [&] { reporter.tick(); });
        reporter.report(input.fileSizeBytes());
    }
    const std::optional<std::int64_t> rank =
        options.rank >= 0 ? std::optional<std::int64_t>(options.rank) : layout.rank;
    layout.finalize(rank);

    const TimeNs base = layout.baseTimeNs.value_or(0);
    const TimeNs minTs = layout.minTsNs == kNoTime ? 0 : layout.minTsNs;
    const TimeNs originAbs = options.originNs ? *options.originNs : base + minTs;
    stats.originNs = originAbs;
    sink.setMeta("origin_ns", std::to_string(originAbs));
    if (rank)
        sink.setMeta("rank", std::to_string(*rank));
    if (layout.worldSize)
        sink.setMeta("world_size", std::to_string(*layout.worldSize));
    if (!layout.deviceProperties.empty())
        sink.setMeta("device_properties", layout.deviceProperties);

    // Pass 2: the events.
    GzipReader input(path, true);
    ChromeEventReader reader(input, fileName, false);
    ProgressReporter reporter(progress, input, 2);
    ChromeJsonConverter pass(layout, sink, stats, originAbs - base);
    while (reader.next()) {
        pass.event(reader);
        reporter.tick();
    }
    pass.finish();
    reporter.report(input.fileSizeBytes());

    stats.bytes = reader.position();
    stats.endNs = layout.maxEndNs == kNoTime ? 0 : layout.maxEndNs + base - originAbs;
    if (reader.truncated()) {
        stats.truncated = true;
        stats.warnings.push_back("truncated: " + reader.truncation() + "; read "
            + std::to_string(stats.totalEvents) + " events up to the last whole one");
    }
    if (input.truncated()) {
        stats.truncated = true;
        stats.warnings.push_back("truncated: the gzip stream ends early (after "
            + std::to_string(input.bytesRead()) + " uncompressed bytes)");
    }
    if (!reader.endNote().empty())
        stats.warnings.push_back(reader.endNote());
    return stats;
}

std::optional<model::TimeNs> chromeTraceOriginNs(const std::filesystem::path& path)
{
    GzipReader input(path, true);
    ChromeEventReader reader(input, path.string(), true);
    ChromeLayout layout = preScan(reader, [] {});
    if (layout.minTsNs == kNoTime)
        return std::nullopt;
    return layout.baseTimeNs.value_or(0) + layout.minTsNs;
}

std::uint64_t ImportStats::phase(std::string_view ph) const
{
    auto it = eventsByPhase.find(std::string(ph));
    return it == eventsByPhase.end() ? 0 : it->second;
}

std::vector<ImportStatRow> ImportStats::rows() const
{
    using S = StatSeverity;
    return {
        { "events", S::Info, "entries of the traceEvents array", totalEvents },
        { "intervals", S::Info, "intervals imported (X, B/E pairs, async b/e)", intervals },
        { "instants", S::Info, "instant events imported (i, I, R, n)", instants },
        { "counter_samples", S::Info, "counter samples imported (C args)", counterSamples },
        { "flows", S::Info, "flow arrows imported (s/t/f)", flows },
        { "unknown_phases", S::Info, "events of phases Strata does not import, skipped",
            unknownPhases },
        { "missing_timestamps", S::DataLoss, "events without a usable ts, skipped",
            missingTimestamps },
        { "complete_without_duration", S::Info,
            "X events without dur, extended to their thread's last time", completeWithoutDuration },
        { "negative_durations", S::Error, "X events with dur < 0, made empty", negativeDurations },
        { "unmatched_ends", S::Error, "E events without an open B on their thread, skipped",
            unmatchedEnds },
        { "unclosed_begins", S::Info, "B events never ended, closed at their thread's last time",
            unclosedBegins },
        { "unmatched_async_ends", S::Error, "async e/F events without an open b/S, skipped",
            unmatchedAsyncEnds },
        { "unclosed_async_begins", S::Info, "async b/S events never ended, closed at the end",
            unclosedAsyncBegins },
        { "non_numeric_counter_values", S::DataLoss, "C args that are not numbers, skipped",
            nonNumericCounterValues },
        { "flow_ends_without_start", S::Info,
            "f/t flow events whose s is missing (Kineto writes "
            "them), skipped",
            flowEndsWithoutStart },
        { "flow_starts_without_end", S::Info, "s flow events never finished, skipped",
            flowStartsWithoutEnd },
        { "truncated", S::DataLoss, "the file ended early; read up to the last whole event",
            truncated ? 1u : 0u },
    };
}

}  // namespace strata::storage
