#pragma once
// The anonymous mappings of released columns (column.h), kept while a store builder tiles
// for the next column that outgrows the heap, so that tiling reuses the pages parsing
// and earlier tracks faulted in rather than giving them back to the kernel and faulting
// in fresh ones, zeroed (each ~1.5 us on a virtual machine). In a two-file JSON ingest,
// the payload spools of the tiled tracks (payload_spool.h) had been a third of the page
// faults.
//
// Only while a PooledMappings lives (a builder's tiling): elsewhere (viewers) a released
// mapping is unmapped at once, and the pool is emptied when the last one ends. It holds
// at most kPooledBytes; a mapping that would not fit is unmapped. Thread-safe.

#include <cstddef>

namespace strata::storage {

/// The most bytes of mappings the pool holds.
inline constexpr std::size_t kPooledBytes = std::size_t(64) << 20;

/// A column is given a pooled mapping at most this many times the size it asked for, so
/// that what it holds stays near what memory budgets count (twice what it holds).
inline constexpr std::size_t kPooledOversize = 4;

/// Mappings are pooled while one of these lives; the last to end empties the pool.
class PooledMappings
{
public:
    PooledMappings();
    ~PooledMappings();
    PooledMappings(const PooledMappings&) = delete;
    PooledMappings& operator=(const PooledMappings&) = delete;
};

/// The smallest pooled mapping of at least `bytes` (and at most kPooledOversize times
/// that), its size then in `bytes`; else nullptr. Its pages hold what its last column
/// left there.
void* takePooledMapping(std::size_t& bytes);

/// Gives back a mapping of `bytes` (a multiple of the page size): pooled if a
/// PooledMappings lives and it fits, else unmapped.
void poolMapping(void* mapping, std::size_t bytes);

/// Bytes of mappings in the pool.
std::size_t pooledMappingBytes();

}  // namespace strata::storage
