#pragma once
// InstantTiler and CounterTiler turn one track's instants or counter samples (events at
// a point in time) into exact tiles and summary levels, from the track held whole or from
// pieces of it in time order (track_pieces.h), in one pass: every level is built as the
// events come (level_summarizer.h's reducers, each level fed by the one below), its tiles
// encoded as they fill, and the levels worth storing are chosen at finish() by the rules
// the builder always applied (SummaryLevels, point_tiler.cpp). Memory: a tile per level.

#include "model/lod_grid.h"
#include "storage/store/track_buffer.h"

#include <memory>
#include <vector>

namespace strata::storage {

class InstantTiler
{
public:
    /// Tiles go to `out` (its payloads, then finish() its tiles and stats); `events`: the
    /// track's instants in all.
    InstantTiler(const model::LodGrid& grid, int zstdLevel, std::int64_t events, TrackTiles& out);
    ~InstantTiler();
    InstantTiler(const InstantTiler&) = delete;
    InstantTiler& operator=(const InstantTiler&) = delete;

    /// A piece in arrival order; `args` row i: the args of piece[i]. Consumed.
    void add(Column<model::Instant>& piece, ArgsColumn& args);
    void finish();

private:
    struct State;
    std::unique_ptr<State> m_state;
};

class CounterTiler
{
public:
    /// `events`: the track's samples in all.
    CounterTiler(const model::LodGrid& grid, int zstdLevel, std::int64_t events, TrackTiles& out);
    ~CounterTiler();
    CounterTiler(const CounterTiler&) = delete;
    CounterTiler& operator=(const CounterTiler&) = delete;

    /// A piece in arrival order. Consumed.
    void add(Column<model::CounterSample>& piece);
    void finish();

private:
    struct State;
    std::unique_ptr<State> m_state;
};

}  // namespace strata::storage
