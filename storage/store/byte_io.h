#pragma once
// Little helpers to write and read the columns of a tile: LEB128 varints, zigzag for
// signed deltas, raw little-endian doubles, and length-prefixed strings. ByteReader
// never reads past its end: a short or corrupted buffer throws CorruptTile.

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace strata::storage {

class CorruptTile : public std::runtime_error
{
public:
    explicit CorruptTile(const std::string& what)
        : std::runtime_error(what)
    {
    }
};

inline std::uint64_t zigzag(std::int64_t v)
{
    return (static_cast<std::uint64_t>(v) << 1) ^ static_cast<std::uint64_t>(v >> 63);
}
inline std::int64_t unzigzag(std::uint64_t v)
{
    return static_cast<std::int64_t>(v >> 1) ^ -static_cast<std::int64_t>(v & 1);
}

class ByteWriter
{
public:
    // Inline (GCC called it otherwise: a third of its cost), the growing out of line.
    [[gnu::always_inline]] void varint(std::uint64_t v)
    {
        char* p = room(10);
        std::size_t n = 0;
        while (v >= 0x80) {
            p[n++] = static_cast<char>((v & 0x7F) | 0x80);
            v >>= 7;
        }
        p[n++] = static_cast<char>(v);
        m_used += n;
    }
    [[gnu::always_inline]] void svarint(std::int64_t v) { varint(zigzag(v)); }
    [[gnu::always_inline]] void u8(std::uint8_t v)
    {
        *room(1) = static_cast<char>(v);
        ++m_used;
    }
    void f64(double v)
    {
        std::memcpy(room(8), &v, 8);
        m_used += 8;
    }
    void string(std::string_view s)
    {
        varint(s.size());
        raw(s);
    }
    /// `s` as it is, without its length.
    void raw(std::string_view s)
    {
        if (s.empty())
            return;
        std::memcpy(room(s.size()), s.data(), s.size());
        m_used += s.size();
    }
    /// What was written; a caller may append to it, and writing goes on after that.
    std::string& bytes()
    {
        if (m_limit != 0) {
            m_bytes.resize(m_used);
            m_limit = 0;  // the next write takes the string's size again (grow())
        }
        return m_bytes;
    }

private:
    /// Where `n` more bytes go. The string is kept longer than what was written (up to
    /// m_limit) and written through a pointer: a push_back or append per number (a
    /// capacity check and a terminator each) made the columns' writing ~40 instructions
    /// a number, a fifth of the tiling of a Paraver ingest besides zstd.
    [[gnu::always_inline]] char* room(std::size_t n)
    {
        if (m_used + n > m_limit) [[unlikely]]
            grow(n);
        return m_bytes.data() + m_used;
    }
    [[gnu::noinline]] void grow(std::size_t n)
    {
        if (m_limit == 0)  // new, or bytes() handed the string out
            m_used = m_bytes.size();
        if (m_used + n > m_bytes.size())
            m_bytes.resize(std::max({ m_used + n, 2 * m_bytes.size(), std::size_t(64) }));
        m_limit = m_bytes.size();
    }

    std::string m_bytes;  ///< [0, m_used) written, the rest room
    std::size_t m_used = 0;
    std::size_t m_limit = 0;  ///< m_bytes.size(), or 0 while m_bytes holds [0, m_used) alone
};

class ByteReader
{
public:
    explicit ByteReader(std::string_view bytes)
        : m_p(bytes.data())
        , m_end(bytes.data() + bytes.size())
    {
    }
    std::uint64_t varint()
    {
        std::uint64_t v = 0;
        for (int shift = 0; shift < 64; shift += 7) {
            if (m_p == m_end)
                throw CorruptTile("tile ends inside a number");
            const auto byte = static_cast<std::uint8_t>(*m_p++);
            v |= static_cast<std::uint64_t>(byte & 0x7F) << shift;
            if (!(byte & 0x80))
                return v;
        }
        throw CorruptTile("number longer than 64 bits");
    }
    std::int64_t svarint() { return unzigzag(varint()); }
    /// Adds a zigzag delta to `base` with wrap-around (corrupt input must not be UB).
    std::int64_t delta(std::int64_t base)
    {
        return static_cast<std::int64_t>(static_cast<std::uint64_t>(base) + static_cast<std::uint64_t>(svarint()));
    }
    std::uint8_t u8()
    {
        need(1);
        return static_cast<std::uint8_t>(*m_p++);
    }
    double f64()
    {
        need(8);
        double v;
        std::memcpy(&v, m_p, 8);
        m_p += 8;
        return v;
    }
    std::string_view raw(std::uint64_t n)
    {
        need(n);
        std::string_view s(m_p, n);
        m_p += n;
        return s;
    }
    std::string_view string()
    {
        const std::uint64_t n = varint();
        need(n);
        std::string_view s(m_p, n);
        m_p += n;
        return s;
    }
    bool atEnd() const { return m_p == m_end; }
    std::uint64_t remaining() const { return static_cast<std::uint64_t>(m_end - m_p); }

private:
    void need(std::uint64_t n) const
    {
        if (static_cast<std::uint64_t>(m_end - m_p) < n)
            throw CorruptTile("tile shorter than its columns");
    }
    const char* m_p;
    const char* m_end;
};

} // namespace strata::storage
