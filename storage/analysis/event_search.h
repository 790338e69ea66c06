#pragma once
// Finds the intervals whose name matches a pattern, over the whole store or a window:
// the timeline's Ctrl+F. Names are matched once against the string table (a store
// interns each name once), then each interval track is read in time chunks, so memory
// stays bounded by one chunk of one track plus the matches kept (`limit`); the count
// covers every match. Matches come sorted by start time (then track) for next/previous.

#include "storage/store/progress.h"
#include "storage/store/store_reader.h"

#include <regex>
#include <unordered_set>

namespace strata::storage {

struct SearchMatch
{
    model::TrackId track = model::kNoTrack;
    model::Interval interval;
};

struct SearchResult
{
    std::unordered_set<model::StringId> names;  ///< the names that match
    std::vector<SearchMatch> matches;  ///< at most `limit`, sorted by start time
    std::int64_t count = 0;  ///< every match
};

struct SearchRequest
{
    std::string pattern;
    bool regex = false;  ///< else a case-insensitive substring
    std::optional<model::TimeRange> window;  ///< the whole run when empty
    std::size_t limit = 100000;
};

/// Throws std::regex_error for a bad regex; Cancelled when `progress` says stop.
SearchResult searchIntervals(StoreReader& store, const SearchRequest& request, const ProgressFn& progress = {});

/// The names of the store's string table that match (what the timeline highlights).
std::unordered_set<model::StringId> matchingNames(const model::StringTable& strings, const SearchRequest& request);

} // namespace strata::storage
