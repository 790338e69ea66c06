#include "storage/store/tile_cache.h"

namespace strata::storage {

namespace {

/// What a column (vector or Column) holds in memory.
template<typename Rows>
std::size_t vectorBytes(const Rows& v)
{
    return v.capacity() * sizeof(typename Rows::value_type);
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

} // namespace strata::storage
