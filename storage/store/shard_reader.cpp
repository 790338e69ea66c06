#include "storage/store/shard_reader.h"

#include "storage/store/shard_reader_p.h"
#include "storage/store/store_schema.h"
#include "storage/store/store_tables.h"
#include "storage/store/tile_codec.h"

#include <sqlite3.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <exception>
#include <fstream>
#include <thread>

namespace strata::storage {

using model::TimeNs;
using model::TimeRange;
using namespace shard_reader_detail;

namespace {

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


ShardReader::ShardReader(const std::filesystem::path& path, Context context)
    : m_path(path)
    , m_context(std::move(context))
{
    checkSqliteMagic(path);
    m_db = std::make_unique<SqliteDb>(path, SqliteDb::Mode::Published);
    try {
        loadMetadata();
    } catch (const StoreError&) {
        throw;
    } catch (const std::exception& e) {
        throw StoreError(path.string() + ": corrupted store: " + e.what());
    }
    // From here on this connection reads tile indexes, each once into the index cache.
    Connection::limitPageCache(*m_db);
}

ShardReader::~ShardReader() = default;

void ShardReader::loadMetadata()
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

    if (m_context.ids) {
        // A run's shard names the manifest's strings: count its own, do not intern them.
        // Two statements: each alone is answered from the b-tree's pages (OP_Count, the
        // rowid's last entry), while one SELECT of both ran the VDBE once per row, ~60 % of
        // opening a 16-shard run's instructions.
        auto maxId = m_db->prepare("SELECT coalesce(max(id), 0) FROM strings");
        auto count = m_db->prepare("SELECT count(*) FROM strings");
        maxId.step();
        count.step();
        m_stringCount = static_cast<std::size_t>(maxId.int64(0)) + 1;
        if (count.int64(0) != maxId.int64(0) + 1 && count.int64(0) != maxId.int64(0))
            throw StoreError(m_path.string() + ": corrupted store: string ids are not dense");
    } else {
        readStrings(*m_db, m_path, m_strings);
        m_stringCount = m_strings.size();
    }
    readTracks(*m_db, m_path, m_resources);
    m_foreignTracks = readForeignTracks(*m_db, m_path);
    const auto trackCount = static_cast<std::int64_t>(m_resources.size());
    m_summaries.resize(m_resources.size());
    m_bandMaxNs.assign(m_resources.size(), std::vector<TimeNs>(m_grid.levels + 1, -1));

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
        const auto id = checkedId(categories.int64(0), static_cast<std::int64_t>(m_stringCount),
                                  "category", m_path);
        m_categories[static_cast<model::StringId>(id)] = {categories.int64(1), categories.int64(2)};
    }
    readStacks(*m_db, m_path, m_stringCount, m_stacks);
    m_indexStmt.emplace(m_db->prepare("SELECT payload FROM tile_index WHERE track = ?"));
    m_hasKernelMetrics = m_db->hasTable("kernel_metrics");
    loadFlameLevels();
}

std::optional<std::string> ShardReader::meta(const std::string& key) const
{
    auto it = m_meta.find(key);
    return it == m_meta.end() ? std::nullopt : std::optional<std::string>(it->second);
}

bool ShardReader::indexCached(model::TrackId track)
{
    std::lock_guard lock(m_context.cache->indexMutex);
    return m_context.cache->indexes.contains(m_context.cacheKeyBase + track);
}

ShardReader::IndexPtr ShardReader::index(model::TrackId track, int slot)
{
    if (track >= m_resources.size())
        throw std::out_of_range("StoreReader: unknown track " + std::to_string(track));
    LruCache<TrackTileIndex>& cache = m_context.cache->indexes;
    const std::int64_t key = m_context.cacheKeyBase + track;
    {
        std::lock_guard lock(m_context.cache->indexMutex);
        if (auto hit = cache.find(key))
            return hit;
    }
    SqliteStatement* stmt = &*m_indexStmt;
    if (slot >= 0) {
        Connection& conn = connection(slot);
        if (!conn.index)
            conn.index.emplace(conn.db->prepare("SELECT payload FROM tile_index WHERE track = ?"));
        stmt = &*conn.index;
    }
    stmt->bind(1, std::int64_t(track));
    std::vector<TileIndexEntry> entries;
    try {
        if (stmt->step())
            entries = decodeTileIndex(stmt->blob(0));
    } catch (const CorruptTile& e) {
        stmt->reset();
        throw StoreError(m_path.string() + ": corrupted tile index of track "
            + std::to_string(track) + ": " + e.what());
    }
    stmt->reset();
    // Each list sized once: grown by doubling, they took ~1.6 x their entries. The builder
    // writes each (kind, level) list whole, so a list is looked up once per run of its
    // entries, not once per entry (the index of a cold frame's 26 tracks is read before
    // the query splits across cores).
    std::map<std::pair<int, int>, std::size_t> counts;
    {
        std::pair<int, int> runKey { -1, -1 };
        std::size_t* n = nullptr;
        for (const TileIndexEntry& e : entries) {
            const std::pair<int, int> list { static_cast<int>(e.kind), e.level };
            if (list != runKey) {
                n = &counts[list];
                runKey = list;
            }
            // Lists are by idx, from 0 (as the builder numbers tiles); ids and counts fit
            // 32 bits (4 G tiles would be a store of tens of TB).
            if (e.level > m_grid.levels || e.id <= 0 || e.id > UINT32_MAX
                || e.idx != static_cast<std::int64_t>(*n) || e.n > UINT32_MAX)
                throw StoreError(
                    m_path.string() + ": corrupted tile index of track " + std::to_string(track));
            ++*n;
        }
    }
    auto idx = std::make_shared<TrackTileIndex>();
    constexpr std::size_t kListBytes = 96;  // a map node and its vector
    idx->bytes =
        sizeof(TrackTileIndex) + entries.size() * sizeof(IndexedTile) + counts.size() * kListBytes;
    for (const auto& [list, size] : counts)
        idx->tiles[list].reserve(size);
    std::pair<int, int> runKey { -1, -1 };
    std::vector<IndexedTile>* tiles = nullptr;
    for (const TileIndexEntry& e : entries) {
        const std::pair<int, int> list { static_cast<int>(e.kind), e.level };
        if (list != runKey) {
            tiles = &idx->tiles[list];
            runKey = list;
        }
        tiles->push_back(
            { e.t0, e.t1, static_cast<std::uint32_t>(e.id), static_cast<std::uint32_t>(e.n) });
    }
    std::lock_guard lock(m_context.cache->indexMutex);
    if (cache.contains(key))  // read by the query's other thread meanwhile
        return cache.find(key);
    cache.insert(key, idx, idx->bytes);
    return idx;
}

std::shared_ptr<const DecodedTile> ShardReader::tile(
    std::int64_t id, int kind, Connection& conn, bool drawn)
{
    SharedTileCache& shared = *m_context.cache;
    // Tile ids and shard bases stay below 2^62 (kCacheKeyShardShift): the drawn decoding
    // of a tile has its own key above.
    const std::int64_t key = (m_context.cacheKeyBase + id) | (drawn ? std::int64_t(1) << 62 : 0);
    {
        std::lock_guard lock(shared.mutex);
        if (auto hit = shared.cache.find(key))
            return hit;
    }
    // Fetch and decode outside the cache lock.
    auto decoded = std::make_shared<const DecodedTile>(decodeTile(id, kind, conn, drawn));
    std::lock_guard lock(shared.mutex);
    shared.cache.insert(key, decoded);
    return decoded;
}

std::size_t ShardReader::sqliteCacheBytes() const
{
    std::size_t bytes = 0;
    auto add = [&bytes](const SqliteDb& db) {
        int current = 0, highest = 0;
        sqlite3_db_status(db.handle(), SQLITE_DBSTATUS_CACHE_USED, &current, &highest, 0);
        bytes += static_cast<std::size_t>(current);
    };
    add(*m_db);
    for (const auto& conn : m_connections) {
        if (conn)
            add(*conn->db);
    }
    return bytes;
}

ShardReader::Connection& ShardReader::connection(int slot)
{
    if (!m_connections[slot])
        m_connections[slot] = std::make_unique<Connection>(m_path);
    return *m_connections[slot];
}

DecodedTile ShardReader::decodeTile(std::int64_t id, int kind, Connection& conn, bool drawn)
{
    SqliteStatement& stmt = *conn.payload;
    stmt.bind(1, id);
    if (!stmt.step()) {
        stmt.reset();
        throw StoreError(
            m_path.string() + ": corrupted store: tile " + std::to_string(id) + " is missing");
    }
    try {
        if (stmt.int64(0) != kind)
            throw CorruptTile("tile kind differs from its index");
        const std::string_view payload = stmt.blob(1);
        DecodedTile decoded;
        switch (static_cast<TileKind>(kind)) {
        case TileKind::Intervals:
            decoded = decodeIntervalTile(payload, !drawn);
            break;
        case TileKind::Instants:
            decoded = decodeInstantTile(payload, !drawn);
            break;
        case TileKind::Counters: decoded = decodeCounterTile(payload); break;
        case TileKind::Flows: decoded = decodeFlowTile(payload); break;
        case TileKind::Samples: decoded = decodeSampleTile(payload); break;
        case TileKind::IntervalSummary:
            decoded = drawn ? decodeDrawnIntervalSummaryTile(payload)
                            : decodeIntervalSummaryTile(payload);
            break;
        case TileKind::InstantSummary: decoded = decodeInstantSummaryTile(payload); break;
        case TileKind::CounterSummary: decoded = decodeCounterSummaryTile(payload); break;
        default: throw CorruptTile("unknown tile kind");
        }
        stmt.reset();
        if (m_context.ids)
            m_context.ids->apply(decoded);
        return decoded;
    } catch (const CorruptTile& e) {
        stmt.reset();
        throw StoreError(
            m_path.string() + ": corrupted store: tile " + std::to_string(id) + ": " + e.what());
    }
}

std::vector<TileRef> ShardReader::exactTiles(model::TrackId track, TileKind kind, int band)
{
    const IndexPtr idx = index(track);
    std::vector<TileRef> out;
    if (const auto* tiles = idx->find(kind, band)) {
        out.reserve(tiles->size());
        for (const IndexedTile& t : *tiles)
            out.push_back({ t.id, static_cast<std::int64_t>(out.size()), t.t0, t.t1, t.n });
    }
    return out;
}

DecodedTile ShardReader::readTile(const TileRef& ref, TileKind kind)
{
    return decodeTile(ref.id, static_cast<int>(kind), connection(0), false);
}

model::TimeNs ShardReader::bandMaxDurationNs(model::TrackId track, int band) const
{
    if (track >= m_bandMaxNs.size() || band < 0 || band > m_grid.levels)
        return -1;
    return m_bandMaxNs[track][band];
}

} // namespace strata::storage
