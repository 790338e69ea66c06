#include "storage/store/raw_zstd_frame.h"

#include <xxhash.h>

#include <cassert>

namespace strata::storage {

namespace {

void putLittle(std::string& out, std::uint64_t v, int bytes)
{
    for (int i = 0; i < bytes; ++i)
        out.push_back(static_cast<char>((v >> (8 * i)) & 0xFF));
}

}  // namespace

void appendRawZstdFrame(std::string& out, std::string_view body)
{
    assert(!body.empty() && body.size() <= kMaxRawZstdFrameBody);
    putLittle(out, 0xFD2FB528u, 4);
    // Frame header descriptor: single segment (no window descriptor), a content checksum,
    // and a content size of 1 byte (bodies under 256) or of 2 bytes holding size - 256.
    const bool small = body.size() < 256;
    out.push_back(static_cast<char>((small ? 0x00 : 0x40) | 0x20 | 0x04));
    putLittle(out, small ? body.size() : body.size() - 256, small ? 1 : 2);
    // Block header: the last block, of type raw (0), and its size.
    putLittle(out, (std::uint64_t(body.size()) << 3) | 1u, 3);
    out.append(body);
    putLittle(out, XXH64(body.data(), body.size(), 0) & 0xFFFFFFFFu, 4);
}

}  // namespace strata::storage
