#pragma once
// FlowCutter cuts a track's flows into exact tiles in time order (of their start), from
// the whole track at once (track_tiler.cpp) or piece by piece (track_pieces.h): the
// same tiles either way, so a track of any number of flows is tiled in bounded memory.

#include "storage/store/exact_cutter.h"

#include <algorithm>
#include <vector>

namespace strata::storage {

class FlowCutter
{
public:
    FlowCutter(int zstdLevel, PayloadSpool& spool)
        : m_cutter(TileKind::Flows, 0, zstdLevel, spool, m_rows)
    {}
    FlowCutter(const FlowCutter&) = delete;  // m_cutter writes into this one's m_rows
    FlowCutter& operator=(const FlowCutter&) = delete;

    /// Adds `flows`, sorted here by start (stable: equal starts keep their order); the
    /// flows of a later call start no earlier than those of this one.
    void add(Column<model::Flow>& flows)
    {
        // Flows mostly come in time order (a trace's records do): a merge sort of sorted
        // flows still copies them log n times (~15 M instructions of a 300 k-record
        // Paraver ingest), a check does not.
        const auto earlier = [](const model::Flow& a, const model::Flow& b) {
            return a.fromNs < b.fromNs;
        };
        if (!std::is_sorted(flows.begin(), flows.end(), earlier))
            std::stable_sort(flows.begin(), flows.end(), earlier);
        for (const model::Flow& f : flows)
            m_cutter.add(
                f.fromNs, std::max(f.fromNs, f.toNs), [&](FlowTile& t) { t.flows.push_back(f); });
        m_flows += static_cast<std::int64_t>(flows.size());
    }

    /// Encodes the last tile and appends the tiles to `out`, with the flow count.
    void finish(TrackTiles& out)
    {
        m_cutter.finish();
        out.tiles.insert(out.tiles.end(), m_rows.begin(), m_rows.end());
        m_rows.clear();
        out.stats.flows = m_flows;
    }

private:
    std::vector<TileRow> m_rows;  ///< before m_cutter, which writes into it
    ExactCutter<FlowTile> m_cutter;
    std::int64_t m_flows = 0;
};

}  // namespace strata::storage
