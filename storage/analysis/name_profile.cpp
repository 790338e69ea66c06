#include "storage/analysis/name_profile.h"

#include <algorithm>
#include <cmath>
#include <map>

namespace strata::storage {

using model::TimeNs;
using model::TimeRange;

namespace {

struct Accumulator
{
    model::Role role = model::Role::Useful;
    TimeNs totalNs = 0;
    std::int64_t count = 0;
    double sumSquares = 0;
};

using NameKey = std::pair<model::StringId, model::Role>;

void addClipped(std::map<NameKey, Accumulator>& acc, const model::Interval& e, TimeRange range)
{
    const TimeNs ns = std::min(e.endNs, range.endNs) - std::max(e.startNs, range.startNs);
    if (ns < 0 || (ns == 0 && e.durationNs() > 0))
        return;
    Accumulator& a = acc[{ e.name, e.role }];
    a.role = e.role;
    a.totalNs += ns;
    a.count += 1;
    a.sumSquares += static_cast<double>(ns) * static_cast<double>(ns);
}

/// Time per name of one track from the pyramid (no counts).
void summaryTimes(StoreReader& store, model::TrackId track, TimeRange window, int maxSlots,
    std::map<NameKey, Accumulator>& acc)
{
    const model::LodGrid& grid = store.grid();
    const int level =
        std::max(1, grid.levelFor(static_cast<double>(window.durationNs()) / maxSlots));
    const TimeNs w = grid.bucketNs(level);
    const TimeNs a = std::min(window.endNs, -model::floorDiv(-window.startNs, w) * w);
    const TimeNs b = std::max(a, model::floorDiv(window.endNs, w) * w);
    auto exact = [&](TimeRange range) {
        if (range.empty())
            return;
        for (const model::Interval& e : store.intervals(track, range.startNs, range.endNs))
            addClipped(acc, e, range);
    };
    exact({ window.startNs, a });
    exact({ b, window.endNs });
    if (a >= b)
        return;
    ViewportQuery q { { track }, a, b, static_cast<int>((b - a) / w) };
    const TrackSlice slice = std::move(store.query(q).front());
    for (const model::Interval& e : slice.intervals)
        addClipped(acc, e, { a, b });
    for (const IntervalCell& cell : slice.cells) {
        for (std::uint32_t i = 0; i < cell.entryCount; ++i) {
            const Coverage& c = slice.entries[cell.firstEntry + i];
            Accumulator& x = acc[{ c.name, c.role }];
            x.role = c.role;
            x.totalNs += c.coverageNs;
        }
    }
}

}  // namespace

NameProfile profileNames(
    StoreReader& store, std::span<const model::TrackId> tracks, TimeRange window, int maxSlots)
{
    NameProfile out;
    out.window = window;
    if (window.empty())
        return out;
    ViewportQuery q { { tracks.begin(), tracks.end() }, window.startNs, window.endNs, maxSlots };
    const std::vector<TrackSlice> slices = store.query(q);
    for (const TrackSlice& slice : slices) {
        std::map<NameKey, Accumulator> acc;
        const bool exact = slice.intervalLevel == 0;
        if (exact) {
            out.exactTracks.push_back(slice.track);
            for (const model::Interval& e : slice.intervals)
                addClipped(acc, e, window);
        } else {
            summaryTimes(store, slice.track, window, maxSlots, acc);
        }
        const std::size_t first = out.rows.size();
        for (const auto& [key, a] : acc) {
            NameStat row;
            row.track = slice.track;
            row.name = key.first;
            row.role = a.role;
            row.totalNs = a.totalNs;
            row.windowShare =
                static_cast<double>(a.totalNs) / static_cast<double>(window.durationNs());
            if (exact && a.count > 0) {
                const double n = static_cast<double>(a.count);
                const double mean = static_cast<double>(a.totalNs) / n;
                const double variance = std::max(0.0, a.sumSquares / n - mean * mean);
                row.count = a.count;
                row.meanNs = mean;
                row.stddevNs = std::sqrt(variance);
                row.coefficientOfVariation = mean > 0 ? std::sqrt(variance) / mean : 0.0;
            }
            out.rows.push_back(row);
        }
        std::sort(out.rows.begin() + static_cast<std::ptrdiff_t>(first), out.rows.end(),
            [](const NameStat& x, const NameStat& y) {
                return x.totalNs != y.totalNs ? x.totalNs > y.totalNs : x.name < y.name;
            });
    }
    return out;
}

}  // namespace strata::storage
