#pragma once
// TileCache keeps decoded tiles, least recently used first out, within a byte budget.
// Keys are tile ids (rows of the `tiles` table). A tile larger than the whole budget is
// returned to the caller but not kept. Not thread-safe: the reader locks around it.

#include "storage/store/tiles.h"

#include <cstddef>
#include <list>
#include <memory>
#include <unordered_map>
#include <variant>

namespace strata::storage {

using DecodedTile = std::variant<IntervalTile, InstantTile, CounterTile, FlowTile, SampleTile,
                                 IntervalSummaryTile, InstantSummaryTile, CounterSummaryTile>;

/// Approximate heap bytes of a decoded tile (what the budget counts).
std::size_t decodedBytes(const DecodedTile& tile);

class TileCache
{
public:
    explicit TileCache(std::size_t budgetBytes)
        : m_budget(budgetBytes)
    {
    }

    std::shared_ptr<const DecodedTile> find(std::int64_t id);
    void insert(std::int64_t id, std::shared_ptr<const DecodedTile> tile);

    std::size_t bytes() const { return m_bytes; }
    std::size_t budget() const { return m_budget; }
    std::size_t size() const { return m_entries.size(); }
    std::uint64_t hits() const { return m_hits; }
    std::uint64_t misses() const { return m_misses; }

private:
    struct Entry
    {
        std::int64_t id;
        std::shared_ptr<const DecodedTile> tile;
        std::size_t bytes;
    };
    std::size_t m_budget;
    std::size_t m_bytes = 0;
    std::list<Entry> m_lru;  // front = most recent
    std::unordered_map<std::int64_t, std::list<Entry>::iterator> m_entries;
    std::uint64_t m_hits = 0;
    std::uint64_t m_misses = 0;
};

} // namespace strata::storage
