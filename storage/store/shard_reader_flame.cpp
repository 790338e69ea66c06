// ShardReader's access to the flame pyramid (flame_summarizer.h, store_schema.h): kept
// apart from the viewport queries of shard_reader_query.cpp.
#include "storage/store/byte_io.h"
#include "storage/store/flame_codec.h"
#include "storage/store/shard_reader.h"

#include <limits>

namespace strata::storage {

namespace {

/// Whether bucketNs(level) fits in a TimeNs (flame levels continue past lod_levels).
bool levelFits(const model::LodGrid& grid, std::int64_t level)
{
    model::TimeNs w = grid.baseBucketNs;
    for (std::int64_t l = 1; l < level; ++l) {
        if (w > (std::numeric_limits<model::TimeNs>::max() >> grid.factorLog2))
            return false;
        w <<= grid.factorLog2;
    }
    return true;
}

}  // namespace

void ShardReader::loadFlameLevels()
{
    m_flameLevels.assign(m_resources.size(), std::nullopt);
    if (!m_db->hasTable("flame_levels"))
        return;  // written before the pyramid existed, or none of its tracks has one
    m_flameGroups = m_db->hasTable("flame_bucket_groups");
    auto rows = m_db->prepare("SELECT track, finest, coarsest FROM flame_levels");
    while (rows.step()) {
        const std::int64_t track = rows.int64(0);
        const std::int64_t finest = rows.int64(1);
        const std::int64_t coarsest = rows.int64(2);
        if (track < 0 || track >= static_cast<std::int64_t>(m_resources.size()) || finest < 1
            || finest > coarsest || !levelFits(m_grid, coarsest))
            throw StoreError(m_path.string() + ": corrupted store: bad flame levels of track "
                + std::to_string(track));
        m_flameLevels[static_cast<std::size_t>(track)] =
            FlameLevelRange { static_cast<int>(finest), static_cast<int>(coarsest) };
    }
}

std::optional<FlameLevelRange> ShardReader::flameLevels(model::TrackId track) const
{
    return track < m_flameLevels.size() ? m_flameLevels[track] : std::nullopt;
}

std::vector<FlameBucket> ShardReader::flameBuckets(
    model::TrackId track, int level, std::int64_t firstBucket, std::int64_t endBucket)
{
    std::vector<FlameBucket> out;
    if (!m_flameLevels.at(track))
        return out;
    if (!m_flameBucketStmt) {
        m_flameBucketStmt.emplace(m_db->prepare(m_flameGroups
                ? "SELECT grp, payload FROM flame_bucket_groups"
                  " WHERE track = ? AND level = ? AND grp >= ? AND grp <= ? ORDER BY grp"
                : "SELECT bucket, payload FROM flame_buckets"
                  " WHERE track = ? AND level = ? AND bucket >= ? AND bucket < ? ORDER BY bucket"));
    }
    if (firstBucket >= endBucket)
        return out;
    SqliteStatement& rows = *m_flameBucketStmt;
    rows.reset();
    rows.bind(1, std::int64_t(track))
        .bind(2, std::int64_t(level))
        .bind(3, m_flameGroups ? flameGroup(firstBucket) : firstBucket)
        .bind(4, m_flameGroups ? flameGroup(endBucket - 1) : endBucket);
    while (rows.step()) {
        const std::size_t first = out.size();
        try {
            if (m_flameGroups) {
                decodeFlameGroup(rows.blob(1), rows.int64(0), firstBucket, endBucket, out);
            } else {
                out.push_back(decodeFlameBucket(rows.blob(1)));
                out.back().bucket = rows.int64(0);
            }
            // Sample trees name stacks; interval trees name the track's own paths.
            for (std::size_t i = first; i < out.size(); ++i) {
                if (m_context.ids && out[i].samples > 0)
                    m_context.ids->applyToSampleBucket(out[i]);
            }
        } catch (const CorruptTile& e) {
            throw StoreError(m_path.string() + ": corrupted flame bucket of track "
                + std::to_string(track) + ": " + e.what());
        }
    }
    return out;
}

model::StackTable ShardReader::flamePaths(model::TrackId track)
{
    auto row = m_db->prepare("SELECT payload FROM flame_paths WHERE track = ?");
    row.bind(1, std::int64_t(track));
    if (!row.step())
        return {};
    try {
        model::StackTable paths = decodeFlamePaths(row.blob(0));
        if (!m_context.ids)
            return paths;
        model::StackTable run;
        for (model::StackId id = 1; id < paths.size(); ++id)
            run.add(paths.parent(id), m_context.ids->string(paths.frame(id)));
        return run;
    } catch (const CorruptTile& e) {
        throw StoreError(m_path.string() + ": corrupted flame paths of track "
            + std::to_string(track) + ": " + e.what());
    }
}

}  // namespace strata::storage
