#include "storage/import/chrome/chrome_json_importer.h"

#include "storage/import/chrome/chrome_json_importer_p.h"
#include "storage/import/chrome/chrome_json_split.h"
#include "storage/import/common/gzip_reader.h"
#include "storage/store/input_error.h"
#include "storage/store/trace_sink.h"

#include <algorithm>
#include <optional>

namespace strata::storage {

using namespace chrome;
using model::TimeNs;

namespace {

// Reports file bytes read over both passes: the pre-scan is given 30% of the bar. Pass 0
// is a single pass, given all of it.
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
        std::uint64_t done = m_pass == 0
            ? static_cast<std::uint64_t>(fraction * static_cast<double>(total))
            : m_pass == 1
            ? static_cast<std::uint64_t>(fraction * share)
            : share + static_cast<std::uint64_t>(fraction * static_cast<double>(total - share));
        if (m_pass != 1 && read == total)
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

void finishStats(ImportStats& stats, const ChromeEventReader& reader, const GzipReader& input)
{
    stats.bytes = reader.position();
    finishChromeStats(stats, reader.truncation(),
        input.truncated() ? "the gzip stream ends early (after " + std::to_string(input.bytesRead())
                + " uncompressed bytes)"
                          : std::string(),
        reader.endNote());
}

// The single pass (see the header): each event is learnt (LayoutScanner), then converted
// with the layout so far; the tracks get their names and time 0 at the end. Nullopt when
// an event needed the whole layout first: what the pass added to the sink is undone.
std::optional<ImportStats> importInOnePass(const std::filesystem::path& path, TraceSink& sink,
    RevisableSink& revisable, const ChromeImportOptions& options, const ProgressFn& progress)
{
    const RevisableSink::Mark mark = revisable.mark();
    ChromeLayout layout;
    LayoutScanner scanner(layout);
    ImportStats stats;
    ChromeJsonConverter converter(ChromeJsonConverter::LateLayout {}, layout, sink, stats);
    GzipReader input(path, true);
    ChromeEventReader reader(input, path.string(), true);
    reader.setScanThreads(options.threads);
    reader.mapInput();
    ProgressReporter reporter(progress, input, 0);
    try {
        // What needs the layout first is known at once (an X without dur, a flow end bound
        // to the next slice), or at the end (a pid whose host threads move out).
        while (!converter.needsLayoutFirst() && reader.next()) {
            converter.event(reader, scanner.event(reader.event()));
            reporter.tick();
        }
        if (converter.needsLayoutFirst()) {
            revisable.rollback(mark);
            return std::nullopt;
        }
        scanner.finish(reader.topLevel());
        if (layout.splitsHostThreads()) {
            revisable.rollback(mark);
            return std::nullopt;
        }
        const model::TimeNs offsetNs = settleLayout(layout, sink, options, stats);
        converter.finish();
        converter.describeTracks(revisable);
        revisable.shiftTracks(static_cast<model::TrackId>(mark.tracks),
            static_cast<model::TrackId>(revisable.mark().tracks), -offsetNs);
    } catch (...) {
        revisable.rollback(mark);  // no half-named tracks on the trace clock stay behind
        throw;
    }
    reporter.report(input.fileSizeBytes());
    finishStats(stats, reader, input);
    return stats;
}

}  // namespace

ImportStats importChromeJson(const std::filesystem::path& path, TraceSink& sink,
    const ChromeImportOptions& options, const ProgressFn& progress)
{
    int reads = 0;
    if (RevisableSink* revisable = sink.revisable(); revisable && !options.prescan.layout) {
        if (std::optional<ImportStats> stats =
                importInOnePass(path, sink, *revisable, options, progress)) {
            stats->reads = 1;
            return *std::move(stats);
        }
        reads = 1;
    }
    reads += options.prescan.layout ? 1 : 2;
    const std::string fileName = path.string();
    // Pass 1: the layout (made ahead, or now), then pass 2: the events.
    ChromeEventImporter importer(
        options.prescan.layout ? options.prescan : prescanChromeJson(path, options, progress), sink,
        options, fileName);
    GzipReader input(path, true);
    ChromeEventReader reader(input, fileName, false);
    reader.setScanThreads(options.threads);
    reader.mapInput();
    ProgressReporter reporter(progress, input, 2);
    while (reader.next()) {
        importer.event(reader);
        reporter.tick();
    }
    ImportStats stats = importer.finish();
    reporter.report(input.fileSizeBytes());

    finishStats(stats, reader, input);
    stats.reads = reads;
    return stats;
}

ChromePrescan prescanChromeJson(const std::filesystem::path& path,
    const ChromeImportOptions& options, const ProgressFn& progress)
{
    GzipReader input(path, true);
    ChromeEventReader reader(input, path.string(), true);
    reader.setScanThreads(options.threads);
    reader.mapInput();
    reader.setListOnly(true);  // listed only: pass 2 checks the syntax (see the header)
    ProgressReporter reporter(progress, input, 1);
    auto layout = std::make_shared<ChromeLayout>(preScan(reader, [&] { reporter.tick(); }));
    reporter.report(input.fileSizeBytes());
    ChromePrescan prescan;
    if (layout->minTsNs != kNoTime)
        prescan.originNs = layout->baseTimeNs.value_or(0) + layout->minTsNs;
    prescan.layout = std::move(layout);
    return prescan;
}

std::optional<model::TimeNs> chromeTraceOriginNs(const std::filesystem::path& path)
{
    return prescanChromeJson(path).originNs;
}

std::uint64_t ImportStats::phase(std::string_view ph) const
{
    auto it = eventsByPhase.find(std::string(ph));
    return it == eventsByPhase.end() ? 0 : it->second;
}

std::vector<ImportStatRow> ImportStats::rows() const
{
    using S = StatSeverity;
    using E = AnomalyEffect;
    const auto anomaly = ImportStatRow::anomaly;
    return {
        { "events", S::Info, "entries of the traceEvents array", totalEvents },
        { "intervals", S::Info, "intervals imported (X, B/E pairs, async b/e)", intervals },
        { "instants", S::Info, "instant events imported (i, I, R, n)", instants },
        { "counter_samples", S::Info, "counter samples imported (C args)", counterSamples },
        { "flows", S::Info, "flow arrows imported (s/t/f)", flows },
        anomaly("missing_phases", S::DataLoss, E::Dropped, "\"ph\" missing or not a string",
            missingPhases),
        anomaly("unknown_phases", S::Info, E::Dropped,
            unknownPhasesText.empty() ? std::string_view("phases Strata does not import")
                                      : std::string_view(unknownPhasesText),
            unknownPhases),
        anomaly("missing_timestamps", S::DataLoss, E::Dropped, "no \"ts\"", missingTimestamps),
        anomaly("bad_timestamps", S::DataLoss, E::Dropped, "\"ts\" not a number", badTimestamps),
        anomaly("timestamps_out_of_range", S::DataLoss, E::Dropped, "\"ts\" out of range",
            timestampsOutOfRange),
        anomaly("string_timestamps", S::Info, E::Altered,
            "\"ts\" is a string: read as the number it holds", stringTimestamps),
        anomaly("bad_durations", S::DataLoss, E::Dropped, "\"dur\" not a number", badDurations),
        anomaly("durations_out_of_range", S::DataLoss, E::Dropped, "\"dur\" out of range",
            durationsOutOfRange),
        anomaly("string_durations", S::Info, E::Altered,
            "\"dur\" is a string: read as the number it holds", stringDurations),
        anomaly("complete_without_duration", S::Info, E::Altered,
            "\"X\" without \"dur\": extended to its thread's last time", completeWithoutDuration),
        anomaly("negative_durations", S::Error, E::Altered, "negative \"dur\" made 0",
            negativeDurations),
        anomaly("ends_before_begins", S::Error, E::Altered,
            "end (\"E\", \"e\") earlier than its begin: made empty", endsBeforeBegins),
        anomaly("unmatched_ends", S::Error, E::Dropped, "\"E\" without an open \"B\" on its thread",
            unmatchedEnds),
        anomaly("unclosed_begins", S::Info, E::Altered,
            "\"B\" without its \"E\": closed at its thread's last time", unclosedBegins),
        anomaly("unmatched_async_ends", S::Error, E::Dropped,
            "async \"e\" without an open \"b\" of its id", unmatchedAsyncEnds),
        anomaly("unclosed_async_begins", S::Info, E::Altered,
            "async \"b\" without its \"e\": closed at the trace's end", unclosedAsyncBegins),
        anomaly("counters_without_args", S::DataLoss, E::Dropped,
            "\"C\" without values in \"args\"", counterWithoutArgs),
        anomaly("non_numeric_counter_values", S::DataLoss, E::Dropped,
            "counter value (a \"C\" arg) not a number", nonNumericCounterValues),
        anomaly("counter_values_out_of_range", S::DataLoss, E::Dropped,
            "counter value (a \"C\" arg) out of range", counterValuesOutOfRange),
        anomaly("flow_ends_without_start", S::Info, E::Dropped,
            "flow \"f\" or \"t\" without its \"s\"", flowEndsWithoutStart),
        anomaly("flow_starts_without_end", S::Info, E::Dropped, "flow \"s\" without its \"f\"",
            flowStartsWithoutEnd),
        anomaly("bad_ids", S::Error, E::Altered,
            "\"pid\" or \"tid\" neither a number nor a string: named by its JSON text", badIds),
        anomaly("bad_names", S::Error, E::Altered, "\"name\" or \"cat\" not a string: left empty",
            badNames),
        anomaly("bad_args", S::Error, E::Altered, "\"args\" not an object: ignored", badArgs),
        { "truncated", S::DataLoss, "the file ended early; read up to the last whole event",
            truncated ? 1u : 0u },
    };
}

}  // namespace strata::storage
