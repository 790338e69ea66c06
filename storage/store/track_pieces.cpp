#include "storage/store/track_pieces.h"

#include "storage/store/interval_tiler.h"
#include "storage/store/interval_windows.h"
#include "storage/store/spill_file.h"

#include <algorithm>
#include <map>

namespace strata::storage {

namespace {

/// Gives `take` the track's events: its spilled segments, then what is held.
void forEachPart(const SpillFile& spill, model::TrackId track, StoreBuilder::TrackBuffer& held,
    const std::function<void(StoreBuilder::TrackBuffer&)>& take)
{
    spill.forEachSegment(track, take);
    take(held);
}

std::size_t rowBytes(const StoreBuilder::TrackBuffer& part, std::size_t i)
{
    return sizeof(model::Interval) + part.intervalArgs.at(i).size();
}

/// The first window of each piece: windows taken in time order, a piece closed once it
/// holds `pieceBytes`.
std::vector<std::int64_t> pieceStarts(const SpillFile& spill, model::TrackId track,
    StoreBuilder::TrackBuffer& held, const model::LodGrid& grid, std::size_t pieceBytes)
{
    std::map<std::int64_t, std::uint64_t> bytesByWindow;
    forEachPart(spill, track, held, [&](StoreBuilder::TrackBuffer& part) {
        for (std::size_t i = 0; i < part.intervals.size(); ++i)
            bytesByWindow[windowOf(grid, part.intervals[i].startNs)] += rowBytes(part, i);
    });
    std::vector<std::int64_t> starts;
    std::uint64_t filled = 0;
    for (const auto& [window, bytes] : bytesByWindow) {
        if (starts.empty() || filled >= pieceBytes) {
            starts.push_back(window);
            filled = 0;
        }
        filled += bytes;
    }
    return starts;
}

}  // namespace

TrackTiles tileTrackInPieces(const SpillFile& spill, model::TrackId track,
    StoreBuilder::TrackBuffer& held, const std::function<void(StoreBuilder::TrackBuffer&)>& prepare,
    const model::LodGrid& grid, int zstdLevel, const FlameSummaryOptions& flame,
    PayloadSpool payloads, std::size_t pieceBytes)
{
    const std::vector<std::int64_t> starts = pieceStarts(spill, track, held, grid, pieceBytes);

    // Cut the intervals into pieces, written to a spill file of their own (a piece a
    // "track" of it) whenever those held pass two pieces; keep the other events.
    SpillFile pieces(spill.path().string() + ".pieces." + std::to_string(track));
    std::vector<StoreBuilder::TrackBuffer> cut(starts.size());
    StoreBuilder::TrackBuffer rest;
    std::size_t cutBytes = 0;
    std::int64_t intervals = 0;
    auto spillPieces = [&] {
        for (std::size_t p = 0; p < cut.size(); ++p) {
            if (!cut[p].intervals.empty())
                pieces.spill(static_cast<model::TrackId>(p), cut[p]);
        }
        cutBytes = 0;
    };
    forEachPart(spill, track, held, [&](StoreBuilder::TrackBuffer& part) {
        for (std::size_t i = 0; i < part.intervals.size(); ++i) {
            const model::Interval& e = part.intervals[i];
            const auto after =
                std::upper_bound(starts.begin(), starts.end(), windowOf(grid, e.startNs));
            StoreBuilder::TrackBuffer& piece =
                cut[static_cast<std::size_t>(after - starts.begin() - 1)];
            piece.intervals.push_back(e);
            appendArgs(piece.intervalArgs, piece.intervals.size() - 1, part.intervalArgs.at(i));
            cutBytes += rowBytes(part, i);
        }
        intervals += static_cast<std::int64_t>(part.intervals.size());
        release(part.intervals);
        release(part.intervalArgs);
        for (std::size_t i = 0; i < part.instants.size(); ++i) {
            rest.instants.push_back(part.instants[i]);
            appendArgs(rest.instantArgs, rest.instants.size() - 1, part.instantArgs.at(i));
        }
        rest.counters.insert(rest.counters.end(), part.counters.begin(), part.counters.end());
        rest.flows.insert(rest.flows.end(), part.flows.begin(), part.flows.end());
        rest.samples.insert(rest.samples.end(), part.samples.begin(), part.samples.end());
        if (cutBytes > 2 * pieceBytes)
            spillPieces();
    });
    spillPieces();
    prepare(rest);

    TrackTiles out;
    out.payloads = std::move(payloads);
    bool any = false;
    // A track with samples gets the pyramid of its samples.
    IntervalTiler tiler(grid, zstdLevel, flame, rest.samples.empty(), intervals, out);
    auto eachPiece = [&](const std::function<void(StoreBuilder::TrackBuffer&, std::size_t)>& take) {
        for (std::size_t p = 0; p < starts.size(); ++p) {
            StoreBuilder::TrackBuffer piece;
            pieces.reload(static_cast<model::TrackId>(p), piece);
            prepare(piece);
            take(piece, p);
        }
    };
    eachPiece([&](StoreBuilder::TrackBuffer& piece, std::size_t) {
        widenTrackSpan(piece, out.stats, any);
        tiler.cut(piece.intervals, piece.intervalArgs);
    });
    tiler.decideLevels();
    eachPiece([&](StoreBuilder::TrackBuffer& piece, std::size_t p) {
        const std::int64_t end = p + 1 < starts.size() ? starts[p + 1] : WindowRange::all().end;
        tiler.summarize(piece.intervals, { starts[p], end }, false);
    });
    tiler.finish();
    widenTrackSpan(rest, out.stats, any);
    tileBesideIntervals(rest, grid, zstdLevel, flame, out);
    return out;
}

}  // namespace strata::storage
