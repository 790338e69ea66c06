#pragma once
// The anonymous mappings of released columns (column.h), kept for the next column that
// outgrows the heap, so that a builder's tiling reuses the pages its parsing faulted in
// rather than giving them back to the kernel and faulting in fresh ones, zeroed (each
// ~1.5 us on a virtual machine). In a two-file JSON ingest, the payload spools of the
// tiled tracks (payload_spool.h) had been a third of the page faults.
//
// Thread-safe. The pool holds at most kPooledBytes; a mapping that would not fit is
// unmapped.

#include <cstddef>

namespace strata::storage {

/// The most bytes of mappings the pool holds.
inline constexpr std::size_t kPooledBytes = std::size_t(64) << 20;

/// The largest pooled mapping if it has at least `bytes` (its size then in `bytes`), else
/// nullptr: a column that outgrows the heap is likely to grow on, and a mapping large
/// enough already needs no mremap, whose new pages fault in. Its pages hold what its last
/// column left there.
void* takePooledMapping(std::size_t& bytes);

/// Gives back a mapping of `bytes` (a multiple of the page size): pooled if it fits, else
/// unmapped.
void poolMapping(void* mapping, std::size_t bytes);

/// Bytes of mappings in the pool.
std::size_t pooledMappingBytes();

/// Unmaps every pooled mapping (at a builder's end).
void releasePooledMappings();

}  // namespace strata::storage
