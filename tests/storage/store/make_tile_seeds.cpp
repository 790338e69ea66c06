// Writes the seed corpus of tile_codec_fuzz into the folder given on the command line: one
// small encoded payload per tile kind (and a tile index), and for each the same tile's
// decompressed columns behind a kind byte (the fuzz target's "columns" mode). The seeds in
// tests/fuzz/corpus/tile_codec were made with it; run it again when the codec changes.

#include "storage/store/tile_codec.h"

#include <zstd.h>

#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>

namespace {

using namespace strata;
using namespace strata::storage;

void writeFile(const std::filesystem::path& path, std::string_view bytes)
{
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

/// The columns of an encoded payload, behind the byte that selects its kind and version in
/// the fuzz target's columns mode ((byte % 9) + 1 == kind, plus 9 for a version above 1;
/// never 'S').
std::string columnsSeed(std::string_view payload)
{
    const auto kind = static_cast<std::uint8_t>(payload[2]);
    std::size_t headerSize = 4;
    while (static_cast<std::uint8_t>(payload[headerSize]) & 0x80)
        ++headerSize;
    ++headerSize;
    const std::string_view frame = payload.substr(headerSize);
    const unsigned long long size = ZSTD_getFrameContentSize(frame.data(), frame.size());
    if (size == ZSTD_CONTENTSIZE_ERROR || size == ZSTD_CONTENTSIZE_UNKNOWN)
        return {};  // not one frame (an interval summary tile of version 2 has two)
    std::string columns(size, '\0');
    ZSTD_decompress(columns.data(), columns.size(), frame.data(), frame.size());
    const auto version = static_cast<std::uint8_t>(payload[3]);
    return std::string(1, static_cast<char>(kind - 1 + (version > 1 ? 9 : 0))) + columns;
}

void emit(const std::filesystem::path& dir, const std::string& name, const std::string& payload)
{
    writeFile(dir / (name + ".tile"), payload);
    if (const std::string columns = columnsSeed(payload); !columns.empty())
        writeFile(dir / (name + ".columns"), columns);
}

}  // namespace

int main(int argc, char** argv)
{
    if (argc != 2) {
        std::fprintf(stderr, "usage: %s OUTPUT_DIR\n", argv[0]);
        return 2;
    }
    const std::filesystem::path dir = argv[1];
    std::filesystem::create_directories(dir);

    IntervalTile intervals;
    intervals.events = {{0, 100, 1, 2, 0, model::Role::Useful, 0},
                        {10, 40, 3, 2, 1, model::Role::Comm, 1},
                        {50, 60, 4, 0, 1, model::Role::Idle, 2}};
    intervals.args.append(0, "{\"k\":1,\"s\":\"x\",\"g\":[1,2,3]}");
    intervals.args.append(1, "{\"k\":2,\"s\":[1],\"g\":[4,-5,6]}");
    intervals.args.append(2, "{ \"spaced\": true }");
    emit(dir, "intervals", encodeTile(intervals));

    InstantTile instants;
    instants.events = {{5, 1, 2}, {7, 3, 0}, {7, 4, 2}};
    instants.args.append(0, "{}");
    emit(dir, "instants", encodeTile(instants));

    CounterTile counters;
    counters.samples = {{0, 1.5}, {10, -2.0}, {30, 1e300}};
    emit(dir, "counters", encodeTile(counters));

    FlowTile flows;
    flows.flows = {{10, 3, 20, 1, 64, 7}, {15, 2, 12, 0, 0, -1}};
    emit(dir, "flows", encodeTile(flows));

    SampleTile samples;
    samples.samples = {{1, 1}, {2, 3}, {4, 2}};
    emit(dir, "samples", encodeTile(samples));

    IntervalSummaryTile intervalSummary;
    intervalSummary.bucketNs = 1000;
    intervalSummary.cells = {{0, 0, 3, 0, 900, 1, 0, 2}, {1, 1, 1, 1200, 300, 2, 2, 1}};
    intervalSummary.entries = {{1, model::Role::Useful, 600},
                               {2, model::Role::Comm, 200},
                               {kOtherNames, model::Role::Sync, 100}};
    emit(dir, "interval_summary", encodeTile(intervalSummary));

    InstantSummaryTile instantSummary;
    instantSummary.cells = {{0, 2, 10, 1}, {5, 1, 5100, 2}};
    emit(dir, "instant_summary", encodeTile(instantSummary));

    CounterSummaryTile counterSummary;
    counterSummary.cells = {{0, 2, 0.0, 4.0, 2.0, 4.0, 1000}, {3, 1, -1.0, 1.0, 0.5, -1.0, 500}};
    emit(dir, "counter_summary", encodeTile(counterSummary));

    const std::vector<TileIndexEntry> index = {
        {TileKind::Intervals, 0, 0, 0, 1000, 3, 1},
        {TileKind::IntervalSummary, 2, 1, 0, 4000, 12, 2},
        {TileKind::Counters, 0, 5, 5000, 6000, 2, 3}};
    emit(dir, "tile_index", encodeTileIndex(index));
    return 0;
}
