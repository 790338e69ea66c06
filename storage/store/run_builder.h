#pragma once
// RunBuilder builds a run of shards (run_manifest.h): one StoreBuilder per shard, each fed
// independently (by its own thread: one worker per group of input files, or a router that
// sends each group of ranks to its shard), then published as one run.
//
//   shard(i).add*()  ──finish()──>  run span ──> each shard tiled with the run's grid,
//   (any thread per shard)                       under a temporary name in run.strata.d/
//                                   ──> manifest written under a temporary name
//                                   ──> shards renamed, manifest renamed over run.strata
//                                   ──> files of the folder no manifest names are removed
//
// Crash safety: until the manifest's rename nothing at the target changes, and a shard's
// final name holds a tag of the whole run's content, so it replaces an old shard only with
// the same bytes. A failure, a cancel or kill -9 at any moment leaves the old store (single
// or run) as it was; temporary files are removed on failure, and the leftovers of a killed
// build (names carrying a process id that no longer runs) by the next build at the same
// target. With one shard it is a StoreBuilder at the target: a single store, no manifest.
//
// Memory: the budget is shared by the shards (each gets budget / shards, spilling beyond
// it), and shards are tiled `concurrentShards` at a time (default one), on `threads`
// cores in all (TileSlots); the shards waiting for their turn spill what they hold first.

#include "storage/store/store_builder.h"

#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace strata::storage {

struct RunBuildOptions
{
    int shards = 1;
    int threads = 2;  ///< tiling workers, shared by the shards tiled at once
    /// Shards tiled at once (their workers sharing `threads` cores): parallel files
    /// parsed into shards tile side by side; a router's shards (one producer) one by one,
    /// so that only one shard's tracks are in memory.
    int concurrentShards = 1;
    int zstdLevel = 6;
    /// All shards together; events beyond it go to spill files (spill_file.h).
    std::size_t memoryBudgetBytes = std::size_t(512) << 20;
    /// Called with tracks written / tracks of all shards.
    ProgressFn progress;
    /// Debug hook for fault-injection tests: the shard that throws when finished (after
    /// writing `abortAfterTiles` tiles), -1 for none.
    int abortShard = -1;
    std::int64_t abortAfterTiles = 0;
    /// Debug hook: throw after the shards are renamed, before the manifest is.
    bool abortBeforeManifest = false;
};

class RunBuilder
{
public:
    /// Removes what killed builds left at `target`; throws StoreError when the target's
    /// folder does not take new files.
    RunBuilder(std::filesystem::path target, RunBuildOptions options);
    ~RunBuilder();
    RunBuilder(const RunBuilder&) = delete;
    RunBuilder& operator=(const RunBuilder&) = delete;

    int shardCount() const { return static_cast<int>(m_shards.size()); }
    StoreBuilder& shard(int index) { return *m_shards.at(static_cast<std::size_t>(index)); }
    /// Meta of the run (in the manifest; in the store itself for one shard).
    void setMeta(std::string key, std::string value);
    std::uint64_t eventCount() const;

    /// Builds and publishes the run. Throws on failure, leaving nothing behind.
    void finish();

private:
    std::filesystem::path m_target;
    RunBuildOptions m_options;
    std::vector<std::unique_ptr<StoreBuilder>> m_shards;
    std::vector<std::filesystem::path> m_shardTemps;  ///< what shard i is finished into
    std::map<std::string, std::string> m_meta;
};

/// The pieces RunBuilder is made of, for builders of one run in several processes (the
/// ranks of `strata-mpi ingest`):
/// - creates `target`'s shard folder and removes the leftovers of killed builds there;
void prepareShardFolder(const std::filesystem::path& target);
/// - the temporary name shard `index` of this process is finished into (StoreBuilder);
std::filesystem::path shardTempFile(const std::filesystem::path& target, int index);
/// - publishes finished shard files (in track order), with their fileChecksum()s, as the
///   run at `target`: renames them into its shard folder under names that carry a tag of
///   the run's content, writes the manifest with `meta` and renames it over `target` last,
///   then removes the files of the folder it does not name. On failure, nothing at
///   `target` changed.
void publishRun(const std::filesystem::path& target,
    const std::vector<std::filesystem::path>& shardFiles, const std::vector<std::string>& checksums,
    const std::map<std::string, std::string>& meta, bool abortBeforeManifest = false);

/// Removes, next to `target` and in its shard folder, the temporary files of builds whose
/// process no longer runs, and in the shard folder every other file that `keep` (file
/// names) does not list; removes the folder when it ends up empty.
void removeStaleRunFiles(const std::filesystem::path& target, const std::vector<std::string>& keep);

} // namespace strata::storage
