#pragma once
// What the byte forms of the analyses' partials (variability, efficiency) share: a count
// read back is checked against the bytes left, so that a short or damaged buffer throws
// CorruptTile instead of allocating what a wrong count asks for.

#include "storage/store/byte_io.h"

#include <string>
#include <string_view>

namespace strata::storage::detail {

/// A count, no larger than the bytes left could hold at `minBytes` bytes each; `what`
/// names the partial in the error ("variability partial").
inline std::uint64_t checkedCount(ByteReader& in, std::uint64_t minBytes, const char* what)
{
    const std::uint64_t n = in.varint();
    if (n > in.remaining() / minBytes)
        throw CorruptTile(std::string(what) + ": a count exceeds its bytes");
    return n;
}

/// Reads `magic`, the partial's first bytes; throws CorruptTile("WHAT: not one ...").
inline void expectMagic(ByteReader& in, std::string_view magic, const char* what)
{
    if (in.remaining() < magic.size() || in.raw(magic.size()) != magic)
        throw CorruptTile(std::string(what) + ": not one (no " + std::string(magic) + " header)");
}

}  // namespace strata::storage::detail
