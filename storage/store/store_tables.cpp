#include "storage/store/store_tables.h"

#include "storage/store/sqlite_db.h"
#include "storage/store/store_schema.h"

namespace strata::storage {

void readStrings(SqliteDb& db, const std::filesystem::path& file, model::StringTable& out)
{
    auto strings = db.prepare("SELECT id, text FROM strings ORDER BY id");
    while (strings.step()) {
        if (strings.int64(0) != static_cast<std::int64_t>(out.size()) && strings.int64(0) != 0)
            throw StoreError(file.string() + ": corrupted store: string ids are not dense");
        if (strings.int64(0) != 0)
            out.intern(strings.text(1));
    }
}

void readTracks(SqliteDb& db, const std::filesystem::path& file, model::ResourceTree& out)
{
    auto tracks = db.prepare("SELECT id, parent, kind, name, sort_key, unit FROM tracks ORDER BY id");
    while (tracks.step()) {
        model::TrackInfo t;
        t.id = static_cast<model::TrackId>(tracks.int64(0));
        t.parent = tracks.isNull(1) ? model::kNoTrack : static_cast<model::TrackId>(tracks.int64(1));
        auto kind = model::parseResourceKind(tracks.text(2));
        if (!kind || t.id != out.size() || (t.parent != model::kNoTrack && t.parent >= t.id))
            throw StoreError(file.string() + ": corrupted store: bad track " + std::to_string(t.id));
        t.kind = *kind;
        t.name = tracks.text(3);
        t.sortKey = tracks.int64(4);
        t.unit = tracks.text(5);
        out.restore(std::move(t));
    }
}

void readStacks(SqliteDb& db, const std::filesystem::path& file, std::size_t strings, model::StackTable& out)
{
    auto stacks = db.prepare("SELECT id, parent, frame FROM stacks ORDER BY id");
    while (stacks.step()) {
        const std::int64_t id = stacks.int64(0);
        const std::int64_t parent = stacks.int64(1);
        const std::int64_t frame = stacks.int64(2);
        if (id != static_cast<std::int64_t>(out.size()) || parent < 0 || parent >= id || frame < 0
            || frame >= static_cast<std::int64_t>(strings))
            throw StoreError(file.string() + ": corrupted store: bad stack " + std::to_string(id));
        out.add(static_cast<model::StackId>(parent), static_cast<model::StringId>(frame));
    }
}

std::vector<TrackPath> readForeignTracks(SqliteDb& db, const std::filesystem::path& file)
{
    std::vector<TrackPath> out;
    if (!db.hasTable("foreign_tracks"))
        return out;
    auto rows =
        db.prepare("SELECT id, depth, name, sort_key FROM foreign_tracks ORDER BY id, depth");
    while (rows.step()) {
        const std::int64_t id = rows.int64(0);
        const std::int64_t depth = rows.int64(1);
        if (id == static_cast<std::int64_t>(out.size()) && depth == 0)
            out.emplace_back();
        if (out.empty() || id != static_cast<std::int64_t>(out.size()) - 1
            || depth != static_cast<std::int64_t>(out.back().size()))
            throw StoreError(
                file.string() + ": corrupted store: bad foreign track " + std::to_string(id));
        out.back().push_back({ std::string(rows.text(2)), rows.int64(3) });
    }
    return out;
}

void writeStrings(SqliteDb& db, const model::StringTable& strings)
{
    auto insert = db.prepare("INSERT INTO strings VALUES(?,?)");
    for (std::size_t i = 0; i < strings.size(); ++i)
        insert.bind(1, std::int64_t(i)).bind(2, strings.text(model::StringId(i))).run();
}

void writeTracks(SqliteDb& db, const model::ResourceTree& tracks)
{
    auto insert = db.prepare("INSERT INTO tracks VALUES(?,?,?,?,?,?)");
    for (const model::TrackInfo& t : tracks.tracks()) {
        insert.bind(1, std::int64_t(t.id));
        if (t.parent != model::kNoTrack)
            insert.bind(2, std::int64_t(t.parent));
        insert.bind(3, model::resourceKindName(t.kind)).bind(4, t.name).bind(5, t.sortKey)
            .bind(6, t.unit).run();
    }
}

void writeForeignTracks(SqliteDb& db, const std::vector<TrackPath>& foreign)
{
    db.exec(kForeignTracksSql);
    auto insert = db.prepare("INSERT INTO foreign_tracks VALUES(?,?,?,?)");
    for (std::size_t id = 0; id < foreign.size(); ++id) {
        for (std::size_t depth = 0; depth < foreign[id].size(); ++depth)
            insert.bind(1, std::int64_t(id))
                .bind(2, std::int64_t(depth))
                .bind(3, foreign[id][depth].name)
                .bind(4, foreign[id][depth].sortKey)
                .run();
    }
}

} // namespace strata::storage
