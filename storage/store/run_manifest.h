#pragma once
// A run of shards: the manifest (`run.strata`, a small SQLite file) and its shards
// (ordinary stores, each a contiguous range of the run's tracks) in the folder beside it,
// `run.strata.d/`. The manifest keeps:
//
//   meta(key, value)       format 'strata-run', format_version, span, origin, source, the
//                          import report ("import.N.*") of every input
//   shards(id, path, first_track, tracks, events, bytes, checksum, head_checksum)
//                          path: relative to the manifest's folder, never outside it;
//                          checksum: XXH3-64 of the whole file ("xxh3:" + hex; older
//                          manifests: FNV-1a 64, hex alone, still verified; a Strata
//                          from before reads runs written now, but its `info --verify`
//                          takes their shards for altered); head_checksum: FNV-1a 64 of
//                          its size and first and last 64 KiB, checked at every open
//   strings(id, text), tracks(id, parent, kind, name, sort_key, unit), stacks(id, parent,
//                          frame)      the run's tables (a store's, shard_ids.h)
//   shard_ids(shard, kind, payload)    kind 'strings' | 'stacks': the run's id of each
//                          of the shard's local ids, as little-endian u32; kind
//                          'foreign_tracks' (format version 2): the run's track of each
//                          of the shard's foreign tracks (store_schema.h), the targets of
//                          its flows that other shards hold
//
// Shards are built independently and share the LOD grid (the run's span), the time origin
// and nothing else; describeRun() merges their tables, in shard order, into a manifest.

#include "model/resource_tree.h"
#include "model/stack_table.h"
#include "model/string_table.h"
#include "storage/store/shard_ids.h"

#include <filesystem>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace strata::storage {

class SqliteDb;

inline constexpr const char* kRunFormatName = "strata-run";
/// The newest manifest format this reads. A run whose flows stay inside their shards is
/// written as version 1, byte for byte as before flows could cross shards; one with
/// foreign tracks as version 2, which older readers refuse as newer.
inline constexpr int kRunFormatVersion = 2;

struct RunShard
{
    std::string path;  ///< relative to the manifest's folder
    model::TrackId firstTrack = 0;
    std::int64_t tracks = 0;
    std::int64_t events = 0;
    std::uint64_t bytes = 0;
    std::string checksum;
    std::string headChecksum;
};

struct RunManifest
{
    std::map<std::string, std::string> meta;
    model::StringTable strings;
    model::ResourceTree tracks;
    model::StackTable stacks;
    std::vector<RunShard> shards;
    std::vector<ShardIds> ids;  ///< [shard]
};

/// Reads a manifest opened as `db` (whose meta says it is one); throws StoreError naming
/// `file` for anything inconsistent, and for a shard path that is absolute or leaves the
/// manifest's folder.
RunManifest readRunManifest(SqliteDb& db, const std::filesystem::path& file);
/// Writes `manifest` as a new SQLite file at `file` (which must not exist).
void writeRunManifest(const std::filesystem::path& file, const RunManifest& manifest);

/// The file a manifest's shard path names; throws StoreError when it is absolute or
/// leaves the manifest's folder (by "..", or by a symbolic link).
std::filesystem::path shardFile(const std::filesystem::path& manifest, const std::string& path);
/// The folder a run's shards live in: "run.strata" -> "run.strata.d".
std::filesystem::path shardFolder(const std::filesystem::path& manifest);

/// The bytes a store takes on disk: the file, and a run's shard folder.
std::uint64_t storeBytes(const std::filesystem::path& store);

/// FNV-1a 64 of `text`, as 16 hex digits.
std::string textChecksum(std::string_view text);
/// XXH3-64 of every byte of `file`, as "xxh3:" and 16 hex digits. (Manifests written
/// before hold FNV-1a 64, which reads a byte in ~4 cycles: ~2 % of the CPU of a two-file
/// JSON ingest, and the last shard's checksum delays the publish.)
std::string fileChecksum(const std::filesystem::path& file);
/// Whether `file`'s bytes have `checksum`: a fileChecksum(), or the FNV-1a 64 (16 hex
/// digits alone) of manifests written before.
bool fileHasChecksum(const std::filesystem::path& file, std::string_view checksum);
/// The same over the file's size and its first and last 64 KiB: cheap enough for every
/// open, and a replaced or truncated shard changes it.
std::string headChecksum(const std::filesystem::path& file);

/// The manifest of finished shard files (in track order, to be found at `paths`, relative
/// to the manifest's folder, their fileChecksum()s in `checksums`): the run's tables
/// merged in shard order, each shard's counts and checksums, its foreign tracks resolved
/// to the run's (StoreError naming the shard and the path when one names no track of the
/// run, or several), and `meta` over the shards' own meta (import reports).
RunManifest describeRun(const std::vector<std::filesystem::path>& files,
    const std::vector<std::string>& paths, const std::vector<std::string>& checksums,
    const std::map<std::string, std::string>& meta);

} // namespace strata::storage
