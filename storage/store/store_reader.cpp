#include "storage/store/store_reader.h"

#include "storage/store/store_schema.h"
#include "storage/store/tile_codec.h"

#include <algorithm>
#include <array>
#include <cstring>
#include <exception>
#include <fstream>
#include <thread>

namespace strata::storage {

using model::TimeNs;
using model::TimeRange;

/// The tile index of one track: per (kind, level) the tiles sorted by idx (for exact
/// tiles, idx order is start order).
struct StoreReader::TrackIndex
{
    std::map<std::pair<int, int>, std::vector<TileRef>> tiles;

    const std::vector<TileRef>* find(TileKind kind, int level) const
    {
        auto it = tiles.find({static_cast<int>(kind), level});
        return it == tiles.end() ? nullptr : &it->second;
    }
};

struct StoreReader::Connection
{
    std::unique_ptr<SqliteDb> db;
    std::optional<SqliteStatement> payload;

    explicit Connection(const std::filesystem::path& path)
        : db(std::make_unique<SqliteDb>(path, SqliteDb::Mode::ReadOnly))
    {
        payload.emplace(db->prepare("SELECT kind, payload FROM tiles WHERE id = ?"));
    }
};

namespace {

std::optional<model::TimeRange> activityOf(const std::vector<TrackSummary>& summaries)
{
    std::optional<model::TimeRange> span;
    for (const TrackSummary& s : summaries) {
        if (s.intervals + s.instants + s.samples == 0)
            continue;
        span = span ? model::TimeRange {std::min(span->startNs, s.firstNs), std::max(span->endNs, s.lastNs)}
                    : model::TimeRange {s.firstNs, s.lastNs};
    }
    return span;
}

/// An interval overlaps [w.startNs, w.endNs) if it shares time with it; a zero-length
/// one if it lies inside.
bool overlaps(TimeNs s, TimeNs e, TimeRange w)
{
    return s < w.endNs && (e > w.startNs || (e == s && s >= w.startNs));
}

/// Exact tiles (sorted by t0 = first start) that may hold an event starting in
/// [lowNs, highNs): from the last tile starting at or before lowNs on.
template<typename Fn>
void forExactTiles(const std::vector<StoreReader::TileRef>& tiles, TimeNs lowNs, TimeNs highNs, Fn fn)
{
    auto it = std::upper_bound(tiles.begin(), tiles.end(), lowNs,
                               [](TimeNs t, const StoreReader::TileRef& r) { return t < r.t0; });
    if (it != tiles.begin())
        --it;
    for (; it != tiles.end() && it->t0 < highNs; ++it)
        fn(*it);
}

/// Summary tiles whose span overlaps [startNs, endNs).
template<typename Fn>
void forSummaryTiles(const std::vector<StoreReader::TileRef>& tiles, TimeRange w, Fn fn)
{
    auto it = std::upper_bound(tiles.begin(), tiles.end(), w.startNs,
                               [](TimeNs t, const StoreReader::TileRef& r) { return t < r.t1; });
    for (; it != tiles.end() && it->t0 < w.endNs; ++it)
        fn(*it);
}

void checkSqliteMagic(const std::filesystem::path& path)
{
    std::error_code ec;
    if (!std::filesystem::is_regular_file(path, ec))
        throw StoreError(path.string() + ": no such store file");
    std::ifstream in(path, std::ios::binary);
    char header[16] = {};
    in.read(header, sizeof header);
    if (in.gcount() < 16 || std::memcmp(header, "SQLite format 3", 16) != 0)
        throw StoreError(path.string() + ": not a Strata store (expected an SQLite file at byte 0)");
}

std::int64_t checkedId(std::int64_t v, std::int64_t limit, const std::string& what,
                       const std::filesystem::path& path)
{
    if (v < 0 || v >= limit)
        throw StoreError(path.string() + ": corrupted store: " + what + " " + std::to_string(v)
                         + " out of range");
    return v;
}

} // namespace

StoreReader::StoreReader(const std::filesystem::path& path)
    : StoreReader(path, Options{})
{
}

StoreReader::StoreReader(const std::filesystem::path& path, Options options)
    : m_path(path)
    , m_cache(options.cacheBytes)
{
    checkSqliteMagic(path);
    m_db = std::make_unique<SqliteDb>(path, SqliteDb::Mode::ReadOnly);
    try {
        loadMetadata();
    } catch (const StoreError&) {
        throw;
    } catch (const std::exception& e) {
        throw StoreError(path.string() + ": corrupted store: " + e.what());
    }
}

StoreReader::~StoreReader() = default;

void StoreReader::loadMetadata()
{
    {
        auto pageSize = m_db->prepare("PRAGMA page_size");
        auto pageCount = m_db->prepare("PRAGMA page_count");
        if (!pageSize.step() || !pageCount.step())
            m_db->fail("cannot read the page count");
        const auto expected = static_cast<std::uintmax_t>(pageSize.int64(0) * pageCount.int64(0));
        const auto actual = std::filesystem::file_size(m_path);
        if (actual < expected)
            throw StoreError(m_path.string() + ": truncated store: " + std::to_string(actual)
                             + " bytes, expected " + std::to_string(expected));
    }
    {
        std::optional<SqliteStatement> metaStmt;
        try {
            metaStmt.emplace(m_db->prepare("SELECT key, value FROM meta"));
        } catch (const StoreError&) {
            throw StoreError(m_path.string() + ": not a Strata store (no 'meta' table)");
        }
        while (metaStmt->step())
            m_meta[std::string(metaStmt->text(0))] = std::string(metaStmt->text(1));
    }
    if (meta("format") != kStoreFormatName)
        throw StoreError(m_path.string() + ": not a Strata store (meta 'format' is not 'strata')");
    const int version = std::atoi(meta("format_version").value_or("0").c_str());
    if (version > kStoreFormatVersion)
        throw StoreError(m_path.string() + ": store format version " + std::to_string(version)
                         + " is newer than this Strata reads (" + std::to_string(kStoreFormatVersion)
                         + "); upgrade Strata");
    if (version < 1)
        throw StoreError(m_path.string() + ": corrupted store: bad format_version");

    m_grid.baseBucketNs = std::atoll(meta("lod_base_bucket_ns").value_or("0").c_str());
    m_grid.factorLog2 = std::atoi(meta("lod_factor_log2").value_or("0").c_str());
    m_grid.levels = std::atoi(meta("lod_levels").value_or("0").c_str());
    if (m_grid.baseBucketNs <= 0 || m_grid.factorLog2 < 1 || m_grid.factorLog2 > 3
        || m_grid.levels < 1 || m_grid.levels > 22
        || m_grid.tileNs(m_grid.levels) / m_grid.tileNs(1) != (1LL << (m_grid.factorLog2 * (m_grid.levels - 1))))
        throw StoreError(m_path.string() + ": corrupted store: bad level-of-detail grid in meta");
    m_span = {std::atoll(meta("span_start_ns").value_or("0").c_str()),
              std::atoll(meta("span_end_ns").value_or("0").c_str())};

    auto strings = m_db->prepare("SELECT id, text FROM strings ORDER BY id");
    while (strings.step()) {
        if (strings.int64(0) != static_cast<std::int64_t>(m_strings.size()) && strings.int64(0) != 0)
            throw StoreError(m_path.string() + ": corrupted store: string ids are not dense");
        if (strings.int64(0) != 0)
            m_strings.intern(strings.text(1));
    }

    auto tracks = m_db->prepare("SELECT id, parent, kind, name, sort_key, unit FROM tracks ORDER BY id");
    while (tracks.step()) {
        model::TrackInfo t;
        t.id = static_cast<model::TrackId>(tracks.int64(0));
        t.parent = tracks.isNull(1) ? model::kNoTrack : static_cast<model::TrackId>(tracks.int64(1));
        auto kind = model::parseResourceKind(tracks.text(2));
        if (!kind || t.id != m_resources.size() || (t.parent != model::kNoTrack && t.parent >= t.id))
            throw StoreError(m_path.string() + ": corrupted store: bad track " + std::to_string(t.id));
        t.kind = *kind;
        t.name = tracks.text(3);
        t.sortKey = tracks.int64(4);
        t.unit = tracks.text(5);
        m_resources.restore(std::move(t));
    }
    const auto trackCount = static_cast<std::int64_t>(m_resources.size());
    m_summaries.resize(m_resources.size());
    m_bandMaxNs.assign(m_resources.size(), std::vector<TimeNs>(m_grid.levels + 1, -1));
    m_indexes.resize(m_resources.size());

    auto stats = m_db->prepare("SELECT * FROM track_stats");
    while (stats.step()) {
        TrackSummary& s = m_summaries[checkedId(stats.int64(0), trackCount, "track", m_path)];
        s.intervals = stats.int64(1);
        s.instants = stats.int64(2);
        s.counters = stats.int64(3);
        s.flows = stats.int64(4);
        s.samples = stats.int64(5);
        s.firstNs = stats.int64(6);
        s.lastNs = stats.int64(7);
        s.maxDepth = static_cast<int>(stats.int64(8));
        s.intervalLevel = static_cast<int>(stats.int64(9));
        s.instantLevel = static_cast<int>(stats.int64(10));
        s.counterLevel = static_cast<int>(stats.int64(11));
    }
    m_activitySpan = activityOf(m_summaries).value_or(m_span);
    auto bands = m_db->prepare("SELECT track, band, max_duration_ns FROM bands");
    while (bands.step()) {
        const auto track = checkedId(bands.int64(0), trackCount, "track", m_path);
        const auto band = checkedId(bands.int64(1), m_grid.levels + 1, "band", m_path);
        m_bandMaxNs[track][band] = std::max<TimeNs>(0, bands.int64(2));
    }
    auto categories = m_db->prepare("SELECT category, intervals, total_ns FROM categories");
    while (categories.step()) {
        const auto id = checkedId(categories.int64(0), static_cast<std::int64_t>(m_strings.size()),
                                  "category", m_path);
        m_categories[static_cast<model::StringId>(id)] = {categories.int64(1), categories.int64(2)};
    }
    auto stacks = m_db->prepare("SELECT id, parent, frame FROM stacks ORDER BY id");
    while (stacks.step()) {
        const std::int64_t id = stacks.int64(0);
        const std::int64_t parent = stacks.int64(1);
        if (id != static_cast<std::int64_t>(m_stacks.size()) || parent < 0 || parent >= id)
            throw StoreError(m_path.string() + ": corrupted store: bad stack " + std::to_string(id));
        m_stacks.add(static_cast<model::StackId>(parent),
                     static_cast<model::StringId>(checkedId(stacks.int64(2), static_cast<std::int64_t>(m_strings.size()),
                                                            "stack frame", m_path)));
    }
    m_indexStmt.emplace(m_db->prepare("SELECT payload FROM tile_index WHERE track = ?"));
    m_hasKernelMetrics
        = m_db->prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'kernel_metrics'")
              .step();
    loadFlameLevels();
    m_connections[0] = std::make_unique<Connection>(m_path);
}

std::optional<std::string> StoreReader::meta(const std::string& key) const
{
    auto it = m_meta.find(key);
    return it == m_meta.end() ? std::nullopt : std::optional<std::string>(it->second);
}

const StoreReader::TrackIndex& StoreReader::index(model::TrackId track)
{
    if (track >= m_indexes.size())
        throw std::out_of_range("StoreReader: unknown track " + std::to_string(track));
    if (!m_indexes[track]) {
        auto idx = std::make_unique<TrackIndex>();
        m_indexStmt->bind(1, std::int64_t(track));
        std::vector<TileIndexEntry> entries;
        try {
            if (m_indexStmt->step())
                entries = decodeTileIndex(m_indexStmt->blob(0));
        } catch (const CorruptTile& e) {
            m_indexStmt->reset();
            throw StoreError(m_path.string() + ": corrupted tile index of track " + std::to_string(track) + ": "
                             + e.what());
        }
        m_indexStmt->reset();
        for (const TileIndexEntry& e : entries) {
            if (e.level > m_grid.levels || e.id <= 0)
                throw StoreError(m_path.string() + ": corrupted tile index of track " + std::to_string(track));
            idx->tiles[{static_cast<int>(e.kind), e.level}].push_back({e.id, e.idx, e.t0, e.t1, e.n});
        }
        m_indexes[track] = std::move(idx);
    }
    return *m_indexes[track];
}

std::shared_ptr<const DecodedTile> StoreReader::tile(const TileRef& ref, int kind, Connection& conn)
{
    {
        std::lock_guard lock(m_cacheMutex);
        if (auto hit = m_cache.find(ref.id))
            return hit;
    }
    // Fetch and decode outside the cache lock.
    auto decoded = std::make_shared<const DecodedTile>(decodeTile(ref, kind, conn));
    std::lock_guard lock(m_cacheMutex);
    m_cache.insert(ref.id, decoded);
    return decoded;
}

DecodedTile StoreReader::decodeTile(const TileRef& ref, int kind, Connection& conn)
{
    SqliteStatement& stmt = *conn.payload;
    stmt.bind(1, ref.id);
    if (!stmt.step()) {
        stmt.reset();
        throw StoreError(m_path.string() + ": corrupted store: tile " + std::to_string(ref.id) + " is missing");
    }
    try {
        if (stmt.int64(0) != kind)
            throw CorruptTile("tile kind differs from its index");
        const std::string_view payload = stmt.blob(1);
        DecodedTile decoded;
        switch (static_cast<TileKind>(kind)) {
        case TileKind::Intervals: decoded = decodeIntervalTile(payload); break;
        case TileKind::Instants: decoded = decodeInstantTile(payload); break;
        case TileKind::Counters: decoded = decodeCounterTile(payload); break;
        case TileKind::Flows: decoded = decodeFlowTile(payload); break;
        case TileKind::Samples: decoded = decodeSampleTile(payload); break;
        case TileKind::IntervalSummary: decoded = decodeIntervalSummaryTile(payload); break;
        case TileKind::InstantSummary: decoded = decodeInstantSummaryTile(payload); break;
        case TileKind::CounterSummary: decoded = decodeCounterSummaryTile(payload); break;
        default: throw CorruptTile("unknown tile kind");
        }
        stmt.reset();
        return decoded;
    } catch (const CorruptTile& e) {
        stmt.reset();
        throw StoreError(m_path.string() + ": corrupted store: tile " + std::to_string(ref.id) + ": " + e.what());
    }
}

std::vector<StoreReader::TileRef> StoreReader::exactTiles(model::TrackId track, TileKind kind, int band)
{
    std::lock_guard lock(m_mutex);
    const auto* tiles = index(track).find(kind, band);
    return tiles ? *tiles : std::vector<TileRef>{};
}

DecodedTile StoreReader::readTile(const TileRef& ref, TileKind kind)
{
    std::lock_guard lock(m_mutex);
    return decodeTile(ref, static_cast<int>(kind), *m_connections[0]);
}

model::TimeNs StoreReader::bandMaxDurationNs(model::TrackId track, int band) const
{
    if (track >= m_bandMaxNs.size() || band < 0 || band > m_grid.levels)
        return -1;
    return m_bandMaxNs[track][band];
}

std::vector<std::pair<model::StackId, model::StringId>> StoreReader::stackFrames()
{
    std::lock_guard lock(m_mutex);
    std::vector<std::pair<model::StackId, model::StringId>> frames(1);
    auto stmt = m_db->prepare("SELECT id, parent, frame FROM stacks ORDER BY id");
    while (stmt.step()) {
        const auto id = stmt.int64(0);
        const auto parent = stmt.int64(1);
        const auto frame = stmt.int64(2);
        if (id != static_cast<std::int64_t>(frames.size()) || parent < 0 || parent >= id || frame < 0
            || frame >= static_cast<std::int64_t>(m_strings.size()))
            throw StoreError(m_path.string() + ": corrupted store: bad stack " + std::to_string(id));
        frames.emplace_back(static_cast<model::StackId>(parent), static_cast<model::StringId>(frame));
    }
    return frames;
}

void StoreReader::readExactIntervals(model::TrackId track, int fromBand, TimeRange window,
                                     std::vector<model::Interval>& out, Connection& conn)
{
    const TrackIndex& idx = index(track);
    const auto before = static_cast<std::ptrdiff_t>(out.size());
    auto byStart = [](const model::Interval& a, const model::Interval& b) {
        return a.startNs != b.startNs ? a.startNs < b.startNs : a.seq < b.seq;
    };
    for (int band = fromBand; band <= m_grid.levels; ++band) {
        const TimeNs maxDuration = m_bandMaxNs[track][band];
        const auto* tiles = idx.find(TileKind::Intervals, band);
        if (maxDuration < 0 || !tiles)
            continue;
        const auto bandStart = static_cast<std::ptrdiff_t>(out.size());
        forExactTiles(*tiles, window.startNs - maxDuration, window.endNs, [&](const TileRef& ref) {
            if (ref.t1 < window.startNs)
                return;
            auto decoded = tile(ref, static_cast<int>(TileKind::Intervals), conn);
            for (const model::Interval& e : std::get<IntervalTile>(*decoded).events) {
                if (overlaps(e.startNs, e.endNs, window))
                    out.push_back(e);
            }
        });
        // Each band comes out sorted: merge it with the bands before.
        std::inplace_merge(out.begin() + before, out.begin() + bandStart, out.end(), byStart);
    }
}

std::vector<model::Interval> StoreReader::intervals(model::TrackId track, TimeNs startNs, TimeNs endNs)
{
    return intervals(track, startNs, endNs, 0);
}

std::vector<model::Interval> StoreReader::intervals(model::TrackId track, TimeNs startNs, TimeNs endNs,
                                                    int fromBand)
{
    std::lock_guard lock(m_mutex);
    std::vector<model::Interval> out;
    readExactIntervals(track, std::max(0, fromBand), {startNs, endNs}, out, *m_connections[0]);
    return out;
}

std::vector<model::StackSample> StoreReader::stackSamples(model::TrackId track, TimeNs startNs, TimeNs endNs)
{
    std::lock_guard lock(m_mutex);
    std::vector<model::StackSample> out;
    Connection& conn = *m_connections[0];
    const auto* tiles = summary(track).samples > 0 ? index(track).find(TileKind::Samples, 0) : nullptr;
    if (!tiles)
        return out;
    forExactTiles(*tiles, startNs, endNs, [&](const TileRef& ref) {
        auto decoded = tile(ref, static_cast<int>(TileKind::Samples), conn);
        for (const model::StackSample& s : std::get<SampleTile>(*decoded).samples) {
            if (s.timeNs >= startNs && s.timeNs < endNs)
                out.push_back(s);
        }
    });
    return out;
}

std::string StoreReader::intervalArgs(model::TrackId track, const model::Interval& interval)
{
    Connection& conn = *m_connections[0];
    std::lock_guard lock(m_mutex);
    const auto* tiles = index(track).find(TileKind::Intervals, m_grid.bandOf(interval.durationNs()));
    if (!tiles)
        return {};
    std::string found;
    forExactTiles(*tiles, interval.startNs, interval.startNs + 1, [&](const TileRef& ref) {
        auto decoded = tile(ref, static_cast<int>(TileKind::Intervals), conn);
        const auto& t = std::get<IntervalTile>(*decoded);
        for (std::size_t i = 0; i < t.events.size(); ++i) {
            if (t.events[i].seq == interval.seq && t.events[i].startNs == interval.startNs)
                found = t.args.at(i);
        }
    });
    return found;
}

std::vector<KernelMetricInfo> StoreReader::kernelMetricNames()
{
    std::lock_guard lock(m_mutex);
    std::vector<KernelMetricInfo> out;
    if (!m_hasKernelMetrics)
        return out;
    const auto strings = static_cast<std::int64_t>(m_strings.size());
    auto stmt = m_db->prepare("SELECT metric, unit, count(*), min(value), max(value) FROM kernel_metrics"
                              " GROUP BY metric, unit ORDER BY metric");
    while (stmt.step()) {
        KernelMetricInfo& info = out.emplace_back();
        info.metric = static_cast<model::StringId>(checkedId(stmt.int64(0), strings, "string", m_path));
        info.unit = static_cast<model::StringId>(checkedId(stmt.int64(1), strings, "string", m_path));
        info.kernels = stmt.int64(2);
        info.minValue = stmt.real(3);
        info.maxValue = stmt.real(4);
    }
    std::sort(out.begin(), out.end(), [this](const KernelMetricInfo& a, const KernelMetricInfo& b) {
        return m_strings.text(a.metric) < m_strings.text(b.metric);
    });
    return out;
}

std::vector<model::KernelMetric> StoreReader::kernelMetrics(model::TrackId track,
                                                            std::optional<model::StringId> metric)
{
    std::lock_guard lock(m_mutex);
    std::vector<model::KernelMetric> out;
    if (!m_hasKernelMetrics)
        return out;
    const auto strings = static_cast<std::int64_t>(m_strings.size());
    auto stmt = m_db->prepare(metric ? "SELECT start_ns, metric, value, unit FROM kernel_metrics"
                                       " WHERE track = ? AND metric = ? ORDER BY start_ns"
                                     : "SELECT start_ns, metric, value, unit FROM kernel_metrics"
                                       " WHERE track = ? ORDER BY start_ns, metric");
    stmt.bind(1, std::int64_t(track));
    if (metric)
        stmt.bind(2, std::int64_t(*metric));
    while (stmt.step()) {
        model::KernelMetric& m = out.emplace_back();
        m.track = track;
        m.startNs = stmt.int64(0);
        m.metric = static_cast<model::StringId>(checkedId(stmt.int64(1), strings, "string", m_path));
        m.value = stmt.real(2);
        m.unit = static_cast<model::StringId>(checkedId(stmt.int64(3), strings, "string", m_path));
    }
    return out;
}

void StoreReader::fillSlice(TrackSlice& slice, TimeRange window, double nsPerPx, int pixelWidth,
                            Connection& conn)
{
    const model::TrackId track = slice.track;
    const TrackIndex& idx = index(track);
    const TrackSummary& summary = m_summaries[track];
    const int pixelLevel = m_grid.levelFor(nsPerPx);

    // Exact events when the window holds about one per pixel: estimated from tile counts.
    auto fewExact = [&](TileKind kind, int band, TimeNs lookbackNs, std::int64_t& budget) {
        const auto* tiles = idx.find(kind, band);
        if (!tiles)
            return;
        forExactTiles(*tiles, window.startNs - lookbackNs, window.endNs, [&](const TileRef& ref) {
            if (ref.t1 >= window.startNs)
                budget -= ref.n;
        });
    };
    auto chooseLevel = [&](int finest, TileKind kind, bool intervals) {
        if (pixelLevel < finest || pixelLevel == 0)
            return 0;
        std::int64_t budget = pixelWidth;
        if (intervals) {
            for (int band = 0; band <= m_grid.levels && budget >= 0; ++band) {
                if (m_bandMaxNs[track][band] >= 0)
                    fewExact(kind, band, m_bandMaxNs[track][band], budget);
            }
        } else {
            fewExact(kind, 0, 0, budget);
        }
        return budget >= 0 ? 0 : pixelLevel;
    };

    if (summary.intervals > 0) {
        slice.intervalLevel = chooseLevel(summary.intervalLevel, TileKind::Intervals, true);
        readExactIntervals(track, slice.intervalLevel, window, slice.intervals, conn);
        if (slice.intervalLevel > 0) {
            const TimeNs w = m_grid.bucketNs(slice.intervalLevel);
            if (const auto* tiles = idx.find(TileKind::IntervalSummary, slice.intervalLevel)) {
                // Cells are sorted by bucket: find each tile's run inside the window,
                // size the output once, then copy the runs and shift their entry offsets.
                struct Run
                {
                    std::shared_ptr<const DecodedTile> tile;
                    std::size_t begin, end;
                };
                std::vector<Run> runs;
                std::size_t cellCount = 0, entryCount = 0;
                const std::int64_t firstBucket = model::floorDiv(window.startNs, w);
                const std::int64_t lastBucket = model::floorDiv(window.endNs - 1, w);
                forSummaryTiles(*tiles, window, [&](const TileRef& ref) {
                    auto decoded = tile(ref, static_cast<int>(TileKind::IntervalSummary), conn);
                    const auto& t = std::get<IntervalSummaryTile>(*decoded);
                    const auto begin = std::lower_bound(t.cells.begin(), t.cells.end(), firstBucket,
                                                        [](const IntervalCell& c, std::int64_t b) { return c.bucket < b; });
                    const auto end = std::upper_bound(begin, t.cells.end(), lastBucket,
                                                      [](std::int64_t b, const IntervalCell& c) { return b < c.bucket; });
                    if (begin == end)
                        return;
                    const std::uint32_t from = begin->firstEntry;
                    const std::uint32_t to = std::prev(end)->firstEntry + std::prev(end)->entryCount;
                    if (to > t.entries.size() || from > to)
                        throw StoreError(m_path.string() + ": corrupted store: summary tile " + std::to_string(ref.id));
                    cellCount += static_cast<std::size_t>(end - begin);
                    entryCount += to - from;
                    runs.push_back({std::move(decoded), static_cast<std::size_t>(begin - t.cells.begin()),
                                    static_cast<std::size_t>(end - t.cells.begin())});
                });
                slice.cells.reserve(cellCount);
                slice.entries.reserve(entryCount);
                for (const Run& run : runs) {
                    const auto& t = std::get<IntervalSummaryTile>(*run.tile);
                    const std::uint32_t from = t.cells[run.begin].firstEntry;
                    const std::uint32_t to = t.cells[run.end - 1].firstEntry + t.cells[run.end - 1].entryCount;
                    const auto shift = static_cast<std::int64_t>(slice.entries.size()) - from;
                    const std::size_t firstCell = slice.cells.size();
                    slice.cells.insert(slice.cells.end(), t.cells.begin() + run.begin, t.cells.begin() + run.end);
                    slice.entries.insert(slice.entries.end(), t.entries.begin() + from, t.entries.begin() + to);
                    for (std::size_t i = firstCell; i < slice.cells.size(); ++i)
                        slice.cells[i].firstEntry = static_cast<std::uint32_t>(slice.cells[i].firstEntry + shift);
                }
            }
        }
    }
    if (summary.instants > 0) {
        slice.instantLevel = chooseLevel(summary.instantLevel, TileKind::Instants, false);
        if (slice.instantLevel == 0) {
            if (const auto* tiles = idx.find(TileKind::Instants, 0)) {
                forExactTiles(*tiles, window.startNs, window.endNs, [&](const TileRef& ref) {
                    auto decoded = tile(ref, static_cast<int>(TileKind::Instants), conn);
                    for (const model::Instant& i : std::get<InstantTile>(*decoded).events) {
                        if (i.timeNs >= window.startNs && i.timeNs < window.endNs)
                            slice.instants.push_back(i);
                    }
                });
            }
        } else if (const auto* tiles = idx.find(TileKind::InstantSummary, slice.instantLevel)) {
            const TimeNs w = m_grid.bucketNs(slice.instantLevel);
            forSummaryTiles(*tiles, window, [&](const TileRef& ref) {
                auto decoded = tile(ref, static_cast<int>(TileKind::InstantSummary), conn);
                for (const InstantCell& c : std::get<InstantSummaryTile>(*decoded).cells) {
                    if (c.bucket * w < window.endNs && (c.bucket + 1) * w > window.startNs)
                        slice.instantCells.push_back(c);
                }
            });
        }
    }
    if (summary.counters > 0) {
        slice.counterLevel = chooseLevel(summary.counterLevel, TileKind::Counters, false);
        const TileKind kind = slice.counterLevel == 0 ? TileKind::Counters : TileKind::CounterSummary;
        if (const auto* tiles = idx.find(kind, slice.counterLevel)) {
            // Start one tile early for the value carried into the window.
            auto first = std::lower_bound(tiles->begin(), tiles->end(), window.startNs,
                                          [](const TileRef& r, TimeNs t) { return r.t1 < t; });
            if (first != tiles->begin())
                --first;
            for (auto it = first; it != tiles->end() && it->t0 < window.endNs; ++it) {
                auto decoded = tile(*it, static_cast<int>(kind), conn);
                if (kind == TileKind::Counters) {
                    for (const model::CounterSample& s : std::get<CounterTile>(*decoded).samples) {
                        if (s.timeNs >= window.endNs)
                            break;
                        if (s.timeNs < window.startNs)
                            slice.samples.assign(1, s);  // carried-in value so far
                        else
                            slice.samples.push_back(s);
                    }
                } else {
                    const TimeNs w = m_grid.bucketNs(slice.counterLevel);
                    for (const CounterCell& c : std::get<CounterSummaryTile>(*decoded).cells) {
                        if (c.bucket * w >= window.endNs)
                            break;
                        if ((c.bucket + 1) * w <= window.startNs)
                            slice.counterCells.assign(1, c);
                        else
                            slice.counterCells.push_back(c);
                    }
                }
            }
        }
    }
    if (summary.flows > 0 && slice.intervalLevel == 0) {
        if (const auto* tiles = idx.find(TileKind::Flows, 0)) {
            forExactTiles(*tiles, window.startNs, window.endNs, [&](const TileRef& ref) {
                auto decoded = tile(ref, static_cast<int>(TileKind::Flows), conn);
                for (const model::Flow& f : std::get<FlowTile>(*decoded).flows) {
                    if (f.fromNs >= window.startNs && f.fromNs < window.endNs)
                        slice.flows.push_back(f);
                }
            });
        }
    }
    if (summary.samples > 0) {
        if (const auto* tiles = idx.find(TileKind::Samples, 0)) {
            forExactTiles(*tiles, window.startNs, window.endNs, [&](const TileRef& ref) {
                auto decoded = tile(ref, static_cast<int>(TileKind::Samples), conn);
                for (const model::StackSample& s : std::get<SampleTile>(*decoded).samples) {
                    if (s.timeNs >= window.startNs && s.timeNs < window.endNs)
                        slice.stackSamples.push_back(s);
                }
            });
        }
    }
}

std::vector<TrackSlice> StoreReader::query(const ViewportQuery& q)
{
    if (q.endNs <= q.startNs || q.pixelWidth <= 0)
        throw std::invalid_argument("StoreReader::query: empty window or no pixels");
    std::lock_guard lock(m_mutex);
    const double nsPerPx = static_cast<double>(q.endNs - q.startNs) / q.pixelWidth;
    std::vector<TrackSlice> out(q.tracks.size());
    for (std::size_t i = 0; i < q.tracks.size(); ++i) {
        out[i].track = q.tracks[i];
        index(q.tracks[i]);  // indexes load here, on the main connection, before any split
    }
    auto fill = [&](std::size_t first, std::size_t last, Connection& conn) {
        for (std::size_t i = first; i < last; ++i)
            fillSlice(out[i], {q.startNs, q.endNs}, nsPerPx, q.pixelWidth, conn);
    };
    // Many tracks: the second half on a second connection and core (the machine has
    // two). Interleaved halves would balance better but cost cache locality per track.
    constexpr std::size_t kSplitFrom = 8;
    if (q.tracks.size() < kSplitFrom) {
        fill(0, out.size(), *m_connections[0]);
        return out;
    }
    if (!m_connections[1])
        m_connections[1] = std::make_unique<Connection>(m_path);
    const std::size_t half = out.size() / 2;
    std::exception_ptr secondError;
    std::thread second([&] {
        try {
            fill(half, out.size(), *m_connections[1]);
        } catch (...) {
            secondError = std::current_exception();
        }
    });
    std::exception_ptr firstError;
    try {
        fill(0, half, *m_connections[0]);
    } catch (...) {
        firstError = std::current_exception();
    }
    second.join();
    if (firstError)
        std::rethrow_exception(firstError);
    if (secondError)
        std::rethrow_exception(secondError);
    return out;
}

std::size_t StoreReader::cacheBytes() const
{
    std::lock_guard lock(m_cacheMutex);
    return m_cache.bytes();
}

std::size_t StoreReader::cacheBudget() const
{
    return m_cache.budget();
}

} // namespace strata::storage
