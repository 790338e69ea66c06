#pragma once
// Little helpers to write and read the columns of a tile: LEB128 varints, zigzag for
// signed deltas, raw little-endian doubles, and length-prefixed strings. ByteReader
// never reads past its end: a short or corrupted buffer throws CorruptTile.

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
    void varint(std::uint64_t v)
    {
        if (v < 0x80) {
            m_bytes.push_back(static_cast<char>(v));
            return;
        }
        // Built aside and appended at once: a push_back per byte (a capacity check and a
        // terminator each) made varints 6 % of a Paraver ingest.
        char raw[10];
        std::size_t n = 0;
        while (v >= 0x80) {
            raw[n++] = static_cast<char>((v & 0x7F) | 0x80);
            v >>= 7;
        }
        raw[n++] = static_cast<char>(v);
        m_bytes.append(raw, n);
    }
    void svarint(std::int64_t v) { varint(zigzag(v)); }
    void u8(std::uint8_t v) { m_bytes.push_back(static_cast<char>(v)); }
    void f64(double v)
    {
        char raw[8];
        std::memcpy(raw, &v, 8);
        m_bytes.append(raw, 8);
    }
    void string(std::string_view s)
    {
        varint(s.size());
        m_bytes.append(s);
    }
    std::string& bytes() { return m_bytes; }

private:
    std::string m_bytes;
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
