#include "storage/store/run_builder.h"

#include "storage/store/builder_tag.h"
#include "storage/store/run_manifest.h"
#include "storage/store/sqlite_db.h"
#include "storage/store/tile_slots.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <exception>
#include <mutex>
#include <regex>
#include <set>
#include <thread>

namespace strata::storage {

namespace {

/// Whether a file of a shard folder is one Strata writes there (a published shard, or a
/// shard's temporary, builder or spill file): only those are ever removed, so a folder
/// that happens to carry the name keeps what else it holds.
bool isShardFile(const std::string& name)
{
    static const std::regex pattern(R"(shard-[0-9]{4,}-[0-9a-f]{12}\.strata|\.{1,2}shard-[0-9]{4,}\..*)");
    return std::regex_match(name, pattern);
}

/// Removes the temporary files in `folder` whose names start with one of `prefixes` and
/// whose builder no longer runs.
void removeDeadTemps(const std::filesystem::path& folder, const std::vector<std::string>& prefixes)
{
    std::error_code ec;
    for (const auto& entry : std::filesystem::directory_iterator(folder, ec)) {
        const std::string name = entry.path().filename().string();
        if (std::none_of(prefixes.begin(), prefixes.end(), [&](const std::string& p) { return name.starts_with(p); }))
            continue;
        if (builderGone(entry.path()))
            std::filesystem::remove(entry.path(), ec);
    }
}

/// The file names of the shards the run at `target` names (none for a single store).
std::set<std::string> runShardNames(const std::filesystem::path& target)
{
    std::set<std::string> names;
    try {
        SqliteDb db(target, SqliteDb::Mode::ReadOnly);
        auto rows = db.prepare("SELECT path FROM shards");
        while (rows.step())
            names.insert(std::filesystem::path(std::string(rows.text(0))).filename().string());
    } catch (const std::exception&) {
    }
    return names;
}

void fsyncFolder(const std::filesystem::path& folder)
{
    const int fd = ::open(folder.empty() ? "." : folder.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd >= 0) {
        ::fsync(fd);
        ::close(fd);
    }
}

} // namespace

void removeStaleRunFiles(const std::filesystem::path& target, const std::vector<std::string>& keep)
{
    const std::filesystem::path parent = target.parent_path().empty() ? "." : target.parent_path();
    removeDeadTemps(parent, {"." + target.filename().string() + "."});
    const std::filesystem::path folder = shardFolder(target);
    std::error_code ec;
    if (!std::filesystem::is_directory(folder, ec))
        return;
    const std::set<std::string> kept(keep.begin(), keep.end());
    for (const auto& entry : std::filesystem::directory_iterator(folder, ec)) {
        const std::string name = entry.path().filename().string();
        const bool temporary = name.starts_with(".");
        if (!isShardFile(name) || kept.count(name) || (temporary && !builderGone(entry.path())))
            continue;  // not ours, the run's, or another live build's
        std::filesystem::remove(entry.path(), ec);
    }
    std::filesystem::remove(folder, ec);  // only if empty
}

RunBuilder::RunBuilder(std::filesystem::path target, RunBuildOptions options)
    : m_target(std::move(target))
    , m_options(std::move(options))
{
    const int shards = std::max(1, m_options.shards);
    removeDeadTemps(m_target.parent_path().empty() ? "." : m_target.parent_path(),
                    {"." + m_target.filename().string() + "."});  // a killed single-store build's
    StoreBuildOptions shardOptions;
    shardOptions.threads = m_options.threads;
    shardOptions.zstdLevel = m_options.zstdLevel;
    shardOptions.memoryBudgetBytes = m_options.memoryBudgetBytes / static_cast<std::size_t>(shards);
    // The shards buffer events side by side, but are tiled one after another: a shard's
    // tracks are tiled in pieces past what the whole budget allows (track_pieces.h).
    shardOptions.pieceBytes = m_options.memoryBudgetBytes / 8;
    if (shards == 1) {
        shardOptions.progress = m_options.progress;
        if (m_options.abortShard == 0)
            shardOptions.abortAfterTiles = m_options.abortAfterTiles;
        m_shards.push_back(std::make_unique<StoreBuilder>(m_target, shardOptions));
        m_shardTemps.push_back(m_target);
        return;
    }
    prepareShardFolder(m_target);
    for (int i = 0; i < shards; ++i) {
        StoreBuildOptions o = shardOptions;
        if (m_options.abortShard == i)
            o.abortAfterTiles = m_options.abortAfterTiles;
        m_shardTemps.push_back(shardTempFile(m_target, i));
        m_shards.push_back(std::make_unique<StoreBuilder>(m_shardTemps.back(), o));
    }
}

RunBuilder::~RunBuilder()
{
    m_shards.clear();  // removes their temporary files
    std::error_code ec;
    if (m_shardTemps.size() > 1) {
        for (const auto& file : m_shardTemps)
            std::filesystem::remove(file, ec);
        std::filesystem::remove(shardFolder(m_target), ec);  // only if empty
    }
}

void RunBuilder::setMeta(std::string key, std::string value)
{
    if (m_shards.size() == 1)
        m_shards[0]->setMeta(key, value);
    m_meta[std::move(key)] = std::move(value);
}

std::uint64_t RunBuilder::eventCount() const
{
    std::uint64_t events = 0;
    for (const auto& shard : m_shards)
        events += shard->eventCount();
    return events;
}

void RunBuilder::finish()
{
    if (m_shards.size() == 1) {
        m_shards[0]->finish();  // removes an older run's shards at the same target
        return;
    }
    // Every shard gets the run's span, so all share one LOD grid.
    std::optional<model::TimeRange> span;
    std::size_t tracks = 0;
    for (const auto& shard : m_shards) {
        tracks += shard->resources().size();
        if (const auto s = shard->eventSpan())
            span = span ? model::TimeRange {std::min(span->startNs, s->startNs), std::max(span->endNs, s->endNs)}
                        : *s;
    }
    // Shards are tiled `concurrentShards` at a time, sharing the threads; the progress is
    // the tracks written of all shards, reported under a lock.
    const std::size_t concurrent =
        std::clamp<std::size_t>(static_cast<std::size_t>(m_options.concurrentShards), 1, m_shards.size());
    // Each shard tiled beside others gets a worker per core, all sharing one slot per
    // core: a shard that ends first gives its cores to those still tiling (with a fixed
    // share each, the last shard of a two-file ingest tiled on one core for ~10 % of it).
    const int threads = std::max(1, m_options.threads);
    const auto slots = concurrent > 1 ? std::make_shared<TileSlots>(threads) : nullptr;
    std::mutex progressMutex;
    std::vector<std::uint64_t> written(m_shards.size(), 0);
    std::uint64_t writtenAll = 0;
    for (std::size_t i = 0; i < m_shards.size(); ++i) {
        if (span)
            m_shards[i]->extendSpan(*span);
        m_shards[i]->setThreads(threads, slots);
        if (m_options.progress) {
            m_shards[i]->setProgress([&, i](std::uint64_t done, std::uint64_t) {
                std::lock_guard lock(progressMutex);
                writtenAll += done - written[i];
                written[i] = done;
                return m_options.progress(writtenAll, tracks);
            });
        }
    }
    // The shards waiting for their turn hold no events while others are tiled.
    for (std::size_t i = concurrent; i < m_shards.size(); ++i)
        m_shards[i]->spillEvents();
    std::atomic<std::size_t> next {0};
    std::vector<std::exception_ptr> errors(m_shards.size());
    // Each shard's checksum is taken by the thread that finished it, while the others are
    // still tiled: taken at publish, one shard after the other, they were a tenth of a
    // two-file JSON ingest (FNV-1a reads about a byte in 4 cycles).
    std::vector<std::string> checksums(m_shards.size());
    auto tile = [&] {
        for (std::size_t i = next++; i < m_shards.size(); i = next++) {
            try {
                m_shards[i]->finish();
                checksums[i] = fileChecksum(m_shardTemps[i]);
            } catch (...) {
                errors[i] = std::current_exception();
                next = m_shards.size();  // no new shard after a failure
            }
        }
    };
    std::vector<std::thread> workers;
    for (std::size_t t = 1; t < concurrent; ++t)
        workers.emplace_back(tile);
    tile();
    for (std::thread& w : workers)
        w.join();
    for (const std::exception_ptr& e : errors) {
        if (e)
            std::rethrow_exception(e);
    }
    publishRun(m_target, m_shardTemps, checksums, m_meta, m_options.abortBeforeManifest);
    m_shardTemps.clear();
}

std::filesystem::path shardTempFile(const std::filesystem::path& target, int index)
{
    char name[32];
    std::snprintf(name, sizeof name, ".shard-%04d.tmp.", index);
    return shardFolder(target) / (name + builderTag() + ".strata");
}

void prepareShardFolder(const std::filesystem::path& target)
{
    const std::filesystem::path folder = shardFolder(target);
    std::error_code ec;
    std::filesystem::create_directories(folder, ec);
    if (ec)
        throw StoreError("cannot create " + folder.string() + ": " + ec.message());
    removeDeadTemps(target.parent_path().empty() ? "." : target.parent_path(), {"." + target.filename().string() + "."});
    removeDeadTemps(folder, {".shard-", "..shard-"});
}

void publishRun(const std::filesystem::path& target,
    const std::vector<std::filesystem::path>& shardFiles, const std::vector<std::string>& checksums,
    const std::map<std::string, std::string>& meta, bool abortBeforeManifest)
{
    // The tag of the run's content names its shards: equal names, equal bytes.
    std::string allChecksums;
    for (const std::string& checksum : checksums)
        allChecksums += checksum;
    const std::filesystem::path folder = shardFolder(target);
    const std::string tag = textChecksum(allChecksums).substr(0, 12);
    std::vector<std::string> names, paths;
    for (std::size_t i = 0; i < shardFiles.size(); ++i) {
        char name[64];
        std::snprintf(name, sizeof name, "shard-%04zu-%s.strata", i, tag.c_str());
        names.push_back(name);
        paths.push_back(folder.filename().string() + "/" + name);
    }
    RunManifest manifest = describeRun(shardFiles, paths, checksums, meta);
    const std::filesystem::path temp = target.parent_path()
        / ("." + target.filename().string() + ".tmp." + builderTag());
    std::error_code ec;
    std::filesystem::remove(temp, ec);
    try {
        writeRunManifest(temp, manifest);
        for (std::size_t i = 0; i < shardFiles.size(); ++i)
            std::filesystem::rename(shardFiles[i], folder / names[i]);
        fsyncFolder(folder);
        if (abortBeforeManifest)
            throw std::runtime_error("run publish aborted by the debug hook before the manifest");
        std::filesystem::rename(temp, target);
        fsyncFolder(target.parent_path());
    } catch (...) {
        // Shards already renamed that the old store does not name go again.
        const std::set<std::string> old = runShardNames(target);
        for (std::size_t i = 0; i < names.size(); ++i) {
            if (!old.count(names[i]))
                std::filesystem::remove(folder / names[i], ec);
        }
        std::filesystem::remove(temp, ec);
        throw;
    }
    removeStaleRunFiles(target, names);
}

} // namespace strata::storage
