#pragma once
// The tables a store and a run's manifest share (store_schema.h, run_manifest.h):
// strings, tracks and stacks, read with their consistency checks and written in id order.

#include "model/resource_tree.h"
#include "model/stack_table.h"
#include "model/string_table.h"
#include "storage/store/trace_sink.h"

#include <filesystem>

namespace strata::storage {

class SqliteDb;

/// Each reader throws StoreError naming `file` for ids that are not dense or point nowhere.
void readStrings(SqliteDb& db, const std::filesystem::path& file, model::StringTable& out);
void readTracks(SqliteDb& db, const std::filesystem::path& file, model::ResourceTree& out);
/// Frames must be string ids below `strings`.
void readStacks(SqliteDb& db, const std::filesystem::path& file, std::size_t strings,
                model::StackTable& out);

/// A shard's foreign tracks (store_schema.h), empty when it has no such table.
std::vector<TrackPath> readForeignTracks(SqliteDb& db, const std::filesystem::path& file);

void writeStrings(SqliteDb& db, const model::StringTable& strings);
void writeTracks(SqliteDb& db, const model::ResourceTree& tracks);
/// Creates the foreign_tracks table and fills it.
void writeForeignTracks(SqliteDb& db, const std::vector<TrackPath>& foreign);

} // namespace strata::storage
