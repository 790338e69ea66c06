#pragma once
// TileCache keeps decoded tiles, least recently used first out, within a byte budget.
// Keys are tile ids (rows of the `tiles` table). A tile larger than the whole budget is
// returned to the caller but not kept. Not thread-safe: the reader locks around it.
//
// LruCache is the same for any value that says its own size; the reader also keeps the
// tile indexes of the tracks it read lately in one (shard_reader.h).

#include "storage/store/tiles.h"

#include <cstddef>
#include <cstdint>
#include <list>
#include <memory>
#include <unordered_map>
#include <variant>

namespace strata::storage {

using DecodedTile = std::variant<IntervalTile, InstantTile, CounterTile, FlowTile, SampleTile,
                                 IntervalSummaryTile, InstantSummaryTile, CounterSummaryTile>;

/// Approximate heap bytes of a decoded tile (what the budget counts).
std::size_t decodedBytes(const DecodedTile& tile);

/// Values by key, least recently used first out, while their bytes exceed the budget.
/// What a caller still holds (a shared_ptr) stays alive after it leaves the cache.
template<typename Value>
class LruCache
{
public:
    explicit LruCache(std::size_t budgetBytes)
        : m_budget(budgetBytes)
    {
    }

    std::shared_ptr<const Value> find(std::int64_t id)
    {
        auto it = m_entries.find(id);
        if (it == m_entries.end()) {
            ++m_misses;
            return nullptr;
        }
        ++m_hits;
        m_lru.splice(m_lru.begin(), m_lru, it->second);
        return it->second->value;
    }

    /// Whether `id` is held (neither a hit nor a miss, nor a use).
    bool contains(std::int64_t id) const { return m_entries.count(id) > 0; }

    void insert(std::int64_t id, std::shared_ptr<const Value> value, std::size_t bytes)
    {
        if (bytes > m_budget || m_entries.count(id))
            return;
        while (m_bytes + bytes > m_budget && !m_lru.empty()) {
            m_bytes -= m_lru.back().bytes;
            m_entries.erase(m_lru.back().id);
            m_lru.pop_back();
        }
        m_lru.push_front({ id, std::move(value), bytes });
        m_entries[id] = m_lru.begin();
        m_bytes += bytes;
    }

    std::size_t bytes() const { return m_bytes; }
    std::size_t budget() const { return m_budget; }
    std::size_t size() const { return m_entries.size(); }
    std::uint64_t hits() const { return m_hits; }
    std::uint64_t misses() const { return m_misses; }

private:
    struct Entry
    {
        std::int64_t id;
        std::shared_ptr<const Value> value;
        std::size_t bytes;
    };
    std::size_t m_budget;
    std::size_t m_bytes = 0;
    std::list<Entry> m_lru;  // front = most recent
    std::unordered_map<std::int64_t, typename std::list<Entry>::iterator> m_entries;
    std::uint64_t m_hits = 0;
    std::uint64_t m_misses = 0;
};

class TileCache : public LruCache<DecodedTile>
{
public:
    using LruCache::insert;
    using LruCache::LruCache;
    void insert(std::int64_t id, std::shared_ptr<const DecodedTile> tile)
    {
        const std::size_t bytes = decodedBytes(*tile);
        insert(id, std::move(tile), bytes);
    }
};

} // namespace strata::storage
