#include "storage/store/tile_cache.h"

namespace strata::storage {

namespace {

template<typename T>
std::size_t vectorBytes(const std::vector<T>& v)
{
    return v.capacity() * sizeof(T);
}

std::size_t argsBytes(const ArgsColumn& args)
{
    return args.bytes.capacity() + vectorBytes(args.ends);
}

} // namespace

std::size_t decodedBytes(const DecodedTile& tile)
{
    struct Visitor
    {
        std::size_t operator()(const IntervalTile& t) const { return vectorBytes(t.events) + argsBytes(t.args); }
        std::size_t operator()(const InstantTile& t) const { return vectorBytes(t.events) + argsBytes(t.args); }
        std::size_t operator()(const CounterTile& t) const { return vectorBytes(t.samples); }
        std::size_t operator()(const FlowTile& t) const { return vectorBytes(t.flows); }
        std::size_t operator()(const SampleTile& t) const { return vectorBytes(t.samples); }
        std::size_t operator()(const IntervalSummaryTile& t) const { return vectorBytes(t.cells) + vectorBytes(t.entries); }
        std::size_t operator()(const InstantSummaryTile& t) const { return vectorBytes(t.cells); }
        std::size_t operator()(const CounterSummaryTile& t) const { return vectorBytes(t.cells); }
    };
    return sizeof(DecodedTile) + std::visit(Visitor{}, tile);
}

std::shared_ptr<const DecodedTile> TileCache::find(std::int64_t id)
{
    auto it = m_entries.find(id);
    if (it == m_entries.end()) {
        ++m_misses;
        return nullptr;
    }
    ++m_hits;
    m_lru.splice(m_lru.begin(), m_lru, it->second);
    return it->second->tile;
}

void TileCache::insert(std::int64_t id, std::shared_ptr<const DecodedTile> tile)
{
    const std::size_t bytes = decodedBytes(*tile);
    if (bytes > m_budget || m_entries.count(id))
        return;
    while (m_bytes + bytes > m_budget && !m_lru.empty()) {
        m_bytes -= m_lru.back().bytes;
        m_entries.erase(m_lru.back().id);
        m_lru.pop_back();
    }
    m_lru.push_front({id, std::move(tile), bytes});
    m_entries[id] = m_lru.begin();
    m_bytes += bytes;
}

} // namespace strata::storage
