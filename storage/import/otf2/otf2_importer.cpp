#include "storage/import/otf2/otf2_importer.h"

#include "storage/import/common/import_anomaly.h"
#include "storage/import/otf2/otf2_definitions.h"
#include "storage/import/otf2/otf2_event_mapper.h"
#include "storage/store/input_error.h"
#include "storage/store/trace_sink.h"

#include <algorithm>
#include <cstdarg>
#include <cstdio>
#include <memory>
#include <mutex>

namespace strata::storage {

namespace {

namespace fs = std::filesystem;

/// Events per read call: progress and cancellation are checked between batches.
constexpr std::uint64_t kBatchEvents = 1 << 16;

/// libotf2's name of an error code ("INVALID_DATA"); POSIX errors, which libotf2 names by
/// their errno number, get libotf2's description ("File or directory does not exist").
std::string errorName(OTF2_ErrorCode code)
{
    const char* name = OTF2_Error_GetName(code);
    const std::string text = name ? name : "";
    if (text.empty()
        || std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; })) {
        const char* description = OTF2_Error_GetDescription(code);
        return description ? description : "error " + text;
    }
    return text;
}

// libotf2 reports an error through a process-wide callback (by default it prints to stderr),
// then unwinds with an error code, often reporting again at each level. The first report of a
// failing call names the cause ("Read of chunk header failed!"); later ones only say that the
// caller failed. Kept per thread, so that imports on several threads do not mix messages.
thread_local std::string t_firstError;

OTF2_ErrorCode recordError(void*, const char*, uint64_t, const char*, OTF2_ErrorCode code,
    const char* format, va_list args)
{
    if (t_firstError.empty()) {
        char text[512] = "";
        if (format)
            std::vsnprintf(text, sizeof text, format, args);
        t_firstError = errorName(code) + ": " + text;
        std::replace(t_firstError.begin(), t_firstError.end(), '\n', ' ');
    }
    return code;
}

/// Clears the first error; installs the callback once per process.
void resetErrors()
{
    static std::once_flag installed;
    std::call_once(installed, [] { OTF2_Error_RegisterCallback(recordError, nullptr); });
    t_firstError.clear();
}

/// "FILE: expected WHAT (libotf2: MESSAGE)".
InputError failure(
    const fs::path& file, const std::string& what, OTF2_ErrorCode code = OTF2_SUCCESS)
{
    std::string message = file.string() + ": expected " + what;
    std::string cause = t_firstError;
    if (cause.empty() && code != OTF2_SUCCESS)
        cause = errorName(code);
    if (!cause.empty())
        message += " (libotf2: " + cause + ")";
    return InputError(message);
}

bool isAnchor(const fs::path& file)
{
    std::error_code ec;
    return file.extension() == ".otf2" && fs::is_regular_file(file, ec);
}

/// The single .otf2 file in `dir` ("traces.otf2" preferred when there are several).
std::optional<fs::path> anchorIn(const fs::path& dir)
{
    std::error_code ec;
    std::vector<fs::path> anchors;
    for (const fs::directory_entry& entry : fs::directory_iterator(dir, ec)) {
        if (isAnchor(entry.path()))
            anchors.push_back(entry.path());
    }
    if (anchors.empty())
        return std::nullopt;
    std::sort(anchors.begin(), anchors.end());
    const auto traces = std::find_if(anchors.begin(), anchors.end(),
        [](const fs::path& p) { return p.filename() == "traces.otf2"; });
    return traces != anchors.end() ? *traces : anchors.front();
}

struct ReaderCloser
{
    void operator()(OTF2_Reader* reader) const { OTF2_Reader_Close(reader); }
};
using ReaderPtr = std::unique_ptr<OTF2_Reader, ReaderCloser>;

/// Opens the archive of `anchor` for serial reading.
ReaderPtr openReader(const fs::path& anchor)
{
    resetErrors();
    ReaderPtr reader(OTF2_Reader_Open(anchor.c_str()));
    if (!reader)
        throw failure(anchor, "an OTF2 anchor file");
    OTF2_Reader_SetSerialCollectiveCallbacks(reader.get());
    return reader;
}

void readDefinitions(OTF2_Reader* reader, Otf2Definitions& defs, const fs::path& defFile)
{
    resetErrors();
    OTF2_GlobalDefReader* defReader = OTF2_Reader_GetGlobalDefReader(reader);
    if (!defReader)
        throw failure(defFile, "the archive's global definitions");
    std::unique_ptr<OTF2_GlobalDefReaderCallbacks, void (*)(OTF2_GlobalDefReaderCallbacks*)>
        callbacks(OTF2_GlobalDefReaderCallbacks_New(), OTF2_GlobalDefReaderCallbacks_Delete);
    Otf2Definitions::setCallbacks(callbacks.get());
    OTF2_Reader_RegisterGlobalDefCallbacks(reader, defReader, callbacks.get(), &defs);
    std::uint64_t read = 0;
    const OTF2_ErrorCode code = OTF2_Reader_ReadAllGlobalDefinitions(reader, defReader, &read);
    if (code != OTF2_SUCCESS)
        throw failure(defFile,
            "complete global definitions after " + std::to_string(read) + " records", code);
    if (!defs.hasClock || defs.clock.ticksPerSecond() == 0)
        throw failure(defFile, "clock properties with a non-zero timer resolution");
    OTF2_Reader_CloseGlobalDefReader(reader, defReader);
}

/// Selects every location, reads its local definitions (id mappings, clock corrections) and
/// opens its event reader.
void openLocations(OTF2_Reader* reader, const Otf2Definitions& defs, const fs::path& eventDir)
{
    resetErrors();
    for (const Otf2Location& loc : defs.locations)
        OTF2_Reader_SelectLocation(reader, loc.id);
    const bool hasDefFiles = OTF2_Reader_OpenDefFiles(reader) == OTF2_SUCCESS;
    if (OTF2_Reader_OpenEvtFiles(reader) != OTF2_SUCCESS)
        throw failure(eventDir, "the archive's event files");
    for (const Otf2Location& loc : defs.locations) {
        const std::string id = std::to_string(loc.id);
        resetErrors();
        if (hasDefFiles) {
            // A location without a local definition file is fine (no mappings to apply).
            if (OTF2_DefReader* local = OTF2_Reader_GetDefReader(reader, loc.id)) {
                std::uint64_t read = 0;
                const OTF2_ErrorCode code =
                    OTF2_Reader_ReadAllLocalDefinitions(reader, local, &read);
                OTF2_Reader_CloseDefReader(reader, local);
                if (code != OTF2_SUCCESS)
                    throw failure(eventDir / (id + ".def"), "the location's definitions", code);
            }
        }
        resetErrors();
        if (!OTF2_Reader_GetEvtReader(reader, loc.id))
            throw failure(eventDir / (id + ".evt"), "the event file of location " + id);
    }
    if (hasDefFiles)
        OTF2_Reader_CloseDefFiles(reader);
}

/// After a failed or short event read: reads each location alone, with a fresh reader, to
/// name the file at fault. Returns the error to throw.
InputError diagnoseEvents(const fs::path& anchor, const Otf2Definitions& defs,
    const fs::path& eventDir, const std::string& globalError)
{
    try {
        ReaderPtr reader = openReader(anchor);
        for (const Otf2Location& loc : defs.locations)
            OTF2_Reader_SelectLocation(reader.get(), loc.id);
        OTF2_Reader_OpenEvtFiles(reader.get());
        for (const Otf2Location& loc : defs.locations) {
            const fs::path file = eventDir / (std::to_string(loc.id) + ".evt");
            resetErrors();
            OTF2_EvtReader* events = OTF2_Reader_GetEvtReader(reader.get(), loc.id);
            if (!events)
                return failure(file, "the event file of location " + std::to_string(loc.id));
            std::uint64_t read = 0;
            const OTF2_ErrorCode code = OTF2_Reader_ReadAllLocalEvents(reader.get(), events, &read);
            if (code != OTF2_SUCCESS)
                return failure(
                    file, "whole event records after " + std::to_string(read) + " events", code);
            if (loc.eventCount != 0 && read < loc.eventCount)
                return InputError(file.string() + ": expected " + std::to_string(loc.eventCount)
                    + " events (as the definitions declare), found " + std::to_string(read)
                    + ": the file is truncated");
        }
    } catch (const InputError& e) {
        return e;
    }
    return InputError(
        eventDir.string() + ": expected readable event files (libotf2: " + globalError + ")");
}

void writeMeta(TraceSink& sink, const Otf2Definitions& defs)
{
    sink.setMeta("source_format", "otf2");
    sink.setMeta("time_unit", "ns");
    sink.setMeta("otf2_timer_resolution", std::to_string(defs.clock.ticksPerSecond()));
    sink.setMeta("otf2_global_offset_ticks", std::to_string(defs.clock.globalOffset()));
    sink.setMeta("otf2_trace_length_ticks", std::to_string(defs.traceLengthTicks));
    if (defs.realtimeOriginNs && *defs.realtimeOriginNs <= std::uint64_t(INT64_MAX)) {
        sink.setMeta("origin_ns", std::to_string(*defs.realtimeOriginNs));
        sink.setMeta("origin_clock", "epoch (OTF2 realtime timestamp of the global offset)");
    } else {
        sink.setMeta("origin_clock",
            "OTF2 global offset of the trace's timer; not epoch-based (no realtime timestamp)");
    }
}

}  // namespace

fs::path otf2AnchorFor(const fs::path& input)
{
    std::error_code ec;
    if (fs::is_directory(input, ec)) {
        if (const auto anchor = anchorIn(input))
            return *anchor;
        throw InputError(
            input.string() + ": expected a folder holding an OTF2 anchor file (*.otf2)");
    }
    if (isAnchor(input))
        return input;
    if (!fs::exists(input, ec))
        throw InputError(input.string() + ": no such file");
    // traces.def (anchor beside it) or traces/0.evt (anchor one folder up).
    for (const fs::path& dir : { input.parent_path(), input.parent_path().parent_path() }) {
        if (const auto anchor = anchorIn(dir.empty() ? fs::path(".") : dir))
            return *anchor;
    }
    throw InputError(
        input.string() + ": expected an OTF2 anchor file (*.otf2) beside it or one folder up");
}

Otf2ImportStats importOtf2(const fs::path& input, TraceSink& sink, const ProgressFn& progress)
{
    const fs::path anchor = otf2AnchorFor(input);
    // An archive "X/traces.otf2" keeps its global definitions in "X/traces.def" and its
    // per-location files in "X/traces/".
    const fs::path stem = anchor.parent_path() / anchor.stem();
    const fs::path defFile = fs::path(stem).concat(".def");
    const fs::path eventDir = stem;

    ReaderPtr reader = openReader(anchor);
    Otf2Definitions defs;
    readDefinitions(reader.get(), defs, defFile);

    Otf2ImportStats stats;
    stats.strings = defs.strings.size();
    stats.regions = defs.regions.size();
    stats.locations = defs.locations.size();
    stats.locationGroups = defs.locationGroups.size();
    stats.systemTreeNodes = defs.systemTree.size();
    stats.comms = defs.comms.size();
    stats.groups = defs.groups.size();
    stats.metricMembers = defs.metricMembersById.size();
    stats.attributes = defs.attributes.size();
    std::uint64_t declaredEvents = 0;
    for (const Otf2Location& loc : defs.locations)
        declaredEvents += loc.eventCount;

    writeMeta(sink, defs);
    Otf2EventMapper mapper(sink, defs, stats, eventDir);
    mapper.createTracks();
    if (defs.locations.empty())
        return stats;
    openLocations(reader.get(), defs, eventDir);

    resetErrors();
    OTF2_GlobalEvtReader* events = OTF2_Reader_GetGlobalEvtReader(reader.get());
    if (!events)
        throw diagnoseEvents(anchor, defs, eventDir, t_firstError);
    std::unique_ptr<OTF2_GlobalEvtReaderCallbacks, void (*)(OTF2_GlobalEvtReaderCallbacks*)>
        callbacks(OTF2_GlobalEvtReaderCallbacks_New(), OTF2_GlobalEvtReaderCallbacks_Delete);
    Otf2EventMapper::setCallbacks(callbacks.get());
    OTF2_Reader_RegisterGlobalEvtCallbacks(reader.get(), events, callbacks.get(), &mapper);
    for (;;) {
        std::uint64_t read = 0;
        const OTF2_ErrorCode code =
            OTF2_Reader_ReadGlobalEvents(reader.get(), events, kBatchEvents, &read);
        stats.events += read;
        mapper.rethrowFailure();  // a callback's error comes first: it says more
        if (code != OTF2_SUCCESS)
            throw diagnoseEvents(anchor, defs, eventDir, t_firstError);
        // libotf2 can deliver records forever from some corrupt chunks: more than declared
        // is corrupt input (the writer counts every record it writes).
        if (declaredEvents > 0 && stats.events > declaredEvents)
            throw InputError(eventDir.string() + ": expected " + std::to_string(declaredEvents)
                + " events (as the definitions declare), read more: corrupt event files");
        if (progress && !progress(stats.events, std::max(declaredEvents, stats.events)))
            throw Cancelled();
        if (read < kBatchEvents)
            break;
    }
    OTF2_Reader_CloseGlobalEvtReader(reader.get(), events);
    if (stats.events < declaredEvents)  // an event file ended at a chunk border
        throw diagnoseEvents(anchor, defs, eventDir, "fewer events than declared");
    mapper.finish();
    // One line per kind of event dropped or altered (import_anomaly.h).
    auto warn = [&](std::uint64_t count, AnomalyEffect effect, std::string_view what,
                    const char* name) {
        if (count == 0)
            return;
        const auto first = stats.firstAt.find(name);
        stats.warnings.push_back(anomalyWarning(count, effect, what,
            first == stats.firstAt.end() ? std::string_view() : std::string_view(first->second)));
    };
    warn(stats.unmatchedLeaves, AnomalyEffect::Dropped, "Leave without an open Enter of its region",
        "unmatched_leaves");
    warn(stats.skippedLeaves, AnomalyEffect::Altered,
        "region never left, closed by an outer region's Leave", "skipped_leaves");
    warn(stats.unclosedEnters, AnomalyEffect::Altered,
        "region never left: closed at its location's last event", "unclosed_enters");
    warn(stats.backwardTimes, AnomalyEffect::Altered, "Leave before its Enter: made empty",
        "backward_times");
    warn(stats.unknownMetrics, AnomalyEffect::Dropped, "Metric record of an undefined metric",
        "unknown_metrics");
    warn(stats.unresolvedPeers, AnomalyEffect::Dropped,
        "MPI message to a rank no location answers to: no flow", "unresolved_peers");
    warn(stats.unmatchedSends, AnomalyEffect::Dropped, "MPI send without its receive: no flow",
        "unmatched_sends");
    warn(stats.unmatchedReceives, AnomalyEffect::Dropped, "MPI receive without its send: no flow",
        "unmatched_receives");
    return stats;
}

}  // namespace strata::storage
