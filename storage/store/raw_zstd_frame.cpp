#include "storage/store/raw_zstd_frame.h"

#include <bit>
#include <cassert>

namespace strata::storage {

namespace {

constexpr std::uint64_t kPrime1 = 0x9E3779B185EBCA87ULL;
constexpr std::uint64_t kPrime2 = 0xC2B2AE3D27D4EB4FULL;
constexpr std::uint64_t kPrime3 = 0x165667B19E3779F9ULL;
constexpr std::uint64_t kPrime4 = 0x85EBCA77C2B2AE63ULL;
constexpr std::uint64_t kPrime5 = 0x27D4EB2F165667C5ULL;

/// The little-endian unsigned of sizeof(T) bytes at `p` (one load on x86-64).
template<typename T>
T readLittle(const char* p)
{
    T v = 0;
    for (std::size_t i = 0; i < sizeof(T); ++i)
        v |= T(static_cast<unsigned char>(p[i])) << (8 * i);
    return v;
}

std::uint64_t round(std::uint64_t acc, std::uint64_t lane)
{
    return std::rotl(acc + lane * kPrime2, 31) * kPrime1;
}

std::uint64_t mergeRound(std::uint64_t h, std::uint64_t v)
{
    return (h ^ round(0, v)) * kPrime1 + kPrime4;
}

void putLittle(std::string& out, std::uint64_t v, int bytes)
{
    for (int i = 0; i < bytes; ++i)
        out.push_back(static_cast<char>((v >> (8 * i)) & 0xFF));
}

}  // namespace

std::uint64_t xxh64(std::string_view bytes, std::uint64_t seed)
{
    const char* p = bytes.data();
    const char* const end = p + bytes.size();
    std::uint64_t h;
    if (bytes.size() >= 32) {
        std::uint64_t v1 = seed + kPrime1 + kPrime2;
        std::uint64_t v2 = seed + kPrime2;
        std::uint64_t v3 = seed;
        std::uint64_t v4 = seed - kPrime1;
        for (; end - p >= 32; p += 32) {
            v1 = round(v1, readLittle<std::uint64_t>(p));
            v2 = round(v2, readLittle<std::uint64_t>(p + 8));
            v3 = round(v3, readLittle<std::uint64_t>(p + 16));
            v4 = round(v4, readLittle<std::uint64_t>(p + 24));
        }
        h = std::rotl(v1, 1) + std::rotl(v2, 7) + std::rotl(v3, 12) + std::rotl(v4, 18);
        h = mergeRound(mergeRound(mergeRound(mergeRound(h, v1), v2), v3), v4);
    } else {
        h = seed + kPrime5;
    }
    h += bytes.size();
    for (; end - p >= 8; p += 8)
        h = std::rotl(h ^ round(0, readLittle<std::uint64_t>(p)), 27) * kPrime1 + kPrime4;
    if (end - p >= 4) {
        h = std::rotl(h ^ (readLittle<std::uint32_t>(p) * kPrime1), 23) * kPrime2 + kPrime3;
        p += 4;
    }
    for (; p < end; ++p)
        h = std::rotl(h ^ (static_cast<std::uint8_t>(*p) * kPrime5), 11) * kPrime1;
    h ^= h >> 33;
    h *= kPrime2;
    h ^= h >> 29;
    h *= kPrime3;
    h ^= h >> 32;
    return h;
}

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
    putLittle(out, xxh64(body) & 0xFFFFFFFFu, 4);
}

}  // namespace strata::storage
