#pragma once
// ExactCutter cuts rows that come in time order (one band of a track's intervals, its
// instants, ...) into exact tiles of kEventsPerTile rows, encoded into a track's spool as
// each fills. The rows may come in several calls (the pieces of a long track): a tile
// runs on from one piece into the next, as if the track had come whole.

#include "storage/store/tile_codec.h"
#include "storage/store/track_buffer.h"

#include <algorithm>
#include <vector>

namespace strata::storage {

template<typename Tile>
class ExactCutter
{
public:
    /// Tiles of `kind` and `level` go to `rows`, their payloads to `spool`.
    ExactCutter(
        TileKind kind, int level, int zstdLevel, PayloadSpool& spool, std::vector<TileRow>& rows)
        : m_kind(kind)
        , m_level(level)
        , m_zstdLevel(zstdLevel)
        , m_spool(spool)
        , m_rows(rows)
    {}

    /// Adds a row starting at `startNs` and ending at `endNs`; `fill(tile)` puts it in.
    template<typename Fill>
    void add(model::TimeNs startNs, model::TimeNs endNs, Fill fill)
    {
        if (m_n == 0)
            m_t0 = m_maxEnd = startNs;
        fill(m_tile);
        m_maxEnd = std::max(m_maxEnd, endNs);
        if (++m_n == static_cast<std::int64_t>(kEventsPerTile))
            flush();
    }

    /// Encodes the last tile, not yet full.
    void finish()
    {
        if (m_n > 0)
            flush();
    }

    /// The encoded bytes of the tiles so far.
    std::uint64_t bytes() const { return m_bytes; }

private:
    void flush()
    {
        const std::string payload = encodeTile(m_tile, m_zstdLevel);
        m_bytes += payload.size();
        m_rows.push_back(
            { { m_kind, m_level, m_idx++, m_t0, m_maxEnd, m_n }, m_spool.add(payload) });
        clear(m_tile);
        m_n = 0;
    }
    // Empties a tile for the next one, its columns keeping their memory: grown again from
    // nothing for every tile of 512 events (`tile = {}`), they took ~40 instructions an
    // event.
    static void clear(ArgsColumn& args)
    {
        args.bytes.clear();
        args.ends.clear();
    }
    static void clear(IntervalTile& t)
    {
        t.events.clear();
        clear(t.args);
    }
    static void clear(InstantTile& t)
    {
        t.events.clear();
        clear(t.args);
    }
    static void clear(CounterTile& t) { t.samples.clear(); }
    static void clear(FlowTile& t) { t.flows.clear(); }
    static void clear(SampleTile& t) { t.samples.clear(); }

    const TileKind m_kind;
    const int m_level;
    const int m_zstdLevel;
    PayloadSpool& m_spool;
    std::vector<TileRow>& m_rows;
    Tile m_tile;
    std::int64_t m_idx = 0;
    std::int64_t m_n = 0;
    model::TimeNs m_t0 = 0;
    model::TimeNs m_maxEnd = 0;
    std::uint64_t m_bytes = 0;
};

/// Cuts `rows` (in time order; any range) into tiles of `kind` at `level`, into `out`.
template<typename Tile, typename Rows, typename Fill, typename Start, typename End>
void cutExact(TrackTiles& out, TileKind kind, int level, Rows&& rows, int zstdLevel, Fill fill,
    Start start, End end)
{
    ExactCutter<Tile> cutter(kind, level, zstdLevel, out.payloads, out.tiles);
    for (const auto& row : rows)
        cutter.add(start(row), end(row), [&](Tile& tile) { fill(tile, row); });
    cutter.finish();
}

}  // namespace strata::storage
