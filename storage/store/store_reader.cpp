#include "storage/store/store_reader.h"

#include "storage/store/store_reader_p.h"
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
using namespace store_reader_detail;

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

} // namespace strata::storage
