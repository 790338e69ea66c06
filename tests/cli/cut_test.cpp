// `strata cut` end to end: a window of a synthetic store cut with a filter into each
// output format, re-ingested with `strata ingest`, holds exactly the source's intervals
// filtered, clipped and shifted directly (read through the viewport API, not the cut's
// streaming path); the Paraver output's header agrees with its records; bad filters exit
// with 1 and point at the column; and a cut of the real 4-rank DDP store.

#include "model/filter_expression.h"
#include "storage/import/paraver/paraver_importer.h"
#include "storage/store/memory_trace.h"
#include "storage/store/store_reader.h"

#include "tests/support/run_command.h"
#include "tests/support/temp_dir.h"
#include <catch2/catch.hpp>

#include <algorithm>
#include <fstream>
#include <map>
#include <sstream>
#include <tuple>
#include <vector>

using namespace strata;
using model::TimeNs;
using model::TrackId;

namespace {

/// start, end, name, category, depth (-1: not compared), role (-1: not compared)
using Row = std::tuple<TimeNs, TimeNs, std::string, std::string, int, int>;
using Rows = std::map<std::string, std::vector<Row>>;

/// A track's path without Node levels (Chrome JSON has no nodes).
std::string trackKey(const model::ResourceTree& tree, TrackId id)
{
    std::string key;
    for (TrackId t = id; t != model::kNoTrack; t = tree.track(t).parent) {
        if (tree.track(t).kind != model::ResourceKind::Node)
            key = tree.track(t).name + (key.empty() ? "" : "/" + key);
    }
    return key;
}

struct Compared
{
    bool depth = false;
    bool role = false;
};

/// The source's intervals as the cut must give them: through StoreReader::intervals,
/// filtered, clipped to `window` and shifted by `shiftNs`.
Rows expectedRows(storage::StoreReader& src, model::TimeRange window,
    const model::FilterExpression& filter, TimeNs shiftNs, Compared compared)
{
    Rows rows;
    const auto& tree = src.resources();
    for (TrackId id = 0; id < tree.size(); ++id) {
        const std::string path = tree.path(id);
        for (const model::Interval& i : src.intervals(id, window.startNs, window.endNs)) {
            model::FilterEvent e;
            e.name = src.strings().text(i.name);
            e.category = src.strings().text(i.category);
            e.track = path;
            e.role = i.role;
            e.durationNs = i.durationNs();
            if (!filter.matches(e))
                continue;
            rows[trackKey(tree, id)].emplace_back(std::max(i.startNs, window.startNs) - shiftNs,
                std::min(i.endNs, window.endNs) - shiftNs, std::string(e.name),
                std::string(e.category), compared.depth ? i.depth : -1,
                compared.role ? static_cast<int>(i.role) : -1);
        }
    }
    for (auto& [key, list] : rows)
        std::sort(list.begin(), list.end());
    return rows;
}

/// Every interval of a store, times moved by `offsetNs`; Paraver's state records skipped.
Rows storeRows(storage::StoreReader& store, TimeNs offsetNs, Compared compared, bool skipStates)
{
    Rows rows;
    const auto& tree = store.resources();
    for (TrackId id = 0; id < tree.size(); ++id) {
        for (const model::Interval& i :
            store.intervals(id, store.span().startNs, store.span().endNs + 1)) {
            const std::string category(store.strings().text(i.category));
            if (skipStates && category == "state")
                continue;
            rows[trackKey(tree, id)].emplace_back(i.startNs + offsetNs, i.endNs + offsetNs,
                std::string(store.strings().text(i.name)), category, compared.depth ? i.depth : -1,
                compared.role ? static_cast<int>(i.role) : -1);
        }
    }
    for (auto& [key, list] : rows)
        std::sort(list.begin(), list.end());
    return rows;
}

std::size_t rowCount(const Rows& rows)
{
    std::size_t n = 0;
    for (const auto& [key, list] : rows)
        n += list.size();
    return n;
}

/// Checks every record of a .prv against its header: application 1, task and thread
/// numbers the header declares, CPUs it declares, and no time past its end time, which
/// is the largest time written.
void checkParaverHeader(const std::filesystem::path& prv)
{
    storage::MemoryTrace sink;
    const storage::ParaverImportStats stats = storage::importParaver(prv, sink);
    CHECK(stats.warnings.empty());
    CHECK(stats.unmatchedEnds == 0);
    CHECK(stats.unclosedBegins == 0);
    REQUIRE(stats.header.applications.size() == 1);
    const auto& tasks = stats.header.applications[0];
    long long cpus = 0;
    for (int c : stats.header.cpusPerNode)
        cpus += c;
    std::ifstream in(prv);
    std::string line;
    std::getline(in, line);  // the header
    TimeNs maxTime = 0;
    std::uint64_t records = 0;
    auto checkObject = [&](const std::vector<long long>& f, std::size_t at) {
        CHECK(f[at] >= 1);  // cpu
        CHECK(f[at] <= cpus);
        CHECK(f[at + 1] == 1);  // appl
        REQUIRE(f[at + 2] >= 1);
        REQUIRE(f[at + 2] <= static_cast<long long>(tasks.size()));
        CHECK(f[at + 3] >= 1);
        CHECK(f[at + 3] <= tasks[f[at + 2] - 1].threads);
    };
    while (std::getline(in, line)) {
        if (line.empty() || line[0] == 'c' || line[0] == '#')
            continue;
        std::vector<long long> f;
        std::stringstream ss(line);
        for (std::string part; std::getline(ss, part, ':');)
            f.push_back(std::stoll(part));
        ++records;
        checkObject(f, 1);
        if (f[0] == 1) {
            maxTime = std::max<TimeNs>({ maxTime, f[5], f[6] });
            CHECK(f[5] <= f[6]);
        } else if (f[0] == 2) {
            maxTime = std::max<TimeNs>(maxTime, f[5]);
        } else {
            REQUIRE(f[0] == 3);
            checkObject(f, 7);
            maxTime = std::max<TimeNs>({ maxTime, f[5], f[6], f[11], f[12] });
        }
    }
    CHECK(records > 0);
    CHECK(maxTime == stats.header.endNs);
}

}  // namespace

TEST_CASE("cut round trip: each format re-ingests to the source filtered directly", "[cli][cut]") {
    test::TempDir dir;
    const auto src = (dir / "src.strata").string();
    REQUIRE(
        test::runStrata({ "synth", "-o", src, "--events", "40000", "--ranks", "2", "--seed", "5" })
            .exitCode
        == 0);
    storage::StoreReader source(src);
    const model::TimeRange span = source.span();
    const TimeNs t0 = span.startNs + span.durationNs() / 3;
    const TimeNs t1 = span.startNs + 2 * span.durationNs() / 3;
    const model::TimeRange window { t0, t1 };
    const std::string filterText = "role=comm or (role=useful and dur>20us) or name~'^cudaLaunch'";
    const auto filter = model::FilterExpression::parse(filterText);
    const TimeNs originNs = std::stoll(source.meta("origin_ns").value());

    struct Case
    {
        std::string output;
        bool rebase;
    };
    for (const Case& c : { Case { "cut.strata", true }, Case { "cut-abs.strata", false },
             Case { "cut.json.gz", true }, Case { "cut.json", false }, Case { "cut.prv", true } }) {
        DYNAMIC_SECTION(c.output << (c.rebase ? " rebased" : ""))
        {
            const auto out = (dir / c.output).string();
            std::vector<std::string> args = { "cut", src, "-o", out, "--window",
                std::to_string(t0) + ":" + std::to_string(t1), "--filter", filterText };
            if (c.rebase)
                args.push_back("--rebase");
            const auto run = test::runStrata(args);
            INFO(run.err);
            REQUIRE(run.exitCode == 0);
            CHECK_THAT(run.err, Catch::Contains("clipped"));

            const bool isStore = c.output.ends_with(".strata");
            const bool isParaver = c.output.ends_with(".prv");
            std::string back = out;
            if (!isStore) {
                back = (dir / (c.output + ".back.strata")).string();
                const auto ingest = test::runStrata({ "ingest", out, "-o", back });
                INFO(ingest.err);
                REQUIRE(ingest.exitCode == 0);
            }
            storage::StoreReader result(back);
            // Chrome is re-based on its first event at ingest: line it up through the
            // origins (absolute time = origin + time). A store keeps the cut's origin;
            // Paraver has none, its times are the file's.
            const TimeNs shiftNs = c.rebase ? t0 : 0;
            TimeNs offsetNs = 0;
            if (!isStore && !isParaver)
                offsetNs = std::stoll(result.meta("origin_ns").value()) - (originNs + shiftNs);
            if (isStore)
                CHECK(std::stoll(result.meta("origin_ns").value()) == originNs + shiftNs);
            const Compared compared { isStore, !isParaver };
            const Rows want = expectedRows(source, window, filter, shiftNs, compared);
            const Rows have = storeRows(result, offsetNs, compared, isParaver);
            REQUIRE(rowCount(want) > 1000);
            REQUIRE(rowCount(want) < rowCount(expectedRows(source, window,
                        model::FilterExpression::parse("dur>=0"), shiftNs, compared)));
            CHECK(rowCount(have) == rowCount(want));
            CHECK(have == want);
            if (isParaver)
                checkParaverHeader(out);
            if (isStore) {
                // The marks: some interval crosses each border.
                bool start = false, end = false;
                for (TrackId id = 0; id < result.resources().size(); ++id) {
                    for (const auto& i :
                        result.intervals(id, result.span().startNs, result.span().endNs + 1)) {
                        const std::string a = result.intervalArgs(id, i);
                        start = start || a.find(R"("clipped":"start")") != std::string::npos;
                        end = end || a.find(R"("clipped":"end")") != std::string::npos;
                    }
                }
                CHECK(start);
                CHECK(end);
            }
        }
    }
}

TEST_CASE(
    "cut: a bad filter exits with 1 and points at the column, and no output is left", "[cli][cut]") {
    test::TempDir dir;
    const auto src = (dir / "src.strata").string();
    REQUIRE(
        test::runStrata({ "synth", "-o", src, "--events", "2000", "--ranks", "1" }).exitCode == 0);
    for (const std::string out : { "x.strata", "x.json.gz", "x.prv" }) {
        const auto run = test::runStrata(
            { "cut", src, "-o", (dir / out).string(), "--filter", "role=comm or (dur>)" });
        CHECK(run.exitCode == 1);
        CHECK_THAT(run.err, Catch::Contains("column 19: expected a value"));
        CHECK_THAT(run.err, Catch::Contains("role=comm or (dur>)\n                  ^"));
        CHECK_FALSE(std::filesystem::exists(dir / out));
    }
    CHECK(test::runStrata({ "cut", src, "-o", (dir / "x.prv").string(), "--tracks", "rank (" })
              .exitCode
        == 1);
    CHECK(test::runStrata({ "cut", src, "-o", (dir / "x.txt").string() }).exitCode == 2);
    CHECK(test::runStrata({ "cut", src, "-o", (dir / "x.prv").string(), "--window", "5ms:1ms" })
              .exitCode
        == 2);
    // Issue 14: an output that is the input is bad input (exit 1), as for every command.
    CHECK(test::runStrata({ "cut", src, "-o", src }).exitCode == 1);
    const auto missing = test::runStrata(
        { "cut", (dir / "none.strata").string(), "-o", (dir / "y.strata").string() });
    CHECK(missing.exitCode == 1);
    CHECK_FALSE(std::filesystem::exists(dir / "y.strata"));
    // Nothing but the source remains: no temporary file of any writer.
    std::vector<std::string> names;
    for (const auto& entry : std::filesystem::directory_iterator(dir.path()))
        names.push_back(entry.path().filename().string());
    CHECK(names == std::vector<std::string> { "src.strata" });
}

TEST_CASE("cut: the real 4-rank DDP store, collectives and long events", "[cli][cut][real]") {
    std::vector<std::string> args = { "ingest" };
    for (int r = 0; r < 4; ++r) {
        const auto rank = test::realTrace("h100/kineto_ddp_rank" + std::to_string(r) + ".json.gz");
        if (rank.empty())
            return;  // the shared real-trace folder is not here
        args.push_back(rank.string());
    }
    test::TempDir dir;
    const auto store = (dir / "ddp.strata").string();
    args.insert(args.end(), { "-o", store });
    REQUIRE(test::runStrata(args).exitCode == 0);
    const std::string filterText = "role=comm or dur>1ms";
    const auto filter = model::FilterExpression::parse(filterText);
    storage::StoreReader source(store);
    const model::TimeRange all { source.span().startNs, source.span().endNs + 1 };
    const Rows want = expectedRows(source, all, filter, 0, { true, true });
    REQUIRE(rowCount(want) > 100);

    const auto cut = (dir / "ddp-cut.strata").string();
    const auto run = test::runStrata({ "cut", store, "-o", cut, "--filter", filterText });
    INFO(run.err);
    REQUIRE(run.exitCode == 0);
    storage::StoreReader result(cut);
    CHECK(storeRows(result, 0, { true, true }, false) == want);
    CHECK(result.resources().size() == source.resources().size());
    CHECK(result.meta("world_size") == source.meta("world_size"));

    const auto json = (dir / "ddp-cut.json.gz").string();
    REQUIRE(test::runStrata({ "cut", store, "-o", json, "--filter", filterText }).exitCode == 0);
    const auto back = (dir / "ddp-back.strata").string();
    REQUIRE(test::runStrata({ "ingest", json, "-o", back }).exitCode == 0);
    storage::StoreReader again(back);
    std::size_t flowsBack = 0, flowsCut = 0;
    for (TrackId id = 0; id < again.resources().size(); ++id)
        flowsBack += static_cast<std::size_t>(again.summary(id).flows);
    for (TrackId id = 0; id < result.resources().size(); ++id)
        flowsCut += static_cast<std::size_t>(result.summary(id).flows);
    CHECK(flowsBack == flowsCut);
    CHECK(rowCount(storeRows(again, 0, {}, false)) == rowCount(want));
}
