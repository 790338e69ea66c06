#pragma once
// The import report's declared table (Perfetto stats.h style) and the events an importer
// drops or alters on the way, counted per kind with the position of the first one.
//
// Every importer that drops or alters events declares one row per kind (name, severity,
// effect, description) and counts into an AnomalyCount. Ingest prints one warning line per
// kind with events, per file, in one format shared by all importers:
//
//     FILE: warning: N events dropped: DESCRIPTION (first at byte B)
//     FILE: warning: N events altered: DESCRIPTION (first at line L)
//
// (the "FILE: warning: " prefix is added by the ingest, anomalyWarnings() makes the rest).
// Counting costs nothing on an importer's normal path: add() is called only for an event
// that is dropped or altered, and holds no allocation.

#include <algorithm>
#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

namespace strata::storage {

/// How bad an import anomaly is.
enum class StatSeverity { Info, Error, DataLoss };

/// What an anomaly did to the events it counts: nothing (a plain count), dropped them, or
/// imported them changed.
enum class AnomalyEffect { None, Dropped, Altered };

/// Events of one anomaly kind, and where the first of them is (a byte offset in the
/// uncompressed stream, or a line: the importer's row says which).
struct AnomalyCount
{
    static constexpr std::uint64_t kNoPosition = std::numeric_limits<std::uint64_t>::max();

    std::uint64_t count = 0;
    std::uint64_t first = kNoPosition;  ///< the smallest position given to add()

    /// Counts `n` events, the first of them at `position` (not necessarily called in file
    /// order: the first is the smallest position).
    void add(std::uint64_t position, std::uint64_t n = 1)
    {
        count += n;
        first = std::min(first, position);
    }
};

/// One row of the import report: a declared anomaly or count (Perfetto stats style).
struct ImportStatRow
{
    std::string_view name;  ///< snake_case, the key in the store's meta
    StatSeverity severity = StatSeverity::Info;
    std::string_view description;  ///< for an anomaly, the WHAT of its warning line
    std::uint64_t value = 0;
    AnomalyEffect effect = AnomalyEffect::None;
    std::uint64_t first = AnomalyCount::kNoPosition;  ///< position of the first anomaly

    /// A row counting events dropped or altered.
    static ImportStatRow anomaly(std::string_view name, StatSeverity severity, AnomalyEffect effect,
        std::string_view description, const AnomalyCount& count)
    {
        return { name, severity, description, count.count, effect, count.first };
    }
};

/// "N events dropped: WHAT (first at WHERE)", or "... altered: ..."; without the
/// parenthesis when `where` is empty. `where` is e.g. "byte 118" or "line 5, column 3".
/// `noun` names what is counted ("events"; Paraver counts "records").
std::string anomalyWarning(std::uint64_t count, AnomalyEffect effect, std::string_view what,
    std::string_view where, std::string_view noun = "events");
/// The same with WHERE = "UNIT FIRST" ("byte 118"), or none when `first` is kNoPosition.
std::string anomalyWarning(std::uint64_t count, AnomalyEffect effect, std::string_view what,
    std::string_view unit, std::uint64_t first);

/// The warning lines of the anomaly rows that counted events, in table order.
std::vector<std::string> anomalyWarnings(
    const std::vector<ImportStatRow>& rows, std::string_view unit);

}  // namespace strata::storage
