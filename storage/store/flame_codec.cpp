#include "storage/store/flame_codec.h"

#include "storage/store/byte_io.h"
#include "storage/store/tile_codec.h"

namespace strata::storage {

namespace {

/// A row count that the remaining bytes can hold (each row takes at least `minBytes`).
std::uint64_t rowCount(ByteReader& in, std::uint64_t minBytes)
{
    const std::uint64_t n = in.varint();
    if (n > in.remaining() / minBytes)
        throw CorruptTile("flame payload claims more rows than it holds");
    return n;
}

std::uint32_t id32(std::uint64_t v)
{
    if (v > 0xFFFFFFFFu)
        throw CorruptTile("flame payload holds an id beyond 32 bits");
    return static_cast<std::uint32_t>(v);
}

}  // namespace

std::string encodeFlameBucket(const FlameBucket& bucket, int zstdLevel)
{
    ByteWriter out;
    out.varint(static_cast<std::uint64_t>(bucket.samples));
    out.varint(bucket.entries.size());
    std::uint32_t previous = 0;
    for (const FlameEntry& e : bucket.entries) {
        out.varint(e.path - previous);
        previous = e.path;
    }
    for (const FlameEntry& e : bucket.entries)
        out.svarint(e.weight);
    return wrapPayload(TileKind::FlameBucket, out.bytes(), zstdLevel);
}

FlameBucket decodeFlameBucket(std::string_view payload)
{
    const std::string raw = unwrapPayload(TileKind::FlameBucket, payload);
    ByteReader in(raw);
    FlameBucket bucket;
    bucket.samples = static_cast<std::int64_t>(in.varint());
    if (bucket.samples < 0)
        throw CorruptTile("flame bucket holds a negative sample count");
    bucket.entries.resize(rowCount(in, 2));
    std::uint64_t path = 0;
    for (std::size_t i = 0; i < bucket.entries.size(); ++i) {
        const std::uint64_t step = in.varint();
        if (i > 0 && step == 0)
            throw CorruptTile("flame bucket paths do not ascend");
        path += step;
        bucket.entries[i].path = id32(path);
    }
    for (FlameEntry& e : bucket.entries)
        e.weight = in.svarint();
    if (!in.atEnd())
        throw CorruptTile("flame bucket has bytes after its last column");
    return bucket;
}

void appendToFlameGroup(ByteWriter& row, std::int64_t bucket, std::string_view payload)
{
    row.varint(static_cast<std::uint64_t>(bucket & (kFlameBucketsPerGroup - 1)));  // its offset
    row.string(payload);
}

void decodeFlameGroup(std::string_view row, std::int64_t group, std::int64_t firstBucket,
    std::int64_t endBucket, std::vector<FlameBucket>& out)
{
    ByteReader in(row);
    if (in.atEnd())
        throw CorruptTile("flame bucket group holds no bucket");
    std::uint64_t next = 0;  // the least offset the next bucket may have
    while (!in.atEnd()) {
        const std::uint64_t offset = in.varint();
        if (offset < next || offset >= std::uint64_t(kFlameBucketsPerGroup))
            throw CorruptTile("flame bucket group's buckets do not ascend within it");
        next = offset + 1;
        const std::string_view payload = in.string();
        const std::int64_t bucket = (group << kFlameGroupLog2) + static_cast<std::int64_t>(offset);
        if (bucket < firstBucket || bucket >= endBucket)
            continue;
        out.push_back(decodeFlameBucket(payload));
        out.back().bucket = bucket;
    }
}

std::string encodeFlamePaths(const model::StackTable& paths, int zstdLevel)
{
    ByteWriter out;
    out.varint(paths.size() - 1);
    for (model::StackId id = 1; id < paths.size(); ++id)
        out.varint(id - paths.parent(id));
    for (model::StackId id = 1; id < paths.size(); ++id)
        out.varint(paths.frame(id));
    return wrapPayload(TileKind::FlamePaths, out.bytes(), zstdLevel);
}

model::StackTable decodeFlamePaths(std::string_view payload)
{
    const std::string raw = unwrapPayload(TileKind::FlamePaths, payload);
    ByteReader in(raw);
    const std::uint64_t n = rowCount(in, 2);
    std::vector<model::StackId> parents(n);
    for (std::uint64_t i = 0; i < n; ++i) {
        const std::uint64_t step = in.varint();
        if (step == 0 || step > i + 1)
            throw CorruptTile("flame path has a parent that does not precede it");
        parents[i] = static_cast<model::StackId>(i + 1 - step);
    }
    model::StackTable paths;
    for (std::uint64_t i = 0; i < n; ++i)
        paths.add(parents[i], id32(in.varint()));
    if (!in.atEnd())
        throw CorruptTile("flame paths have bytes after their last column");
    return paths;
}

}  // namespace strata::storage
