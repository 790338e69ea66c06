// Tests of ParaverLineImporter and mergeParaverShares (strata-mpi's split of one .prv):
// a two-node trace fed as two shares, one per node, each line with its number, gives the
// events, counts and warnings (first lines included) of importParaver() on the whole
// file; a share makes only its nodes' tracks, a record of another node is refused, and a
// message to another share's node is kept by the sender's share, to the run's track.

#include "storage/import/paraver/paraver_importer.h"
#include "storage/store/input_error.h"
#include "storage/store/memory_trace.h"
#include "storage/store/run_builder.h"
#include "storage/store/store_builder.h"
#include "storage/store/store_reader.h"

#include "tests/support/temp_dir.h"
#include <catch2/catch.hpp>

#include <algorithm>
#include <fstream>
#include <memory>
#include <set>
#include <string>
#include <vector>

using namespace strata;

namespace {

/// Two nodes: task 1 (one thread) on node 1, task 2 (two threads) on node 2. Node 1 has
/// an event that never ends (line 4), node 2 an end without a begin (line 6) and one too
/// late to close anything (line 9); a message inside node 2; a comment and a
/// communicator line.
const std::vector<std::string> kLines = {
    "#Paraver (01/01/2020 at 00:00):1000_ns:2(1,1):1:2(1:1,2:2),1",
    "c:1:1:2:1:2",
    "1:1:1:1:1:0:100:1",
    "2:1:1:1:1:10:60000019:1",
    "1:2:1:2:1:0:200:1",
    "2:2:1:2:2:20:60000019:0",
    "# a comment",
    "3:2:1:2:1:30:31:2:1:2:2:40:41:64:7",
    "2:2:1:2:1:50:60000019:0",
    "2:1:1:1:1:60:42000050:123",
};
const std::vector<int> kNode = { -1, 0, 0, 0, 1, 1, 0, 1, 1, 0 };  // share of each line

struct Trace
{
    test::TempDir dir;
    std::filesystem::path prv = dir / "two_nodes.prv";
    explicit Trace(const std::vector<std::string>& lines = kLines)
    {
        std::ofstream out(prv);
        for (const std::string& line : lines)
            out << line << '\n';
        std::ofstream(dir / "two_nodes.pcf")
            << "STATES\n1    Running\n\nEVENT_TYPE\n0    60000019    User function\n"
               "VALUES\n0   End\n1   solve\n";
    }
};

std::uint64_t eventsOf(const storage::MemoryTrace& trace)
{
    std::uint64_t n = 0;
    for (const auto& t : trace.resources().tracks()) {
        const auto& m = trace.track(t.id);
        n += m.intervals.size() + m.instants.size() + m.counters.size() + m.flows.size();
    }
    return n;
}

/// Imports `lines` of `prv` as two shares, node 1's into sinks[0] and node 2's into
/// sinks[1], each line fed to the share `node` names (the header to both); returns the
/// shares' stats.
std::vector<storage::ParaverImportStats> importShares(const std::filesystem::path& prv,
    const std::vector<std::string>& lines, const std::vector<int>& node,
    const std::vector<storage::TraceSink*>& sinks)
{
    std::vector<std::unique_ptr<storage::ParaverLineImporter>> shares;
    for (int n = 0; n < 2; ++n) {
        storage::ParaverImportOptions options;
        options.firstRoot = n;
        options.endRoot = n + 1;
        shares.push_back(std::make_unique<storage::ParaverLineImporter>(
            prv, *sinks[static_cast<std::size_t>(n)], options));
        shares.back()->line(lines[0], 1);
    }
    for (std::size_t i = 1; i < lines.size(); ++i)
        shares[static_cast<std::size_t>(node[i])]->line(lines[i], i + 1);
    const model::TimeNs endNs =
        std::max({ shares[0]->header()->endNs, shares[0]->maxTimeNs(), shares[1]->maxTimeNs() });
    return { shares[0]->finish(endNs), shares[1]->finish(endNs) };
}

}  // namespace

TEST_CASE(
    "Paraver split by node: two shares fed line by line equal the whole import", "[paraver]") {
    Trace trace;
    storage::MemoryTrace whole;
    const storage::ParaverImportStats all = storage::importParaver(trace.prv, whole);
    REQUIRE(all.warnings.size() == 2);

    storage::MemoryTrace sinks[2];
    const std::vector<storage::ParaverImportStats> parts =
        importShares(trace.prv, kLines, kNode, { &sinks[0], &sinks[1] });
    const storage::ParaverImportStats merged =
        storage::mergeParaverShares(parts, kLines.size(), all.bytes);

    CHECK(merged.warnings == all.warnings);
    CHECK(merged.lines == all.lines);
    CHECK(merged.endNs == all.endNs);
    forEachParaverCount(
        merged, [&, i = std::size_t(0)](const char* name, const std::uint64_t& v) mutable {
            std::vector<std::uint64_t> expected;
            forEachParaverCount(
                all, [&](const char*, const std::uint64_t& e) { expected.push_back(e); });
            INFO(name);
            CHECK(v == expected[i++]);
        });
    // Each share holds its node's subtree only, and together they hold every event.
    CHECK(sinks[0].resources().size() == 4);  // node 1 > task 1.1 > thread 1.1.1 > counter
    CHECK(sinks[1].resources().size() == 4);  // node 2 > task 1.2 > 2 threads
    CHECK(sinks[0].resources().size() + sinks[1].resources().size() == whole.resources().size());
    CHECK(eventsOf(sinks[0]) + eventsOf(sinks[1]) == eventsOf(whole));
}

TEST_CASE("Paraver split by node: a share refuses a record of another node", "[paraver]") {
    Trace trace;
    storage::MemoryTrace sink;
    storage::ParaverImportOptions options;
    options.endRoot = 1;
    storage::ParaverLineImporter share(trace.prv, sink, options);
    share.line(kLines[0], 1);
    share.line(kLines[2], 3);
    CHECK_THROWS_AS(share.line(kLines[4], 5), std::logic_error);
    // A thread the header does not declare stays the user's error, with its line.
    CHECK_THROWS_WITH(share.line("1:1:1:3:1:0:10:1", 11),
        Catch::Contains("two_nodes.prv: line 11: expected a thread declared in the header"));
}

namespace {

/// Every flow of `store`, its ends named by their tracks' paths.
std::set<std::string> flowsByPath(storage::StoreReader& store)
{
    std::vector<model::TrackId> all;
    for (const auto& t : store.resources().tracks())
        all.push_back(t.id);
    std::set<std::string> out;
    const auto slices = store.query({ all, 0, store.span().endNs + 1, 100 });
    for (const storage::TrackSlice& slice : slices) {
        for (const model::Flow& f : slice.flows)
            out.insert(store.resources().path(slice.track) + " -> "
                + store.resources().path(f.toTrack) + " " + std::to_string(f.fromNs) + " "
                + std::to_string(f.toNs) + " " + std::to_string(f.tag));
    }
    return out;
}

}  // namespace

TEST_CASE("Paraver split by node: a message to another share's node is kept by the sender's",
    "[paraver][run]") {
    // Node 1's thread sends to node 2's second thread, and node 2's first thread to node 1.
    std::vector<std::string> lines = kLines;
    lines.push_back("3:1:1:1:1:30:31:2:1:2:2:40:41:64:9");
    lines.push_back("3:2:1:2:1:50:51:1:1:1:1:70:71:8:10");
    const std::vector<int> node = { -1, 0, 0, 0, 1, 1, 0, 1, 1, 0, 0, 1 };
    Trace trace(lines);
    {
        storage::StoreBuilder one(trace.dir / "one.strata");
        storage::importParaver(trace.prv, one);
        one.finish();
    }
    storage::RunBuildOptions options;
    options.shards = 2;
    storage::RunBuilder run(trace.dir / "run.strata", options);
    importShares(trace.prv, lines, node, { &run.shard(0), &run.shard(1) });
    REQUIRE(run.shard(0).foreignTracks().size() == 1);  // node 2 > task 1.2 > its 2nd thread
    REQUIRE(run.shard(0).foreignTracks()[0].back().name == "thread 1.2.2");
    run.finish();

    storage::StoreReader single(trace.dir / "one.strata");
    storage::StoreReader sharded(trace.dir / "run.strata");
    REQUIRE(sharded.shards().size() == 2);
    const std::set<std::string> flows = flowsByPath(sharded);
    CHECK(flows == flowsByPath(single));
    CHECK(flows.count("node 1/task 1.1/thread 1.1.1 -> node 2/task 1.2/thread 1.2.2 31 41 9") == 1);
    CHECK(
        flows.count("node 2/task 1.2/thread 1.2.1 -> node 1/task 1.1/thread 1.1.1 51 71 10") == 1);
}
