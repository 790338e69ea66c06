#pragma once
// The side files and the header of a Paraver trace, parsed without touching the records:
//  - the `.prv` header line `#Paraver (DATE):END[_UNIT]:NODES[(CPUS,...)]:NAPPL:APPL,...`
//    where each APPL is `NTASKS(NTHREADS:NODE,...)` and the last field is the number of
//    communicator lines that follow (Paraver's writer joins applications with ',', Extrae
//    and the format doc with ':'; both are accepted);
//  - the `.pcf` configuration: STATES names, STATES_COLOR, EVENT_TYPE blocks with their
//    VALUES (a VALUES section applies to every type of the block above it) and the
//    DEFAULT_OPTIONS UNITS;
//  - the `.row` labels: `LEVEL NAME SIZE N` followed by N labels.
// Used by the Paraver importer (storage/import/paraver/paraver_importer.h), and by tests.

#include "model/time_units.h"

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace strata::storage {

struct ParaverTask
{
    int threads = 0;
    int node = 0;  ///< 1-based node of the task's threads
};

struct ParaverHeader
{
    std::string date;  ///< "21/01/2022 at 16:37"
    model::TimeNs endNs = 0;  ///< trace end time, in ns
    model::TimeNs unitNs = 1000;  ///< one time unit of the records, in ns
    std::string unitName = "us";  ///< "ns", "us", "ms", "s"
    bool unitGiven = false;  ///< false when the end time had no unit suffix
    int nodes = 0;
    std::vector<int> cpusPerNode;  ///< empty when the header gives no CPU list
    std::vector<std::vector<ParaverTask>> applications;  ///< tasks of each application
    int communicators = 0;  ///< communicator lines announced after the header
};

/// Parses the header line (starting with "#Paraver"). `unitNs` is used when the end
/// time has no unit suffix (Paraver's default is microseconds). Throws InputError naming
/// `file`, line 1 and what was expected.
ParaverHeader parseParaverHeader(
    std::string_view line, const std::string& file, model::TimeNs defaultUnitNs = 1000);

struct ParaverColor
{
    std::uint8_t r = 0, g = 0, b = 0;
    friend bool operator==(const ParaverColor&, const ParaverColor&) = default;
};

struct ParaverEventType
{
    std::string label;  ///< "MPI Point-to-point"; empty when only values were declared
    int gradient = 0;
    std::map<std::int64_t, std::string> values;  ///< value -> label (VALUES section)
};

struct ParaverPcf
{
    std::map<std::int64_t, std::string> states;  ///< STATES: value -> name
    std::map<std::int64_t, ParaverColor> stateColors;  ///< STATES_COLOR
    std::map<std::int64_t, ParaverEventType> eventTypes;  ///< EVENT_TYPE (+ VALUES)
    std::optional<model::TimeNs> unitNs;  ///< DEFAULT_OPTIONS UNITS (NANOSEC, MICROSEC...)
};

/// Parses a `.pcf` file. Unknown sections are skipped; malformed entries of known
/// sections throw InputError (file, line, what was expected).
ParaverPcf parseParaverPcf(const std::filesystem::path& path);
ParaverPcf parseParaverPcfText(std::string_view text, const std::string& file);

/// `.row` labels per level name ("CPU", "NODE", "APPL", "TASK", "THREAD").
using ParaverRow = std::map<std::string, std::vector<std::string>>;
ParaverRow parseParaverRow(const std::filesystem::path& path);
ParaverRow parseParaverRowText(std::string_view text);

}  // namespace strata::storage
