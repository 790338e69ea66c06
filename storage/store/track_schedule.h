#pragma once
// TrackSchedule: which track a tiling worker of the store builder takes next
// (store_builder.cpp). Of the tracks the writer lets the workers start, the one with the
// most events goes first, so that the last to finish are short ones: in index order, a
// two-file JSON ingest often ended with one core tiling a long track (~45 ms) while the
// other, done with its shard, waited. The writer still takes the results in track order,
// so the store does not depend on the schedule. Equal weights give track order (a
// spilled build's, store_builder.cpp).

#include <cstddef>
#include <cstdint>
#include <vector>

namespace strata::storage {

class TrackSchedule
{
public:
    /// `weights[i]`: the cost of tiling track i (its bytes of events).
    explicit TrackSchedule(std::vector<std::uint64_t> weights);

    /// The first track no worker has taken (the track count once all are).
    std::size_t firstUntaken() const { return m_firstUntaken; }

    /// Takes, of the untaken tracks before `end`, the heaviest (the first of equals).
    /// Requires firstUntaken() < end.
    std::size_t take(std::size_t end);

private:
    std::vector<std::uint64_t> m_weights;
    std::vector<bool> m_taken;
    std::size_t m_firstUntaken = 0;
};

}  // namespace strata::storage
