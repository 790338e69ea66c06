#include "storage/store/tile_codec.h"

#include "storage/store/args_codec.h"
#include "storage/store/raw_zstd_frame.h"

// For ZSTD_c_literalCompressionMode (zstd >= 1.5.0; its frames decode with any zstd).
#define ZSTD_STATIC_LINKING_ONLY
#include <zstd.h>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <memory>
#include <optional>
#include <span>

namespace strata::storage {

namespace {

/// Wide enough to add or multiply two int64 times without overflow (GCC and Clang).
__extension__ using Int128 = __int128;

// Decoded tiles are capped so that a corrupted size field cannot ask for gigabytes.
constexpr std::uint64_t kMaxRawTileBytes = 512u << 20;
constexpr std::uint64_t kMaxRows = 1u << 26;

struct CctxDeleter
{
    void operator()(ZSTD_CCtx* c) const { ZSTD_freeCCtx(c); }
};
struct DctxDeleter
{
    void operator()(ZSTD_DCtx* d) const { ZSTD_freeDCtx(d); }
};

/// Bodies shorter than this are stored in a raw zstd block, zstd not asked
/// (raw_zstd_frame.h): it cannot shrink a body under 32 bytes, and shrinks one of 32-63
/// bytes by 5 bytes on average, for 2-3 us a frame. Measured on the flame buckets of a
/// 300 k-record Paraver trace (91 % of its 16 k frames are this short): -70 % of their
/// compression time, +0.4 % store bytes.
constexpr std::size_t kRawFrameBelow = 64;

/// Exact interval and flow tiles up to this size are compressed with greedy matching
/// (see wrap()).
constexpr std::size_t kGreedyUpToBytes = 16 << 10;

/// How often a body is inflated: by every timeline frame that shows it, or only by what
/// reads every field (a tooltip, the legend, an analysis).
enum class Inflated : std::uint8_t { ByFrames, Rarely };

/// Level of a body inflated rarely: the detail part of a summary tile (counts, longest
/// events, all but the first coverage entry) is numbers that zstd matches little (1.65 x
/// at level 6 with raw literals); Huffman coding its literals at level 3 makes it 3.4 %
/// smaller in 44 % less time (r0.json's 538 detail parts, 9.6 MB: 5.80 MB in 40 ms ->
/// 5.61 MB in 22 ms).
constexpr int kRarelyInflatedLevel = 3;

std::string wrap(TileKind kind, const std::string& raw, int level,
    std::uint8_t version = kTileCodecVersion, Inflated inflated = Inflated::ByFrames)
{
    if (inflated == Inflated::Rarely)
        level = std::min(level, kRarelyInflatedLevel);
    ByteWriter header;
    header.u8('S');
    header.u8('T');
    header.u8(static_cast<std::uint8_t>(kind));
    header.u8(version);
    header.varint(raw.size());
    std::string out = std::move(header.bytes());
    if (!raw.empty() && raw.size() < kRawFrameBelow) {
        appendRawZstdFrame(out, raw);
        return out;
    }

    // One compression context per thread: creating one per tile costs more than
    // compressing a small tile.
    thread_local std::unique_ptr<ZSTD_CCtx, CctxDeleter> cctx(ZSTD_createCCtx());
    ZSTD_CCtx_reset(cctx.get(), ZSTD_reset_session_and_parameters);
    ZSTD_CCtx_setParameter(cctx.get(), ZSTD_c_compressionLevel, level);
    ZSTD_CCtx_setParameter(cctx.get(), ZSTD_c_checksumFlag, 1);
    // Levels 5 and 6 search lazily (lazy2 at 6 up to 16 KB): greedy matching gives the
    // same bytes within 0.7 % in 20-40 % less time for exact interval and flow tiles up
    // to 16 KB (the ~5 KB interval tiles of a 300 k-record Paraver trace: 1 572 912 ->
    // 1 570 446 bytes, -38 % time; a Kineto trace's: +0.7 %, -21 %) and for interval
    // summary tiles of any size (+0.3 %, -20 %). Not for instants and counters: their
    // tiles' size decides which of their summary levels are stored (track_tiler.cpp),
    // and a few bytes more or less moved a level in or out (+2.4 % store for omp4.prv).
    const bool matchTuned = inflated == Inflated::ByFrames
        && (kind == TileKind::Intervals || kind == TileKind::IntervalSummary
            || kind == TileKind::Flows);
    if (matchTuned && level >= 5 && level <= 6) {
        if (kind == TileKind::IntervalSummary || raw.size() <= kGreedyUpToBytes)
            ZSTD_CCtx_setParameter(cctx.get(), ZSTD_c_strategy, ZSTD_greedy);
        // Above 16 KB zstd 1.5 matches through its row-based match finder, made for
        // bodies of megabytes: on tiles of 16-64 KB the hash chains find the same bytes
        // (-0.04 % on the exact tiles of a Kineto trace) in ~20 % less time (-24 % of the
        // instructions; 20 runs alternating, min time: 32 -> 25 ms for 181 tiles of
        // 21 KB), and the summary tiles of p300k.prv in -26 % instructions.
        ZSTD_CCtx_setParameter(cctx.get(), ZSTD_c_useRowMatchFinder, ZSTD_ps_disable);
    }
    // The tiles a frame decodes when it jumps (intervals and their summaries) keep their
    // literals raw: Huffman coding them saved 2-8 % of their bytes and cost half of
    // their decompression (20 -> 11 us a tile of exact intervals, 31 -> 20 us a summary
    // tile of 1 000 cells, on the 100 M run).
    const bool drawn = kind == TileKind::Intervals || kind == TileKind::IntervalSummary;
    if (drawn && inflated == Inflated::ByFrames)
        ZSTD_CCtx_setParameter(cctx.get(), ZSTD_c_literalCompressionMode, ZSTD_ps_disable);

    // Compressed into a buffer kept per thread (the largest payload's bound), not
    // zero-filled, then copied after the header: a string resized to zstd's bound was
    // zero-filled first, a memset of about the tile's size for every tile, where the
    // copy is of the compressed bytes (-6 M instructions of a p300k.prv ingest).
    thread_local std::unique_ptr<char[]> scratch;
    thread_local std::size_t scratchBytes = 0;
    const std::size_t bound = ZSTD_compressBound(raw.size());
    if (scratchBytes < bound) {
        scratch = std::make_unique_for_overwrite<char[]>(bound);
        scratchBytes = bound;
    }
    const std::size_t n = ZSTD_compress2(cctx.get(), scratch.get(), bound, raw.data(), raw.size());
    if (ZSTD_isError(n))
        throw std::runtime_error(std::string("zstd compression failed: ") + ZSTD_getErrorName(n));
    out.append(scratch.get(), n);
    return out;
}

/// Bytes a decompressed tile body has after its end (zeros), so that a number of a
/// checked column (VarintColumn) is read with one 8-byte load wherever it lies.
constexpr std::size_t kRawPadding = 8;

/// A decompressed tile body; not zero-filled first (decoding overwrites it all).
struct RawTile
{
    std::unique_ptr<char[]> bytes;
    std::size_t size = 0;
    std::uint8_t version = kTileCodecVersion;
    operator std::string_view() const { return {bytes.get(), size}; }
};

/// The version of a payload of kind `expected`, its magic and kind checked; `newest`: the
/// newest codec version of the kind (every older one decodes too).
std::uint8_t payloadVersion(TileKind expected, std::string_view payload, std::uint8_t newest)
{
    ByteReader header(payload);
    if (payload.size() < 5 || header.u8() != 'S' || header.u8() != 'T')
        throw CorruptTile("tile has no 'ST' magic");
    const auto kind = static_cast<TileKind>(header.u8());
    if (kind != expected)
        throw CorruptTile("tile is of kind " + std::to_string(static_cast<int>(kind))
                          + ", expected " + std::to_string(static_cast<int>(expected)));
    const std::uint8_t version = header.u8();
    if (version < kTileCodecVersion || version > newest)
        throw CorruptTile("tile codec version " + std::to_string(version) + " is not "
            + std::to_string(kTileCodecVersion) + ".." + std::to_string(newest));
    return version;
}

/// A body as the payload holds it after its magic, kind and version: `varint rawSize |
/// zstd frame`, inflated.
RawTile inflate(std::string_view sized, std::uint8_t version)
{
    ByteReader header(sized);
    const std::uint64_t rawSize = header.varint();
    if (rawSize > kMaxRawTileBytes)
        throw CorruptTile("tile claims an impossible size");
    // Everything after the size is the zstd frame.
    const std::string_view frame = sized.substr(sized.size() - header.remaining());
    const unsigned long long contentSize = ZSTD_getFrameContentSize(frame.data(), frame.size());
    if (contentSize != rawSize)
        throw CorruptTile("tile frame size does not match its header");

    thread_local std::unique_ptr<ZSTD_DCtx, DctxDeleter> dctx(ZSTD_createDCtx());
    RawTile raw { std::make_unique_for_overwrite<char[]>(rawSize + kRawPadding), rawSize, version };
    std::memset(raw.bytes.get() + rawSize, 0, kRawPadding);
    const std::size_t n = ZSTD_decompressDCtx(dctx.get(), raw.bytes.get(), raw.size, frame.data(),
                                              frame.size());
    if (ZSTD_isError(n) || n != rawSize)
        throw CorruptTile(std::string("tile does not decompress: ")
                          + (ZSTD_isError(n) ? ZSTD_getErrorName(n) : "short frame"));
    return raw;
}

RawTile unwrap(TileKind expected, std::string_view payload, std::uint8_t newest = kTileCodecVersion)
{
    const std::uint8_t version = payloadVersion(expected, payload, newest);
    return inflate(payload.substr(4), version);
}

/// A row count, checked against the bytes left: every row takes at least
/// `minBytesPerRow`, so a corrupted count cannot make the decoder allocate gigabytes.
std::uint64_t rowCount(ByteReader& in, std::uint64_t minBytesPerRow)
{
    const std::uint64_t n = in.varint();
    if (n > kMaxRows || n * minBytesPerRow > in.remaining())
        throw CorruptTile("tile claims more rows than it holds");
    return n;
}

void expectEnd(const ByteReader& in)
{
    if (!in.atEnd())
        throw CorruptTile("tile has bytes after its last column");
}

// The checks of the column readers below run per value (millions per query of a large
// run): their errors are thrown out of line, so that the readers inline.
[[noreturn, gnu::cold, gnu::noinline]] void corrupt(const char* what)
{
    throw CorruptTile(what);
}

model::Role checkedRole(std::uint8_t r)
{
    if (r >= model::kRoleCount) [[unlikely]]
        corrupt("tile holds an unknown role");
    return static_cast<model::Role>(r);
}

model::Depth checkedDepth(std::uint64_t d)
{
    if (d >= model::kAutoDepth) [[unlikely]]
        corrupt("tile holds an impossible depth");
    return static_cast<model::Depth>(d);
}

model::Role decodeRole(ByteReader& in)
{
    return checkedRole(in.u8());
}

model::Depth decodeDepth(ByteReader& in)
{
    return checkedDepth(in.varint());
}

std::uint32_t decodeId(ByteReader& in)
{
    const std::uint64_t v = in.varint();
    if (v > 0xFFFFFFFFu) [[unlikely]]
        corrupt("tile holds an id beyond 32 bits");
    return static_cast<std::uint32_t>(v);
}

/// A column of varints checked to lie inside a decompressed tile body (RawTile), read
/// value by value. Summary tiles hold millions of numbers of 1 to 5 bytes mixed; each
/// is read with one 8-byte load, its length taken from its stop bit and its 7-bit groups
/// packed without a branch, and several columns are read side by side, one row at a
/// time, so that the reads do not wait on each other.
class VarintColumn
{
public:
    /// The column of `n` numbers from `begin`; throws CorruptTile when the bytes up to
    /// `end` (the body's end) do not hold them.
    VarintColumn(const char* begin, const char* end, std::uint64_t n)
        : m_p(begin)
        , m_end(endOf(begin, end, n))
    {}

    /// Where the column ends (the next column's start).
    const char* end() const { return m_end; }

    /// The next number (the caller reads no more than the column holds).
    std::uint64_t next()
    {
        if constexpr (std::endian::native == std::endian::little) {
            std::uint64_t word;
            std::memcpy(&word, m_p, 8);
            const std::uint64_t stops = ~word & 0x8080808080808080u;
            if (stops != 0) [[likely]] {
                m_p += (std::countr_zero(stops) >> 3) + 1;
                // The bytes up to the first stop bit, without their top bits, packed.
                std::uint64_t v = word & (stops ^ (stops - 1)) & 0x7F7F7F7F7F7F7F7Fu;
                v = (v & 0x007F007F007F007Fu) | ((v & 0x7F007F007F007F00u) >> 1);
                v = (v & 0x00003FFF00003FFFu) | ((v & 0x3FFF00003FFF0000u) >> 2);
                return (v & 0x000000000FFFFFFFu) | ((v & 0x0FFFFFFF00000000u) >> 4);
            }
        }
        return nextByBytes();
    }
    std::int64_t nextSigned() { return unzigzag(next()); }
    /// Passes over the next `k` numbers without reading them.
    void skip(std::uint64_t k) { m_p = endOf(m_p, m_end, k); }
    std::uint32_t nextId()
    {
        const std::uint64_t v = next();
        if (v > 0xFFFFFFFFu) [[unlikely]]
            corrupt("tile holds an id beyond 32 bits");
        return static_cast<std::uint32_t>(v);
    }

private:
    static const char* endOf(const char* p, const char* end, std::uint64_t n)
    {
#if defined(__SSE2__)
        // 64 bytes hold at most 64 numbers: while more than that are left, a whole block
        // is passed, its stop bytes counted by compares (-1 for each) summed per byte
        // lane, then across the lanes by a sum of absolute differences. Locating the
        // columns was as costly as decoding the numbers a timeline draws (callgrind).
        while (n > 64 && end - p >= 64) {
            const __m128i continued = _mm_set1_epi8(-1);
            __m128i lanes = _mm_setzero_si128();
            for (int i = 0; i < 64; i += 16) {
                const __m128i bytes = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + i));
                lanes = _mm_sub_epi8(lanes, _mm_cmpgt_epi8(bytes, continued));
            }
            const __m128i sums = _mm_sad_epu8(lanes, _mm_setzero_si128());
            n -= static_cast<std::uint64_t>(_mm_cvtsi128_si32(sums) + _mm_extract_epi16(sums, 4));
            p += 64;
        }
#endif
        // Count stop bits (bytes below 0x80) eight bytes at a time.
        while (n > 0 && end - p >= 8) {
            std::uint64_t word;
            std::memcpy(&word, p, 8);
            std::uint64_t stops = ~word & 0x8080808080808080u;
            // One bit per byte, at bit 7 of each: summed by a multiply (std::popcount is
            // a library call on x86-64 without -mpopcnt).
            const std::uint64_t count = ((stops >> 7) * 0x0101010101010101u) >> 56;
            if (count < n) {
                n -= count;
                p += 8;
                continue;
            }
            for (; n > 1; --n)
                stops &= stops - 1;
            return p + (std::countr_zero(stops) >> 3) + 1;
        }
        for (; n > 0; ++p) {
            if (p == end)
                corrupt("tile ends inside a number");
            if (!(static_cast<std::uint8_t>(*p) & 0x80))
                --n;
        }
        return p;
    }

    /// A number of 9 or 10 bytes (or any, on a big-endian machine); the column holds its
    /// stop byte, so the bytes read are inside it.
    [[gnu::noinline]] std::uint64_t nextByBytes()
    {
        std::uint64_t v = 0;
        for (int shift = 0; shift < 64; shift += 7) {
            const auto byte = static_cast<std::uint8_t>(*m_p++);
            v |= static_cast<std::uint64_t>(byte & 0x7F) << shift;
            if (!(byte & 0x80))
                return v;
        }
        corrupt("number longer than 64 bits");
    }

    const char* m_p;
    const char* m_end;
};

/// A varint of a tile body's head, where ByteReader would read it.
std::uint64_t headVarint(const char*& p, const char* end)
{
    std::uint64_t v = 0;
    for (int shift = 0; shift < 64; shift += 7) {
        if (p == end)
            corrupt("tile ends inside a number");
        const auto byte = static_cast<std::uint8_t>(*p++);
        v |= static_cast<std::uint64_t>(byte & 0x7F) << shift;
        if (!(byte & 0x80))
            return v;
    }
    corrupt("number longer than 64 bits");
}

/// A row count read at `p`, checked as rowCount() does.
std::uint64_t headRowCount(const char*& p, const char* end, std::uint64_t minBytesPerRow)
{
    const std::uint64_t n = headVarint(p, end);
    if (n > kMaxRows || n * minBytesPerRow > static_cast<std::uint64_t>(end - p))
        corrupt("tile claims more rows than it holds");
    return n;
}

// Column helpers: a time column delta-coded against the previous row.
template<typename Rows, typename Get>
void writeTimes(ByteWriter& out, const Rows& rows, Get get)
{
    model::TimeNs previous = 0;
    for (const auto& row : rows) {
        const model::TimeNs t = get(row);
        out.svarint(t - previous);
        previous = t;
    }
}

template<typename Rows, typename Set>
void readTimes(ByteReader& in, Rows& rows, Set set)
{
    model::TimeNs previous = 0;
    for (auto& row : rows) {
        previous = in.delta(previous);
        set(row, previous);
    }
}

/// The args column of an exact interval or instant tile: by member from codec version 2
/// on (args_codec.h); at version 1, each row's length, then their text.
ArgsColumn readArgs(ByteReader& in, std::size_t rows, std::uint8_t version)
{
    if (version >= kArgsByMemberCodecVersion)
        return readArgsByMember(in, rows,
            version >= kArgsNumberArraysCodecVersion ? ArgsLayout::NumberArrays
                                                     : ArgsLayout::ArraysAsText);
    ArgsColumn args;
    std::uint64_t total = 0;
    std::vector<std::uint64_t> ends(rows);
    for (auto& end : ends) {
        total += in.varint();
        end = total;
    }
    if (total > 0) {
        const std::string_view bytes = in.raw(total);
        args.bytes.append(bytes.data(), bytes.size());
        args.ends.append(ends.data(), ends.size());
    }
    return args;
}

/// Bit for bit (0.0 and -0.0 differ, a NaN equals itself): what decoding must give back.
bool sameValue(double a, double b)
{
    return std::bit_cast<std::uint64_t>(a) == std::bit_cast<std::uint64_t>(b);
}

/// Doubles that are whole numbers of at most 53 bits (counters mostly count): written as
/// such. Not -0.0, which would come back as 0.0.
bool isWhole(double v)
{
    return std::fabs(v) <= 0x1p53 && std::trunc(v) == v && !(v == 0 && std::signbit(v));
}

// A column of counter values: mode u8, then 1: zigzag deltas of whole numbers against the
// previous one; 0: raw f64.
void writeValues(ByteWriter& out, std::span<const double> values)
{
    const bool whole = std::all_of(values.begin(), values.end(), isWhole);
    out.u8(whole ? 1 : 0);
    std::int64_t previous = 0;
    for (const double v : values) {
        if (whole) {
            const auto n = static_cast<std::int64_t>(v);
            out.svarint(n - previous);
            previous = n;
        } else {
            out.f64(v);
        }
    }
}

/// Calls set(i, value) for `n` values written by writeValues.
template<typename Set>
void readValues(ByteReader& in, std::size_t n, Set set)
{
    const std::uint8_t mode = in.u8();
    if (mode > 1)
        throw CorruptTile("tile has an unknown value column");
    std::int64_t previous = 0;
    for (std::size_t i = 0; i < n; ++i) {
        if (mode == 0) {
            set(i, in.f64());
            continue;
        }
        previous = in.delta(previous);
        if (previous > (std::int64_t(1) << 53) || previous < -(std::int64_t(1) << 53))
            throw CorruptTile("tile holds a counter value beyond 53 bits");
        set(i, static_cast<double>(previous));
    }
}

} // namespace

TileKind payloadKind(std::string_view payload)
{
    if (payload.size() < 5 || payload[0] != 'S' || payload[1] != 'T')
        throw CorruptTile("tile has no 'ST' magic");
    return static_cast<TileKind>(payload[2]);
}

// Intervals: n | start Δ | duration | name | category | depth | role u8 | seq Δ | args
// (by member from version 2, args_codec.h; version 1: each row's length, then the text).
std::string wrapPayload(TileKind kind, const std::string& raw, int zstdLevel)
{
    return wrap(kind, raw, zstdLevel);
}

std::string unwrapPayload(TileKind kind, std::string_view payload)
{
    return std::string(unwrap(kind, payload));
}

std::string encodeTile(const IntervalTile& tile, int zstdLevel)
{
    ByteWriter out;
    const auto& ev = tile.events;
    out.varint(ev.size());
    writeTimes(out, ev, [](const model::Interval& e) { return e.startNs; });
    for (const auto& e : ev)
        out.varint(static_cast<std::uint64_t>(e.endNs - e.startNs));
    for (const auto& e : ev)
        out.varint(e.name);
    for (const auto& e : ev)
        out.varint(e.category);
    for (const auto& e : ev)
        out.varint(e.depth);
    for (const auto& e : ev)
        out.u8(static_cast<std::uint8_t>(e.role));
    writeTimes(out, ev, [](const model::Interval& e) { return model::TimeNs(e.seq); });
    writeArgsByMember(out, tile.args, ev.size());
    return wrap(TileKind::Intervals, out.bytes(), zstdLevel, kArgsNumberArraysCodecVersion);
}

IntervalTile decodeIntervalTile(std::string_view payload, bool withArgs)
{
    const RawTile raw = unwrap(TileKind::Intervals, payload, kArgsNumberArraysCodecVersion);
    ByteReader in(raw);
    IntervalTile tile;
    auto& ev = tile.events;
    ev.resize(rowCount(in, 8));
    readTimes(in, ev, [](model::Interval& e, model::TimeNs t) { e.startNs = t; });
    for (auto& e : ev) {
        const std::uint64_t d = in.varint();
        if (static_cast<Int128>(e.startNs) + d > INT64_MAX)
            throw CorruptTile("tile holds an interval ending after the end of time");
        e.endNs = e.startNs + static_cast<model::TimeNs>(d);
    }
    for (auto& e : ev)
        e.name = decodeId(in);
    for (auto& e : ev)
        e.category = decodeId(in);
    for (auto& e : ev)
        e.depth = decodeDepth(in);
    for (auto& e : ev)
        e.role = decodeRole(in);
    readTimes(in, ev, [](model::Interval& e, model::TimeNs t) {
        e.seq = static_cast<std::uint32_t>(t);
    });
    if (withArgs) {
        tile.args = readArgs(in, ev.size(), raw.version);
        expectEnd(in);
    }
    return tile;
}

// Instants: n | time Δ | name | category | args (as the intervals' at each version).
std::string encodeTile(const InstantTile& tile, int zstdLevel)
{
    ByteWriter out;
    out.varint(tile.events.size());
    writeTimes(out, tile.events, [](const model::Instant& e) { return e.timeNs; });
    for (const auto& e : tile.events)
        out.varint(e.name);
    for (const auto& e : tile.events)
        out.varint(e.category);
    writeArgsByMember(out, tile.args, tile.events.size());
    return wrap(TileKind::Instants, out.bytes(), zstdLevel, kArgsNumberArraysCodecVersion);
}

InstantTile decodeInstantTile(std::string_view payload, bool withArgs)
{
    const RawTile raw = unwrap(TileKind::Instants, payload, kArgsNumberArraysCodecVersion);
    ByteReader in(raw);
    InstantTile tile;
    tile.events.resize(rowCount(in, 4));
    readTimes(in, tile.events, [](model::Instant& e, model::TimeNs t) { e.timeNs = t; });
    for (auto& e : tile.events)
        e.name = decodeId(in);
    for (auto& e : tile.events)
        e.category = decodeId(in);
    if (withArgs) {
        tile.args = readArgs(in, tile.events.size(), raw.version);
        expectEnd(in);
    }
    return tile;
}

// Counters, codec version 2: n | time Δ | values (writeValues). Version 1: values raw f64.
std::string encodeTile(const CounterTile& tile, int zstdLevel)
{
    ByteWriter out;
    out.varint(tile.samples.size());
    writeTimes(out, tile.samples, [](const model::CounterSample& s) { return s.timeNs; });
    std::vector<double> values;
    values.reserve(tile.samples.size());
    for (const auto& s : tile.samples)
        values.push_back(s.value);
    writeValues(out, values);
    return wrap(TileKind::Counters, out.bytes(), zstdLevel, kCounterCodecVersion);
}

CounterTile decodeCounterTile(std::string_view payload)
{
    const RawTile raw = unwrap(TileKind::Counters, payload, kCounterCodecVersion);
    ByteReader in(raw);
    CounterTile tile;
    tile.samples.resize(rowCount(in, raw.version == 1 ? 9 : 2));
    readTimes(in, tile.samples, [](model::CounterSample& s, model::TimeNs t) { s.timeNs = t; });
    if (raw.version == 1) {
        for (auto& s : tile.samples)
            s.value = in.f64();
    } else {
        readValues(
            in, tile.samples.size(), [&](std::size_t i, double v) { tile.samples[i].value = v; });
    }
    expectEnd(in);
    return tile;
}

// Flows: n | from Δ | toTrack | to - from | name | size | tag.
std::string encodeTile(const FlowTile& tile, int zstdLevel)
{
    ByteWriter out;
    out.varint(tile.flows.size());
    writeTimes(out, tile.flows, [](const model::Flow& f) { return f.fromNs; });
    for (const auto& f : tile.flows)
        out.varint(f.toTrack);
    for (const auto& f : tile.flows)
        out.svarint(f.toNs - f.fromNs);
    for (const auto& f : tile.flows)
        out.varint(f.name);
    for (const auto& f : tile.flows)
        out.varint(f.sizeBytes);
    for (const auto& f : tile.flows)
        out.svarint(f.tag);
    return wrap(TileKind::Flows, out.bytes(), zstdLevel);
}

FlowTile decodeFlowTile(std::string_view payload)
{
    const RawTile raw = unwrap(TileKind::Flows, payload);
    ByteReader in(raw);
    FlowTile tile;
    tile.flows.resize(rowCount(in, 6));
    readTimes(in, tile.flows, [](model::Flow& f, model::TimeNs t) { f.fromNs = t; });
    for (auto& f : tile.flows)
        f.toTrack = decodeId(in);
    for (auto& f : tile.flows)
        f.toNs = in.delta(f.fromNs);
    for (auto& f : tile.flows)
        f.name = decodeId(in);
    for (auto& f : tile.flows)
        f.sizeBytes = in.varint();
    for (auto& f : tile.flows)
        f.tag = in.svarint();
    expectEnd(in);
    return tile;
}

// Stack samples: n | time Δ | stack | [weight]. The weight column is written only when
// some sample weighs other than 1 (plain perf samples stay as small as before, and tiles
// written before weights existed still decode: no column means every weight is 1).
std::string encodeTile(const SampleTile& tile, int zstdLevel)
{
    ByteWriter out;
    out.varint(tile.samples.size());
    writeTimes(out, tile.samples, [](const model::StackSample& s) { return s.timeNs; });
    for (const auto& s : tile.samples)
        out.varint(s.stack);
    const bool weighted = std::any_of(tile.samples.begin(), tile.samples.end(),
                                      [](const model::StackSample& s) { return s.weight != 1; });
    if (weighted) {
        for (const auto& s : tile.samples)
            out.varint(s.weight);
    }
    return wrap(TileKind::Samples, out.bytes(), zstdLevel);
}

SampleTile decodeSampleTile(std::string_view payload)
{
    const RawTile raw = unwrap(TileKind::Samples, payload);
    ByteReader in(raw);
    SampleTile tile;
    tile.samples.resize(rowCount(in, 2));
    readTimes(in, tile.samples, [](model::StackSample& s, model::TimeNs t) { s.timeNs = t; });
    for (auto& s : tile.samples)
        s.stack = decodeId(in);
    if (!in.atEnd()) {
        for (auto& s : tile.samples) {
            const std::uint64_t weight = in.varint();
            if (weight > 0xFFFFFFFFu)
                throw CorruptTile("sample weight out of range");
            s.weight = static_cast<std::uint32_t>(weight);
        }
    }
    expectEnd(in);
    return tile;
}

// Interval summary, version 2: two zstd frames, so that a timeline frame, which draws
// each cell's colour only, inflates and reads the first alone (decodeDrawn...).
//   drawn part:  bucket width | cells n | bucket Δ | depth | entry count | cells with
//                entries n' | their first name | first role u8 | coverage of all entries
//   detail part: count | longest start - bucket start | longest duration | longest name |
//                entries after each cell's first r | name | role u8 | coverage
// The payload: 'S' 'T' kind 2 | varint bytes of the drawn part | drawn part | detail part,
// each part `varint rawSize | zstd frame` as a version 1 payload holds its one body.
// The first entry's own coverage is the cell's less the others'.
//
// Version 1 (stores written before): one body, cells n | bucket Δ | depth | count |
// longest start - bucket start | longest duration | longest name | entry count; then
// entries m | name | role u8 | coverage.
std::string encodeTile(const IntervalSummaryTile& tile, int zstdLevel)
{
    const auto& cells = tile.cells;
    ByteWriter drawn;
    drawn.varint(static_cast<std::uint64_t>(tile.bucketNs));
    drawn.varint(cells.size());
    writeTimes(drawn, cells, [](const IntervalCell& c) { return c.bucket; });
    for (const auto& c : cells)
        drawn.varint(c.depth);
    for (const auto& c : cells)
        drawn.varint(c.entryCount);
    const auto withEntries = static_cast<std::size_t>(std::count_if(
        cells.begin(), cells.end(), [](const IntervalCell& c) { return c.entryCount > 0; }));
    drawn.varint(withEntries);
    for (const auto& c : cells) {
        if (c.entryCount > 0)
            drawn.varint(tile.entries[c.firstEntry].name);
    }
    for (const auto& c : cells) {
        if (c.entryCount > 0)
            drawn.u8(static_cast<std::uint8_t>(tile.entries[c.firstEntry].role));
    }
    for (const auto& c : cells) {
        std::uint64_t covered = 0;
        for (std::uint32_t k = 0; k < c.entryCount; ++k)
            covered += static_cast<std::uint64_t>(tile.entries[c.firstEntry + k].coverageNs);
        if (c.entryCount > 0)
            drawn.varint(covered);
    }

    ByteWriter detail;
    for (const auto& c : cells)
        detail.varint(c.count);
    // The longest event starts near its bucket: store the (small) difference.
    for (const auto& c : cells)
        detail.svarint(c.longestStartNs - c.bucket * tile.bucketNs);
    for (const auto& c : cells)
        detail.varint(static_cast<std::uint64_t>(c.longestDurationNs));
    for (const auto& c : cells)
        detail.varint(c.longestName);
    detail.varint(tile.entries.size() - withEntries);
    auto others = [&](auto write) {
        for (const auto& c : cells) {
            for (std::uint32_t k = 1; k < c.entryCount; ++k)
                write(tile.entries[c.firstEntry + k]);
        }
    };
    others([&](const Coverage& e) { detail.varint(e.name); });
    others([&](const Coverage& e) { detail.u8(static_cast<std::uint8_t>(e.role)); });
    others([&](const Coverage& e) { detail.varint(static_cast<std::uint64_t>(e.coverageNs)); });

    const auto kind = TileKind::IntervalSummary;
    const std::string drawnPart =
        wrap(kind, drawn.bytes(), zstdLevel, kIntervalSummaryCodecVersion);
    const std::string detailPart =
        wrap(kind, detail.bytes(), zstdLevel, kIntervalSummaryCodecVersion, Inflated::Rarely);
    ByteWriter out;
    out.bytes().append(drawnPart, 0, 4);  // magic, kind, version
    out.varint(drawnPart.size() - 4);
    out.bytes().append(drawnPart, 4);
    out.bytes().append(detailPart, 4);
    return std::move(out.bytes());
}

namespace {

/// Coverage entries as a summary body ends with them: `n` names, `n` roles (a byte each)
/// and `n` coverages, the last column ending at the body's end.
struct EntryColumns
{
    VarintColumn names;
    const char* roles;
    VarintColumn coverages;

    EntryColumns(const char* p, const char* end, std::uint64_t n)
        : names(p, end, n)
        , roles(rolesOf(names.end(), end, n))
        , coverages(roles + n, end, n)
    {
        if (coverages.end() != end)
            corrupt("tile has bytes after its last column");
    }
    model::Role role(std::uint64_t i) const
    {
        return checkedRole(static_cast<std::uint8_t>(roles[i]));
    }

private:
    static const char* rolesOf(const char* p, const char* end, std::uint64_t n)
    {
        if (static_cast<std::uint64_t>(end - p) < n)
            corrupt("tile shorter than its columns");
        return p;
    }
};

std::int64_t addDelta(std::int64_t previous, std::int64_t delta)
{
    return static_cast<std::int64_t>(
        static_cast<std::uint64_t>(previous) + static_cast<std::uint64_t>(delta));
}

/// The bucket width at the head of a summary body.
model::TimeNs headBucketWidth(const char*& p, const char* end)
{
    const auto bucketNs = static_cast<model::TimeNs>(headVarint(p, end));
    if (bucketNs <= 0 || bucketNs > (model::TimeNs(1) << 56))
        throw CorruptTile("summary tile has an impossible bucket width");
    return bucketNs;
}

/// The longest event's start, stored as its offset from its bucket's start.
model::TimeNs longestStart(std::int64_t bucket, model::TimeNs bucketNs, std::int64_t offset)
{
    const Int128 start = static_cast<Int128>(bucket) * bucketNs + offset;
    if (start < INT64_MIN || start > INT64_MAX) [[unlikely]]
        corrupt("summary tile holds a time beyond int64");
    return static_cast<model::TimeNs>(start);
}

/// A version 1 body's columns, located and checked to lie inside it.
struct SummaryBodyV1
{
    RawTile raw;
    model::TimeNs bucketNs = 1;
    std::uint64_t cellCount = 0;
    std::uint64_t entryCount = 0;
    // The cells' seven columns, then the entries'.
    std::optional<VarintColumn> buckets, depths, counts, starts, durations, names, entryCounts;
    std::optional<EntryColumns> entries;

    explicit SummaryBodyV1(RawTile body)
        : raw(std::move(body))
    {
        const char* p = raw.bytes.get();
        const char* const end = p + raw.size;
        bucketNs = headBucketWidth(p, end);
        cellCount = headRowCount(p, end, 7);
        const std::uint64_t n = cellCount;
        buckets.emplace(p, end, n);
        depths.emplace(buckets->end(), end, n);
        counts.emplace(depths->end(), end, n);
        starts.emplace(counts->end(), end, n);
        durations.emplace(starts->end(), end, n);
        names.emplace(durations->end(), end, n);
        entryCounts.emplace(names->end(), end, n);
        p = entryCounts->end();
        entryCount = headRowCount(p, end, 3);
        entries.emplace(p, end, entryCount);
    }
};

IntervalSummaryTile decodeSummaryV1(RawTile body)
{
    SummaryBodyV1 in(std::move(body));
    IntervalSummaryTile tile;
    tile.bucketNs = in.bucketNs;
    // The seven columns of the cells read side by side, a cell at a time.
    const std::uint64_t n = in.cellCount;
    auto& cells = tile.cells;
    cells.reserve(n);
    model::TimeNs bucket = 0;
    std::uint64_t nextEntry = 0;
    for (std::uint64_t i = 0; i < n; ++i) {
        IntervalCell& c = cells.emplace_back();
        bucket = addDelta(bucket, in.buckets->nextSigned());
        c.bucket = bucket;
        c.depth = checkedDepth(in.depths->next());
        c.count = in.counts->nextId();
        c.longestStartNs = longestStart(bucket, tile.bucketNs, in.starts->nextSigned());
        c.longestDurationNs = static_cast<model::TimeNs>(in.durations->next());
        c.longestName = in.names->nextId();
        c.firstEntry = static_cast<std::uint32_t>(nextEntry);
        c.entryCount = in.entryCounts->nextId();
        nextEntry += c.entryCount;
    }
    const std::uint64_t m = in.entryCount;
    if (nextEntry != m)
        throw CorruptTile("summary tile cells and entries disagree");
    auto& entries = tile.entries;
    entries.reserve(m);
    for (std::uint64_t i = 0; i < m; ++i) {
        Coverage& e = entries.emplace_back();
        e.name = in.entries->names.nextId();
        e.role = in.entries->role(i);
        e.coverageNs = static_cast<model::TimeNs>(in.entries->coverages.next());
    }
    return tile;
}

IntervalSummaryTile decodeDrawnSummaryV1(RawTile body)
{
    SummaryBodyV1 in(std::move(body));
    IntervalSummaryTile tile;
    tile.bucketNs = in.bucketNs;
    const std::uint64_t n = in.cellCount;
    const std::uint64_t m = in.entryCount;
    tile.cells.reserve(n);
    tile.entries.reserve(n);
    model::TimeNs bucket = 0;
    std::uint64_t nextEntry = 0;
    for (std::uint64_t i = 0; i < n; ++i) {
        IntervalCell& c = tile.cells.emplace_back();
        bucket = addDelta(bucket, in.buckets->nextSigned());
        c.bucket = bucket;
        c.depth = checkedDepth(in.depths->next());
        const std::uint32_t k = in.entryCounts->nextId();
        if (k > m - nextEntry) [[unlikely]]
            throw CorruptTile("summary tile cells and entries disagree");
        c.firstEntry = static_cast<std::uint32_t>(tile.entries.size());
        if (k == 0)
            continue;
        // Entries are stored by decreasing coverage: the first is the cell's colour.
        c.entryCount = 1;
        Coverage& e = tile.entries.emplace_back();
        e.name = in.entries->names.nextId();
        in.entries->names.skip(k - 1);
        e.role = in.entries->role(nextEntry);
        std::uint64_t covered = 0;
        for (std::uint32_t j = 0; j < k; ++j)
            covered += in.entries->coverages.next();
        e.coverageNs = static_cast<model::TimeNs>(covered);
        nextEntry += k;
    }
    if (nextEntry != m)
        throw CorruptTile("summary tile cells and entries disagree");
    return tile;
}

/// A version 2 payload's parts: the drawn one, and where the detail one lies.
struct SummaryPartsV2
{
    std::string_view drawn;
    std::string_view detail;

    explicit SummaryPartsV2(std::string_view payload)
    {
        ByteReader in(payload.substr(4));
        const std::uint64_t drawnBytes = in.varint();
        if (drawnBytes > in.remaining())
            throw CorruptTile("summary tile shorter than its drawn part");
        const std::size_t at = payload.size() - in.remaining();
        drawn = payload.substr(at, drawnBytes);
        detail = payload.substr(at + drawnBytes);
    }
};

/// The drawn part of a version 2 tile decoded: the cells' buckets, depths and entry
/// counts (`counts[i]`), and one entry a cell with entries (the first with the cell's
/// coverage), by cell.
IntervalSummaryTile decodeDrawnPartV2(RawTile body, std::vector<std::uint32_t>* counts)
{
    const char* p = body.bytes.get();
    const char* const end = p + body.size;
    IntervalSummaryTile tile;
    tile.bucketNs = headBucketWidth(p, end);
    const std::uint64_t n = headRowCount(p, end, 3);
    VarintColumn buckets(p, end, n);
    VarintColumn depths(buckets.end(), end, n);
    VarintColumn entryCounts(depths.end(), end, n);
    p = entryCounts.end();
    const std::uint64_t withEntries = headRowCount(p, end, 3);
    EntryColumns first(p, end, withEntries);  // each cell's first, with the cell's coverage
    tile.cells.reserve(n);
    tile.entries.reserve(withEntries);
    if (counts)
        counts->reserve(n);
    model::TimeNs bucket = 0;
    for (std::uint64_t i = 0; i < n; ++i) {
        IntervalCell& c = tile.cells.emplace_back();
        bucket = addDelta(bucket, buckets.nextSigned());
        c.bucket = bucket;
        c.depth = checkedDepth(depths.next());
        const std::uint32_t k = entryCounts.nextId();
        if (counts)
            counts->push_back(k);
        c.firstEntry = static_cast<std::uint32_t>(tile.entries.size());
        if (k == 0)
            continue;
        if (tile.entries.size() == withEntries) [[unlikely]]
            throw CorruptTile("summary tile cells and entries disagree");
        c.entryCount = 1;
        const std::size_t j = tile.entries.size();
        Coverage& e = tile.entries.emplace_back();
        e.name = first.names.nextId();
        e.role = first.role(j);
        e.coverageNs = static_cast<model::TimeNs>(first.coverages.next());
    }
    if (tile.entries.size() != withEntries)
        throw CorruptTile("summary tile cells and entries disagree");
    return tile;
}

IntervalSummaryTile decodeSummaryV2(std::string_view payload)
{
    const SummaryPartsV2 parts(payload);
    std::vector<std::uint32_t> entryCounts;
    IntervalSummaryTile drawn = decodeDrawnPartV2(inflate(parts.drawn, 2), &entryCounts);
    const RawTile body = inflate(parts.detail, 2);
    const char* p = body.bytes.get();
    const char* const end = p + body.size;
    const std::uint64_t n = drawn.cells.size();
    VarintColumn counts(p, end, n);
    VarintColumn starts(counts.end(), end, n);
    VarintColumn durations(starts.end(), end, n);
    VarintColumn longestNames(durations.end(), end, n);
    p = longestNames.end();
    const std::uint64_t r = headRowCount(p, end, 3);
    EntryColumns others(p, end, r);

    IntervalSummaryTile tile;
    tile.bucketNs = drawn.bucketNs;
    tile.cells = std::move(drawn.cells);
    tile.entries.reserve(drawn.entries.size() + r);
    std::uint64_t other = 0;
    for (std::uint64_t i = 0; i < n; ++i) {
        IntervalCell& c = tile.cells[i];
        c.count = counts.nextId();
        c.longestStartNs = longestStart(c.bucket, tile.bucketNs, starts.nextSigned());
        c.longestDurationNs = static_cast<model::TimeNs>(durations.next());
        c.longestName = longestNames.nextId();
        const std::uint32_t k = entryCounts[i];
        const std::uint32_t drawnEntry = c.firstEntry;
        c.firstEntry = static_cast<std::uint32_t>(tile.entries.size());
        if (k == 0)
            continue;
        if (k - 1 > r - other) [[unlikely]]
            throw CorruptTile("summary tile cells and entries disagree");
        const Coverage first = drawn.entries[drawnEntry];
        c.entryCount = k;
        tile.entries.push_back(first);
        // The first entry holds the cell's coverage: its own is what the others leave.
        std::uint64_t own = static_cast<std::uint64_t>(first.coverageNs);
        for (std::uint32_t j = 1; j < k; ++j, ++other) {
            Coverage& e = tile.entries.emplace_back();
            e.name = others.names.nextId();
            e.role = others.role(other);
            e.coverageNs = static_cast<model::TimeNs>(others.coverages.next());
            own -= static_cast<std::uint64_t>(e.coverageNs);
        }
        tile.entries[c.firstEntry].coverageNs = static_cast<model::TimeNs>(own);
    }
    if (other != r)
        throw CorruptTile("summary tile cells and entries disagree");
    return tile;
}

}  // namespace

IntervalSummaryTile decodeIntervalSummaryTile(std::string_view payload)
{
    const auto kind = TileKind::IntervalSummary;
    if (payloadVersion(kind, payload, kIntervalSummaryCodecVersion) == 1)
        return decodeSummaryV1(inflate(payload.substr(4), 1));
    return decodeSummaryV2(payload);
}

IntervalSummaryTile decodeDrawnIntervalSummaryTile(std::string_view payload)
{
    const auto kind = TileKind::IntervalSummary;
    if (payloadVersion(kind, payload, kIntervalSummaryCodecVersion) == 1)
        return decodeDrawnSummaryV1(inflate(payload.substr(4), 1));
    return decodeDrawnPartV2(inflate(SummaryPartsV2(payload).drawn, 2), nullptr);
}

// Instant summary: n | bucket Δ | count | first time Δ | first name.
std::string encodeTile(const InstantSummaryTile& tile, int zstdLevel)
{
    ByteWriter out;
    out.varint(tile.cells.size());
    writeTimes(out, tile.cells, [](const InstantCell& c) { return c.bucket; });
    for (const auto& c : tile.cells)
        out.varint(c.count);
    writeTimes(out, tile.cells, [](const InstantCell& c) { return c.firstNs; });
    for (const auto& c : tile.cells)
        out.varint(c.firstName);
    return wrap(TileKind::InstantSummary, out.bytes(), zstdLevel);
}

InstantSummaryTile decodeInstantSummaryTile(std::string_view payload)
{
    const RawTile raw = unwrap(TileKind::InstantSummary, payload);
    ByteReader in(raw);
    InstantSummaryTile tile;
    tile.cells.resize(rowCount(in, 4));
    readTimes(in, tile.cells, [](InstantCell& c, model::TimeNs t) { c.bucket = t; });
    for (auto& c : tile.cells)
        c.count = decodeId(in);
    readTimes(in, tile.cells, [](InstantCell& c, model::TimeNs t) { c.firstNs = t; });
    for (auto& c : tile.cells)
        c.firstName = decodeId(in);
    expectEnd(in);
    return tile;
}

// Counter summary, codec version 2: n | bucket Δ | count | weight Δ | flags u8 | last
// values | min values | max values | means, where min, max and mean are written only for
// the cells whose flags do not name them. A cell's min and max are mostly its last value
// or the one carried in (the previous cell's last), and its mean is its min when the
// value held still: most cells of a slowly sampled counter then cost a last value.
// Means are written as what they integrate to over the weight (mean x weightNs, an
// integer for integer values and times) when every one of the tile comes back exactly
// from that, else raw. Version 1: bucket Δ | count | min | max | mean | last (raw f64)
// | weight.
namespace {

enum CounterFlags : std::uint8_t {
    kMinIsLast = 1,
    kMinIsCarried = 2,
    kMaxIsLast = 4,
    kMaxIsCarried = 8,
    kMeanIsMin = 16,
    kMeanIsLast = 32,
};
constexpr std::uint8_t kAllCounterFlags = 63;

/// mean x weightNs as an integer, when dividing it back gives `mean` bit for bit.
std::optional<std::int64_t> integralOf(double mean, model::TimeNs weightNs)
{
    const double integral = mean * static_cast<double>(weightNs);
    if (weightNs <= 0 || !(std::fabs(integral) < 0x1p62))
        return std::nullopt;
    const auto j = static_cast<std::int64_t>(std::llround(integral));
    if (!sameValue(static_cast<double>(j) / static_cast<double>(weightNs), mean))
        return std::nullopt;
    return j;
}

}  // namespace

std::string encodeTile(const CounterSummaryTile& tile, int zstdLevel)
{
    ByteWriter out;
    const auto& cells = tile.cells;
    out.varint(cells.size());
    writeTimes(out, cells, [](const CounterCell& c) { return c.bucket; });
    for (const auto& c : cells)
        out.varint(c.count);
    writeTimes(out, cells, [](const CounterCell& c) { return c.weightNs; });
    std::vector<double> lasts, mins, maxes, means;
    std::vector<std::uint8_t> flags(cells.size());
    for (std::size_t i = 0; i < cells.size(); ++i) {
        const CounterCell& c = cells[i];
        std::uint8_t& f = flags[i];
        const bool carried = i > 0;
        const double in = carried ? cells[i - 1].last : 0;
        // The flag naming where `v` comes from, or none with `v` written to `column`.
        auto source = [&](double v, std::uint8_t isLast, std::uint8_t isCarried,
                          std::vector<double>& column) -> std::uint8_t {
            if (sameValue(v, c.last))
                return isLast;
            if (carried && sameValue(v, in))
                return isCarried;
            column.push_back(v);
            return 0;
        };
        f |= source(c.min, kMinIsLast, kMinIsCarried, mins);
        f |= source(c.max, kMaxIsLast, kMaxIsCarried, maxes);
        if (sameValue(c.mean, c.min))
            f |= kMeanIsMin;
        else if (sameValue(c.mean, c.last))
            f |= kMeanIsLast;
        else
            means.push_back(c.mean);
        lasts.push_back(c.last);
        out.u8(f);
    }
    writeValues(out, lasts);
    writeValues(out, mins);
    writeValues(out, maxes);
    // Means: integrals (mode 1) when each comes back exactly, else raw (mode 0).
    std::vector<std::int64_t> integrals;
    for (std::size_t i = 0, k = 0; i < cells.size() && integrals.size() == k; ++i) {
        if (flags[i] & (kMeanIsMin | kMeanIsLast))
            continue;
        ++k;
        if (const auto j = integralOf(cells[i].mean, cells[i].weightNs))
            integrals.push_back(*j);
    }
    if (integrals.size() == means.size()) {
        out.u8(1);
        writeTimes(out, integrals, [](std::int64_t j) { return j; });
    } else {
        out.u8(0);
        for (const double m : means)
            out.f64(m);
    }
    return wrap(TileKind::CounterSummary, out.bytes(), zstdLevel, kCounterCodecVersion);
}

namespace {

CounterSummaryTile decodeCounterSummaryV1(ByteReader& in)
{
    CounterSummaryTile tile;
    tile.cells.resize(rowCount(in, 35));
    readTimes(in, tile.cells, [](CounterCell& c, model::TimeNs t) { c.bucket = t; });
    for (auto& c : tile.cells)
        c.count = decodeId(in);
    for (auto& c : tile.cells)
        c.min = in.f64();
    for (auto& c : tile.cells)
        c.max = in.f64();
    for (auto& c : tile.cells)
        c.mean = in.f64();
    for (auto& c : tile.cells)
        c.last = in.f64();
    for (auto& c : tile.cells)
        c.weightNs = static_cast<model::TimeNs>(in.varint());
    return tile;
}

}  // namespace

CounterSummaryTile decodeCounterSummaryTile(std::string_view payload)
{
    const RawTile raw = unwrap(TileKind::CounterSummary, payload, kCounterCodecVersion);
    ByteReader in(raw);
    if (raw.version == 1) {
        CounterSummaryTile tile = decodeCounterSummaryV1(in);
        expectEnd(in);
        return tile;
    }
    CounterSummaryTile tile;
    auto& cells = tile.cells;
    cells.resize(rowCount(in, 5));
    readTimes(in, cells, [](CounterCell& c, model::TimeNs t) { c.bucket = t; });
    for (auto& c : cells)
        c.count = decodeId(in);
    readTimes(in, cells, [](CounterCell& c, model::TimeNs t) { c.weightNs = t; });
    std::vector<std::uint8_t> flags(cells.size());
    std::size_t explicitMins = 0, explicitMaxes = 0;
    std::vector<std::size_t> explicitMeans;
    for (std::size_t i = 0; i < cells.size(); ++i) {
        flags[i] = in.u8();
        const std::uint8_t f = flags[i];
        if ((f & ~kAllCounterFlags) || (i == 0 && (f & (kMinIsCarried | kMaxIsCarried))))
            throw CorruptTile("counter summary holds impossible flags");
        explicitMins += (f & (kMinIsLast | kMinIsCarried)) == 0;
        explicitMaxes += (f & (kMaxIsLast | kMaxIsCarried)) == 0;
        if ((f & (kMeanIsMin | kMeanIsLast)) == 0)
            explicitMeans.push_back(i);
    }
    readValues(in, cells.size(), [&](std::size_t i, double v) { cells[i].last = v; });
    std::vector<double> mins(explicitMins), maxes(explicitMaxes);
    readValues(in, mins.size(), [&](std::size_t i, double v) { mins[i] = v; });
    readValues(in, maxes.size(), [&](std::size_t i, double v) { maxes[i] = v; });
    for (std::size_t i = 0, nMin = 0, nMax = 0; i < cells.size(); ++i) {
        CounterCell& c = cells[i];
        const std::uint8_t f = flags[i];
        const double carried = i > 0 ? cells[i - 1].last : 0;
        c.min = f & kMinIsLast ? c.last : f & kMinIsCarried ? carried : mins[nMin++];
        c.max = f & kMaxIsLast ? c.last : f & kMaxIsCarried ? carried : maxes[nMax++];
        c.mean = f & kMeanIsMin ? c.min : c.last;  // explicit means below
    }
    const std::uint8_t meanMode = in.u8();
    if (meanMode == 1) {
        std::int64_t previous = 0;
        for (const std::size_t i : explicitMeans) {
            previous = in.delta(previous);
            if (cells[i].weightNs <= 0)
                throw CorruptTile("counter summary integrates over no time");
            cells[i].mean = static_cast<double>(previous) / static_cast<double>(cells[i].weightNs);
        }
    } else if (meanMode == 0) {
        for (const std::size_t i : explicitMeans)
            cells[i].mean = in.f64();
    } else {
        throw CorruptTile("counter summary has an unknown mean column");
    }
    expectEnd(in);
    return tile;
}

// Track index: n | kind u8 | level | idx Δ | t0 Δ | t1 - t0 | n | id Δ.
std::string encodeTileIndex(const std::vector<TileIndexEntry>& entries, int zstdLevel)
{
    ByteWriter out;
    out.varint(entries.size());
    for (const auto& e : entries)
        out.u8(static_cast<std::uint8_t>(e.kind));
    for (const auto& e : entries)
        out.varint(static_cast<std::uint64_t>(e.level));
    writeTimes(out, entries, [](const TileIndexEntry& e) { return e.idx; });
    writeTimes(out, entries, [](const TileIndexEntry& e) { return e.t0; });
    for (const auto& e : entries)
        out.svarint(e.t1 - e.t0);
    for (const auto& e : entries)
        out.varint(static_cast<std::uint64_t>(e.n));
    writeTimes(out, entries, [](const TileIndexEntry& e) { return e.id; });
    return wrap(TileKind::TrackIndex, out.bytes(), zstdLevel);
}

std::vector<TileIndexEntry> decodeTileIndex(std::string_view payload)
{
    const RawTile raw = unwrap(TileKind::TrackIndex, payload);
    ByteReader in(raw);
    std::vector<TileIndexEntry> entries(rowCount(in, 7));
    for (auto& e : entries) {
        const std::uint8_t kind = in.u8();
        if (kind < 1 || kind > 8)
            throw CorruptTile("tile index lists an unknown tile kind");
        e.kind = static_cast<TileKind>(kind);
    }
    for (auto& e : entries) {
        const std::uint64_t level = in.varint();
        if (level > 64)
            throw CorruptTile("tile index lists an impossible level");
        e.level = static_cast<int>(level);
    }
    readTimes(in, entries, [](TileIndexEntry& e, model::TimeNs v) { e.idx = v; });
    readTimes(in, entries, [](TileIndexEntry& e, model::TimeNs v) { e.t0 = v; });
    for (auto& e : entries)
        e.t1 = in.delta(e.t0);
    for (auto& e : entries) {
        const std::uint64_t n = in.varint();
        if (n > kMaxRows)
            throw CorruptTile("tile index lists an impossible row count");
        e.n = static_cast<std::int64_t>(n);
    }
    readTimes(in, entries, [](TileIndexEntry& e, model::TimeNs v) { e.id = v; });
    expectEnd(in);
    return entries;
}

} // namespace strata::storage
