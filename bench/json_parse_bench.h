#pragma once
// The JSON parser question of issue 16, measured on the same file: Strata's streaming
// scanner (storage/import/chrome/json_scan.h: validates each event and lists its top-level
// members in one pass) against simdjson's On-Demand API walking the same members of every
// event (the whole file in memory, as On-Demand needs; no validation of what it skips).
// One thread each, from memory, so only the parsers differ.

#include <filesystem>

namespace strata::bench {

struct JsonParseRates
{
    double scannerMbPerS = 0;
    double simdjsonMbPerS = 0;
    /// Members seen by each (they must agree: the same events were read).
    unsigned long long scannerMembers = 0;
    unsigned long long simdjsonMembers = 0;
};

/// Median of three passes each over `json` (a Chrome trace in object form); zeros when
/// the CPU lacks AVX2 (the simdjson side is built for it).
JsonParseRates measureJsonParsers(const std::filesystem::path& json);

}  // namespace strata::bench
