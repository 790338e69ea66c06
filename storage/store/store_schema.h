#pragma once
// The SQLite schema of a Strata store and its format version.
//
//   meta(key, value)                 format, format_version, lod_*, span, origin, source
//   strings(id, text)                interned names, categories
//   tracks(id, parent, kind, name, sort_key, unit)
//   track_stats(track, intervals, instants, counters, flows, samples, first_ns, last_ns,
//               max_depth, interval_level, instant_level, counter_level)
//                                    *_level: the finest summary level stored (levels
//                                    below it were not worth storing: read exact events)
//   bands(track, band, count, max_duration_ns)   interval duration bands (lod_grid.h)
//   categories(category, intervals, total_ns)    interval counts and time per category
//   stacks(id, parent, frame)        interned call stacks, 0 = root
//   kernel_metrics(track, start_ns, metric, value, unit)
//                                    per-kernel hardware counters (Nsight Compute): the
//                                    kernel is the interval of `track` starting at
//                                    start_ns; metric and unit are string ids. Stores
//                                    written before it existed lack the table.
//   tiles(id, track, kind, level, idx, t0, t1, n, payload)
//       exact tiles:   level = band, idx = sequence, t0 = first start, t1 = max end
//       summary tiles: level >= 1,   idx = bucket / kBucketsPerTile, [t0, t1) its span
//   tile_index(track, payload)       the columns above for every tile of one track, as one
//       zstd blob (tile_codec.h): the reader loads a track's index with one row read,
//       binary-searches it, and fetches payloads by id.
//   flame_levels(track, finest, coarsest)
//                                    the flame pyramid (flame_summarizer.h): summary
//                                    levels finest..coarsest of `track` hold flame bucket
//                                    rows; tracks without a row have none (small tracks,
//                                    improper nesting) and flame graphs walk their events.
//   flame_paths(track, payload)      interval tracks: the call paths their buckets name
//                                    (flame_codec.h); sample tracks name `stacks` ids.
//   flame_bucket_groups(track, level, grp, payload)
//                                    the pre-aggregated call trees of the buckets of width
//                                    LodGrid::bucketNs(level) (levels may pass lod_levels)
//                                    in [grp, grp + 1) x kFlameBucketsPerGroup that are not
//                                    empty (flame_codec.h); a group of empty buckets has no
//                                    row. A rowid table with an index on the key: in a
//                                    WITHOUT ROWID table a row over ~230 bytes (a 1 KiB
//                                    page) goes to overflow pages, half of whose last one
//                                    stays empty (+4.7 % for epoch_16proc.prv's store).
//   flame_buckets(track, level, bucket, payload)
//                                    format version 6 and older, in place of the groups:
//                                    the call tree of one bucket a row.
//       A store of version 7 none of whose tracks has a pyramid lacks the flame tables.
//       Stores written before the flame pyramid lack them too; they stay format version 1
//       (the tables are optional, like kernel_metrics) and their flame graphs walk the
//       exact events.
//
// Format version 2 writes counter and counter summary tiles at codec version 2
// (tile_codec.h) and may leave out a summary level of instants or counters that reduces
// little over the stored level below it (track_tiler.cpp); a query at its zoom reads that
// level. Version 1 stores (every level from the finest stored, codec version 1) still
// read; a version 1 reader refuses version 2 stores as newer.
//
// Format version 3 is version 2 plus one table, written only by a shard of a run whose
// flows reach tracks that other shards hold (run_manifest.h); every other store stays
// version 2, byte for byte:
//   foreign_tracks(id, depth, name, sort_key)
//                                    foreign track `id` (0, 1, ...) is the run's track at
//                                    the path of (name, sort_key) from a root (depth 0)
//                                    down; a flow to it has toTrack = the store's track
//                                    count + id. The run's manifest resolves it; opened
//                                    alone, such a shard is refused (it is not a whole
//                                    trace), and a version 2 reader refuses it as newer.
//
// Format version 4 is version 3 with interval summary tiles at codec version 2 (a drawn
// part and a detail part in two zstd frames, tile_codec.cpp), written by every store,
// with or without foreign_tracks; readers of versions up to 3 refuse it as newer.
//
// Format version 5 is version 4 with exact interval and instant tiles at codec version 2:
// their args stored by member (args_codec.h). Readers of versions up to 4 refuse it as
// newer.
//
// Format version 6 is version 5 with exact interval and instant tiles at codec version 3:
// arrays of whole numbers in their args (Kineto's grid and block) stored as a number
// column per element (args_codec.h). Readers of versions up to 5 refuse it as newer.
//
// Format version 7 (this one) is version 6 with the flame pyramid's buckets in
// flame_bucket_groups, kFlameBucketsPerGroup to a row, where flame_buckets held one a row.
// Readers of versions up to 6 refuse it as newer, and this reads every older store.
//
// Nothing here assumes one writer for the whole run: a shard holds a subset of tracks
// with the same schema, and ids are local to the file.

namespace strata::storage {

/// The newest format this reads, and the one it writes.
inline constexpr int kStoreFormatVersion = 7;
inline constexpr const char* kStoreFormatName = "strata";

inline constexpr const char* kStoreSchemaSql = R"sql(
CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID;
CREATE TABLE strings(id INTEGER PRIMARY KEY, text TEXT NOT NULL);
CREATE TABLE tracks(id INTEGER PRIMARY KEY, parent INTEGER, kind TEXT NOT NULL,
                    name TEXT NOT NULL, sort_key INTEGER NOT NULL, unit TEXT NOT NULL);
CREATE TABLE track_stats(track INTEGER PRIMARY KEY, intervals INTEGER, instants INTEGER,
                         counters INTEGER, flows INTEGER, samples INTEGER,
                         first_ns INTEGER, last_ns INTEGER, max_depth INTEGER,
                         interval_level INTEGER, instant_level INTEGER, counter_level INTEGER);
CREATE TABLE bands(track INTEGER, band INTEGER, count INTEGER, max_duration_ns INTEGER,
                   PRIMARY KEY(track, band)) WITHOUT ROWID;
CREATE TABLE categories(category INTEGER PRIMARY KEY, intervals INTEGER, total_ns INTEGER);
CREATE TABLE stacks(id INTEGER PRIMARY KEY, parent INTEGER NOT NULL, frame INTEGER NOT NULL);
CREATE TABLE tiles(id INTEGER PRIMARY KEY, track INTEGER NOT NULL, kind INTEGER NOT NULL,
                   level INTEGER NOT NULL, idx INTEGER NOT NULL, t0 INTEGER NOT NULL,
                   t1 INTEGER NOT NULL, n INTEGER NOT NULL, payload BLOB NOT NULL);
CREATE TABLE tile_index(track INTEGER PRIMARY KEY, payload BLOB NOT NULL);
CREATE TABLE kernel_metrics(track INTEGER NOT NULL, start_ns INTEGER NOT NULL,
                            metric INTEGER NOT NULL, value REAL NOT NULL, unit INTEGER NOT NULL,
                            PRIMARY KEY(track, start_ns, metric)) WITHOUT ROWID;
CREATE TABLE flame_levels(track INTEGER PRIMARY KEY, finest INTEGER NOT NULL,
                          coarsest INTEGER NOT NULL);
CREATE TABLE flame_paths(track INTEGER PRIMARY KEY, payload BLOB NOT NULL);
CREATE TABLE flame_bucket_groups(track INTEGER NOT NULL, level INTEGER NOT NULL,
                                 grp INTEGER NOT NULL, payload BLOB NOT NULL);
CREATE UNIQUE INDEX flame_bucket_groups_key ON flame_bucket_groups(track, level, grp);
)sql";

inline constexpr const char* kForeignTracksSql = R"sql(
CREATE TABLE foreign_tracks(id INTEGER NOT NULL, depth INTEGER NOT NULL, name TEXT NOT NULL,
                            sort_key INTEGER NOT NULL, PRIMARY KEY(id, depth)) WITHOUT ROWID;
)sql";

} // namespace strata::storage
