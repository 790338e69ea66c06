#include "storage/analysis/event_search.h"

#include "model/text_match.h"
#include "storage/store/input_error.h"

#include <algorithm>
#include <cctype>

namespace strata::storage {

namespace {

/// Time chunks per track: bounds the memory of one read.
constexpr int kChunks = 64;

} // namespace

std::unordered_set<model::StringId> matchingNames(const model::StringTable& strings, const SearchRequest& request)
{
    std::unordered_set<model::StringId> names;
    if (request.pattern.empty())
        return names;
    std::optional<std::regex> re;
    if (request.regex)
        re.emplace(request.pattern, std::regex::ECMAScript | std::regex::optimize);
    for (model::StringId id = 1; id < strings.size(); ++id) {
        const std::string_view text = strings.text(id);
        if (re ? std::regex_search(text.begin(), text.end(), *re) : model::containsNoCase(text, request.pattern))
            names.insert(id);
    }
    return names;
}

SearchResult searchIntervals(StoreReader& store, const SearchRequest& request, const ProgressFn& progress)
{
    SearchResult result;
    result.names = matchingNames(store.strings(), request);
    if (result.names.empty())
        return result;
    const model::TimeRange window = request.window.value_or(store.span());
    const model::TimeNs chunkNs = std::max<model::TimeNs>(1, (window.durationNs() + kChunks - 1) / kChunks);
    std::vector<model::TrackId> tracks;
    for (model::TrackId t = 0; t < store.resources().size(); ++t) {
        if (store.summary(t).intervals > 0)
            tracks.push_back(t);
    }
    for (std::size_t i = 0; i < tracks.size(); ++i) {
        const model::TrackId track = tracks[i];
        for (model::TimeNs t0 = window.startNs; t0 < window.endNs; t0 += chunkNs) {
            const model::TimeNs t1 = std::min(window.endNs, t0 + chunkNs);
            // Intervals overlapping the chunk; each counted in the chunk where it starts
            // (the first chunk also takes those that started before the window).
            for (const model::Interval& e : store.intervals(track, t0, t1)) {
                if ((e.startNs < t0 && t0 != window.startNs) || !result.names.count(e.name))
                    continue;
                ++result.count;
                if (result.matches.size() < request.limit)
                    result.matches.push_back({track, e});
            }
        }
        if (progress && !progress(i + 1, tracks.size()))
            throw Cancelled();
    }
    std::sort(result.matches.begin(), result.matches.end(), [](const SearchMatch& a, const SearchMatch& b) {
        return std::tie(a.interval.startNs, a.track, a.interval.seq) < std::tie(b.interval.startNs, b.track, b.interval.seq);
    });
    return result;
}

} // namespace strata::storage
