#include "storage/store/run_manifest.h"

#include "storage/store/shard_reader.h"
#include "storage/store/sqlite_db.h"
#include "storage/store/store_schema.h"
#include "storage/store/store_tables.h"

#include <xxhash.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <map>
#include <memory>
#include <new>

namespace strata::storage {

namespace {

constexpr const char* kManifestSchemaSql = R"sql(
CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID;
CREATE TABLE shards(id INTEGER PRIMARY KEY, path TEXT NOT NULL, first_track INTEGER NOT NULL,
                    tracks INTEGER NOT NULL, events INTEGER NOT NULL, bytes INTEGER NOT NULL,
                    checksum TEXT NOT NULL, head_checksum TEXT NOT NULL);
CREATE TABLE strings(id INTEGER PRIMARY KEY, text TEXT NOT NULL);
CREATE TABLE tracks(id INTEGER PRIMARY KEY, parent INTEGER, kind TEXT NOT NULL,
                    name TEXT NOT NULL, sort_key INTEGER NOT NULL, unit TEXT NOT NULL);
CREATE TABLE stacks(id INTEGER PRIMARY KEY, parent INTEGER NOT NULL, frame INTEGER NOT NULL);
CREATE TABLE shard_ids(shard INTEGER NOT NULL, kind TEXT NOT NULL, payload BLOB NOT NULL,
                       PRIMARY KEY(shard, kind)) WITHOUT ROWID;
)sql";

/// Meta a store keeps about itself, not about the run.
bool isStoreOwnMeta(const std::string& key)
{
    return key == "format" || key == "format_version" || key == "events" || key.starts_with("lod_")
        || key.starts_with("span_");
}

std::string encodeIds(const std::vector<std::uint32_t>& ids)
{
    std::string out(ids.size() * 4, '\0');
    for (std::size_t i = 0; i < ids.size(); ++i) {
        for (int b = 0; b < 4; ++b)
            out[4 * i + b] = static_cast<char>((ids[i] >> (8 * b)) & 0xFF);
    }
    return out;
}

std::vector<std::uint32_t> decodeIds(std::string_view bytes, std::uint64_t limit,
                                     const std::filesystem::path& file)
{
    if (bytes.size() % 4 != 0)
        throw StoreError(file.string() + ": corrupted manifest: a shard's id map is cut short");
    std::vector<std::uint32_t> ids(bytes.size() / 4);
    for (std::size_t i = 0; i < ids.size(); ++i) {
        std::uint32_t v = 0;
        for (int b = 0; b < 4; ++b)
            v |= static_cast<std::uint32_t>(static_cast<unsigned char>(bytes[4 * i + b])) << (8 * b);
        if (v >= limit)
            throw StoreError(file.string() + ": corrupted manifest: a shard's id map points past the run's table");
        ids[i] = v;
    }
    return ids;
}

class Fnv64
{
public:
    void add(const char* data, std::size_t n)
    {
        for (std::size_t i = 0; i < n; ++i) {
            m_hash ^= static_cast<unsigned char>(data[i]);
            m_hash *= 0x100000001b3ULL;
        }
    }
    std::string hex() const
    {
        char out[17];
        std::snprintf(out, sizeof out, "%016llx", static_cast<unsigned long long>(m_hash));
        return out;
    }

private:
    std::uint64_t m_hash = 0xcbf29ce484222325ULL;
};

} // namespace

std::filesystem::path shardFolder(const std::filesystem::path& manifest)
{
    return manifest.parent_path() / (manifest.filename().string() + ".d");
}

std::filesystem::path shardFile(const std::filesystem::path& manifest, const std::string& path)
{
    const std::filesystem::path relative(path);
    const std::filesystem::path normal = relative.lexically_normal();
    const bool escapes = relative.is_absolute() || relative.has_root_name() || path.empty()
        || normal.empty() || *normal.begin() == "..";
    const std::filesystem::path folder = manifest.parent_path().empty() ? "." : manifest.parent_path();
    const std::filesystem::path file = manifest.parent_path() / normal;
    bool linkedOut = false;
    if (!escapes) {
        std::error_code ec;
        const auto realFolder = std::filesystem::weakly_canonical(folder, ec);
        const auto realFile = std::filesystem::weakly_canonical(file, ec);
        const auto rel = realFile.lexically_relative(realFolder);
        linkedOut = !ec && (rel.empty() || *rel.begin() == "..");
    }
    if (escapes || linkedOut)
        throw StoreError(manifest.string() + ": refused: shard path '" + path
                         + "' is outside the manifest's folder");
    return file;
}

std::uint64_t storeBytes(const std::filesystem::path& store)
{
    std::error_code ec;
    std::uint64_t bytes = std::filesystem::file_size(store, ec);
    if (ec)
        bytes = 0;
    for (const auto& shard : std::filesystem::directory_iterator(shardFolder(store), ec))
        bytes += shard.is_regular_file(ec) ? shard.file_size(ec) : 0;
    return bytes;
}

std::string textChecksum(std::string_view text)
{
    Fnv64 hash;
    hash.add(text.data(), text.size());
    return hash.hex();
}

namespace {

/// XXH3-64, streamed.
class Xxh3
{
public:
    Xxh3()
        : m_state(XXH3_createState())
    {
        if (!m_state)
            throw std::bad_alloc();
        XXH3_64bits_reset(m_state.get());
    }
    void add(const char* data, std::size_t n) { XXH3_64bits_update(m_state.get(), data, n); }
    std::string hex() const
    {
        char out[17];
        std::snprintf(out, sizeof out, "%016llx",
            static_cast<unsigned long long>(XXH3_64bits_digest(m_state.get())));
        return out;
    }

private:
    struct Free
    {
        void operator()(XXH3_state_t* state) const { XXH3_freeState(state); }
    };
    std::unique_ptr<XXH3_state_t, Free> m_state;
};

template<typename Hash>
std::string hashFile(const std::filesystem::path& file)
{
    std::ifstream in(file, std::ios::binary);
    if (!in)
        throw StoreError(file.string() + ": cannot read");
    Hash hash;
    std::vector<char> buffer(1 << 20);
    while (in) {
        in.read(buffer.data(), static_cast<std::streamsize>(buffer.size()));
        hash.add(buffer.data(), static_cast<std::size_t>(in.gcount()));
    }
    return hash.hex();
}

constexpr std::string_view kXxh3Prefix = "xxh3:";

}  // namespace

std::string fileChecksum(const std::filesystem::path& file)
{
    return std::string(kXxh3Prefix) + hashFile<Xxh3>(file);
}

bool fileHasChecksum(const std::filesystem::path& file, std::string_view checksum)
{
    if (checksum.starts_with(kXxh3Prefix))
        return fileChecksum(file) == checksum;
    return hashFile<Fnv64>(file) == checksum;
}

std::string headChecksum(const std::filesystem::path& file)
{
    constexpr std::uint64_t kPart = 64 * 1024;
    std::error_code ec;
    const std::uint64_t size = std::filesystem::file_size(file, ec);
    std::ifstream in(file, std::ios::binary);
    if (ec || !in)
        throw StoreError(file.string() + ": no such shard file");
    Fnv64 hash;
    const std::string sizeText = std::to_string(size);
    hash.add(sizeText.data(), sizeText.size());
    std::vector<char> buffer(kPart);
    for (const std::uint64_t offset : {std::uint64_t(0), size > kPart ? size - kPart : 0}) {
        in.clear();
        in.seekg(static_cast<std::streamoff>(offset));
        in.read(buffer.data(), static_cast<std::streamsize>(std::min(kPart, size)));
        hash.add(buffer.data(), static_cast<std::size_t>(in.gcount()));
    }
    return hash.hex();
}

RunManifest readRunManifest(SqliteDb& db, const std::filesystem::path& file)
{
    RunManifest run;
    auto meta = db.prepare("SELECT key, value FROM meta");
    while (meta.step())
        run.meta[std::string(meta.text(0))] = std::string(meta.text(1));
    const int version = std::atoi(run.meta["format_version"].c_str());
    if (version > kRunFormatVersion)
        throw StoreError(file.string() + ": run format version " + std::to_string(version)
                         + " is newer than this Strata reads (" + std::to_string(kRunFormatVersion)
                         + "); upgrade Strata");
    if (version < 1)
        throw StoreError(file.string() + ": corrupted manifest: bad format_version");
    readStrings(db, file, run.strings);
    readTracks(db, file, run.tracks);
    readStacks(db, file, run.strings.size(), run.stacks);

    auto shards = db.prepare("SELECT id, path, first_track, tracks, events, bytes, checksum,"
                             " head_checksum FROM shards ORDER BY id");
    std::int64_t nextTrack = 0;
    while (shards.step()) {
        RunShard s;
        s.path = shards.text(1);
        s.firstTrack = static_cast<model::TrackId>(shards.int64(2));
        s.tracks = shards.int64(3);
        s.events = shards.int64(4);
        s.bytes = static_cast<std::uint64_t>(shards.int64(5));
        s.checksum = shards.text(6);
        s.headChecksum = shards.text(7);
        if (shards.int64(0) != static_cast<std::int64_t>(run.shards.size()) || shards.int64(2) != nextTrack
            || s.tracks < 0)
            throw StoreError(file.string() + ": corrupted manifest: shard " + std::to_string(shards.int64(0))
                             + " does not continue the run's tracks");
        shardFile(file, s.path);  // refuses a path out of the folder before anything opens it
        nextTrack += s.tracks;
        run.shards.push_back(std::move(s));
    }
    if (run.shards.empty() || nextTrack != static_cast<std::int64_t>(run.tracks.size()))
        throw StoreError(file.string() + ": corrupted manifest: its shards do not cover its "
                         + std::to_string(run.tracks.size()) + " tracks");
    run.ids.resize(run.shards.size());
    auto ids = db.prepare("SELECT shard, kind, payload FROM shard_ids");
    while (ids.step()) {
        const std::int64_t shard = ids.int64(0);
        if (shard < 0 || shard >= static_cast<std::int64_t>(run.shards.size()))
            throw StoreError(file.string() + ": corrupted manifest: ids of an unknown shard");
        ShardIds& s = run.ids[static_cast<std::size_t>(shard)];
        if (ids.text(1) == "strings")
            s.strings = decodeIds(ids.blob(2), run.strings.size(), file);
        else if (ids.text(1) == "stacks")
            s.stacks = decodeIds(ids.blob(2), run.stacks.size(), file);
        else if (ids.text(1) == "foreign_tracks")
            s.foreignTracks = decodeIds(ids.blob(2), run.tracks.size(), file);
    }
    for (std::size_t i = 0; i < run.shards.size(); ++i) {
        run.ids[i].firstTrack = run.shards[i].firstTrack;
        run.ids[i].tracks = static_cast<model::TrackId>(run.shards[i].tracks);
    }
    return run;
}

void writeRunManifest(const std::filesystem::path& file, const RunManifest& run)
{
    SqliteDb db(file, SqliteDb::Mode::Create);
    db.exec("PRAGMA page_size=4096; PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF;");
    db.exec(kManifestSchemaSql);
    db.exec("BEGIN");
    std::map<std::string, std::string> meta = run.meta;
    meta["format"] = kRunFormatName;
    const bool foreign = std::any_of(run.ids.begin(), run.ids.end(),
        [](const ShardIds& ids) { return !ids.foreignTracks.empty(); });
    meta["format_version"] = std::to_string(foreign ? kRunFormatVersion : 1);
    auto insertMeta = db.prepare("INSERT INTO meta VALUES(?,?)");
    for (const auto& [k, v] : meta)
        insertMeta.bind(1, k).bind(2, v).run();
    auto insertShard = db.prepare("INSERT INTO shards VALUES(?,?,?,?,?,?,?,?)");
    for (std::size_t i = 0; i < run.shards.size(); ++i) {
        const RunShard& s = run.shards[i];
        insertShard.bind(1, std::int64_t(i)).bind(2, s.path).bind(3, std::int64_t(s.firstTrack))
            .bind(4, s.tracks).bind(5, s.events).bind(6, static_cast<std::int64_t>(s.bytes))
            .bind(7, s.checksum).bind(8, s.headChecksum).run();
    }
    writeStrings(db, run.strings);
    writeTracks(db, run.tracks);
    auto insertStack = db.prepare("INSERT INTO stacks VALUES(?,?,?)");
    for (model::StackId id = 1; id < run.stacks.size(); ++id)
        insertStack.bind(1, std::int64_t(id)).bind(2, std::int64_t(run.stacks.parent(id)))
            .bind(3, std::int64_t(run.stacks.frame(id))).run();
    auto insertIds = db.prepare("INSERT INTO shard_ids VALUES(?,?,?)");
    for (std::size_t i = 0; i < run.ids.size(); ++i) {
        insertIds.bind(1, std::int64_t(i)).bind(2, std::string_view("strings"))
            .bindBlob(3, encodeIds(run.ids[i].strings)).run();
        insertIds.bind(1, std::int64_t(i)).bind(2, std::string_view("stacks"))
            .bindBlob(3, encodeIds(run.ids[i].stacks)).run();
        if (!run.ids[i].foreignTracks.empty())
            insertIds.bind(1, std::int64_t(i))
                .bind(2, std::string_view("foreign_tracks"))
                .bindBlob(3, encodeIds(run.ids[i].foreignTracks))
                .run();
    }
    db.exec("COMMIT");
}

namespace {

/// The run's tracks by their path (track_sink.h: TrackPath), for the shards' foreign tracks.
class TrackPaths
{
public:
    explicit TrackPaths(const model::ResourceTree& tracks)
    {
        for (const model::TrackInfo& t : tracks.tracks()) {
            auto [it, added] = m_children.try_emplace({ t.parent, { t.name, t.sortKey } }, t.id);
            if (!added)
                it->second = kAmbiguous;
        }
    }

    /// The track at `path`; throws StoreError naming `shard` when there is none, or more
    /// than one (two siblings of the same name and sort key).
    model::TrackId resolve(const TrackPath& path, const std::string& shard) const
    {
        model::TrackId at = model::kNoTrack;
        std::string text;
        for (const TrackPathStep& step : path) {
            text += (text.empty() ? "'" : " / ") + step.name;
            auto it = m_children.find({ at, step });
            if (it == m_children.end() || it->second == kAmbiguous)
                throw StoreError("shard " + shard + ": a flow's target " + text + "' (sort key "
                    + std::to_string(step.sortKey) + ") is "
                    + (it == m_children.end() ? "no track of the run"
                                              : "not one track of the run but several"));
            at = it->second;
        }
        return at;
    }

private:
    static constexpr model::TrackId kAmbiguous = model::kNoTrack - 1;
    std::map<std::pair<model::TrackId, TrackPathStep>, model::TrackId> m_children;
};

} // namespace

RunManifest describeRun(const std::vector<std::filesystem::path>& files,
    const std::vector<std::string>& paths, const std::vector<std::string>& checksums,
    const std::map<std::string, std::string>& meta)
{
    RunManifest run;
    std::map<std::pair<model::StackId, model::StringId>, model::StackId> stackIds;
    auto cache = std::make_shared<SharedTileCache>(0, 0);
    std::vector<std::vector<TrackPath>> foreign;  // [shard], when any shard has some
    for (std::size_t i = 0; i < files.size(); ++i) {
        const ShardReader shard(files[i], {cache, 0, nullptr});
        if (!shard.foreignTracks().empty()) {
            foreign.resize(files.size());
            foreign[i] = shard.foreignTracks();
        }
        RunShard& s = run.shards.emplace_back();
        s.path = paths.at(i);
        s.firstTrack = static_cast<model::TrackId>(run.tracks.size());
        s.tracks = static_cast<std::int64_t>(shard.resources().size());
        for (const TrackSummary& t : shard.summaries())
            s.events += t.intervals + t.instants + t.counters + t.flows + t.samples;
        s.bytes = std::filesystem::file_size(files[i]);
        s.checksum = checksums.at(i);
        s.headChecksum = headChecksum(files[i]);
        ShardIds& ids = run.ids.emplace_back();
        ids.firstTrack = s.firstTrack;
        ids.tracks = static_cast<model::TrackId>(s.tracks);
        for (std::size_t id = 0; id < shard.strings().size(); ++id)
            ids.strings.push_back(run.strings.intern(shard.strings().text(model::StringId(id))));
        ids.stacks.push_back(0);
        for (model::StackId id = 1; id < shard.stacks().size(); ++id) {
            const std::pair key {ids.stacks[shard.stacks().parent(id)], ids.strings[shard.stacks().frame(id)]};
            auto [it, added] = stackIds.try_emplace(key, static_cast<model::StackId>(run.stacks.size()));
            if (added)
                run.stacks.add(key.first, key.second);
            ids.stacks.push_back(it->second);
        }
        for (model::TrackInfo t : shard.resources().tracks()) {
            t.id += s.firstTrack;
            if (t.parent != model::kNoTrack)
                t.parent += s.firstTrack;
            run.tracks.restore(std::move(t));
        }
        for (const auto& [key, value] : shard.allMeta()) {
            if (!isStoreOwnMeta(key))
                run.meta[key] = value;
        }
    }
    for (const auto& [key, value] : meta)
        run.meta[key] = value;
    if (!foreign.empty()) {
        const TrackPaths byPath(run.tracks);
        for (std::size_t i = 0; i < files.size(); ++i) {
            for (const TrackPath& path : foreign[i])
                run.ids[i].foreignTracks.push_back(byPath.resolve(path, paths.at(i)));
        }
    }
    return run;
}

} // namespace strata::storage
