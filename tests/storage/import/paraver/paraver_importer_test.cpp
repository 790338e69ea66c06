// Tests of the Paraver importer: header variants, .pcf/.row parsing, each record kind
// into a MemoryTrace with exact values (tests/data/paraver/small.*), malformed input,
// truncated files, and every real Paraver trace under shared/data/real with the counts
// their READMEs give.

#include "storage/import/paraver/paraver_importer.h"

#include "storage/import/paraver/paraver_pcf.h"
#include "storage/store/input_error.h"
#include "storage/store/memory_trace.h"
#include "storage/store/trace_sink.h"

#include "tests/support/counting_sink.h"
#include "tests/support/temp_dir.h"
#include <catch2/catch.hpp>
#include <zlib.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

using namespace strata;
using storage::InputError;
using storage::MemoryTrace;
using storage::ParaverImportStats;

namespace {

std::filesystem::path fixture(const std::string& name)
{
    return std::filesystem::path(STRATA_TEST_DATA_DIR) / "paraver" / name;
}

std::string readAll(const std::filesystem::path& path)
{
    std::ifstream in(path, std::ios::binary);
    std::ostringstream out;
    out << in.rdbuf();
    return out.str();
}

void writeFile(const std::filesystem::path& path, const std::string& text)
{
    std::ofstream out(path, std::ios::binary);
    out << text;
}

void writeGzip(const std::filesystem::path& path, const std::string& text)
{
    gzFile gz = gzopen(path.string().c_str(), "wb");
    REQUIRE(gz != nullptr);
    gzwrite(gz, text.data(), unsigned(text.size()));
    gzclose(gz);
}

std::string text(const MemoryTrace& trace, model::StringId id)
{
    return std::string(trace.strings().text(id));
}

/// The message of the InputError thrown by importing `prvText` (no side files).
std::string importError(const std::string& prvText)
{
    test::TempDir dir;
    writeFile(dir / "bad.prv", prvText);
    MemoryTrace trace;
    try {
        storage::importParaver(dir / "bad.prv", trace);
    } catch (const InputError& e) {
        return e.what();
    }
    return "(no error)";
}

const std::string kHeader = "#Paraver (01/02/2023 at 10:00):1000_ns:1(2):1:1(2:1),0\n";

/// A sink that keeps only counts: for timing the parser alone.
using test::CountingSink;

}  // namespace

TEST_CASE("Paraver header variants", "[paraver]") {
    SECTION("modern Extrae header, ns, two applications joined by ','") {
        auto h = storage::parseParaverHeader(
            "#Paraver (21/01/2022 at 16:37):1616378951_ns:1(20):2:2(1:1,2:1),3(1:1,1:1,1:1),14",
            "t.prv");
        CHECK(h.date == "21/01/2022 at 16:37");
        CHECK(h.endNs == 1616378951);
        CHECK(h.unitNs == 1);
        CHECK(h.unitName == "ns");
        CHECK(h.unitGiven);
        CHECK(h.nodes == 1);
        CHECK(h.cpusPerNode == std::vector<int> { 20 });
        REQUIRE(h.applications.size() == 2);
        CHECK(h.applications[0].size() == 2);
        CHECK(h.applications[0][1].threads == 2);
        CHECK(h.applications[1].size() == 3);
        CHECK(h.communicators == 14);
    }
    SECTION("applications joined by ':' and no communicator count") {
        auto h = storage::parseParaverHeader("#Paraver (x):10_us:2(1,1):2:1(1:1):1(4:2)", "t.prv");
        CHECK(h.endNs == 10000);
        CHECK(h.unitNs == 1000);
        REQUIRE(h.applications.size() == 2);
        CHECK(h.applications[1][0].threads == 4);
        CHECK(h.applications[1][0].node == 2);
        CHECK(h.communicators == 0);
    }
    SECTION("old 2004 header: no unit (microseconds), no CPU list") {
        auto h = storage::parseParaverHeader(
            "#Paraver (26/01/04 at 16:35):260199:4:1:4(1:1,1:2,1:3,1:4),8", "t.prv");
        CHECK_FALSE(h.unitGiven);
        CHECK(h.unitNs == 1000);
        CHECK(h.endNs == 260199000);
        CHECK(h.nodes == 4);
        CHECK(h.cpusPerNode.empty());
        CHECK(h.applications[0][3].node == 4);
        CHECK(h.communicators == 8);
    }
    SECTION("other units") {
        CHECK(storage::parseParaverHeader("#Paraver (d):5_ms:1:1:1(1:1),0", "t").endNs == 5000000);
        CHECK(
            storage::parseParaverHeader("#Paraver (d):2_s:1:1:1(1:1),0", "t").endNs == 2000000000);
        CHECK(storage::parseParaverHeader("#Paraver (d):7:1:1:1(1:1),0", "t", 1).endNs == 7);
    }
    SECTION("malformed headers name the file, line 1 and what was expected") {
        auto message = [](const std::string& line) {
            try {
                storage::parseParaverHeader(line, "t.prv");
            } catch (const InputError& e) {
                return std::string(e.what());
            }
            return std::string("(no error)");
        };
        CHECK_THAT(message("#Paraver 01/02/03:1:1:1:1(1:1)"),
            Catch::StartsWith("t.prv: line 1: expected '('"));
        CHECK_THAT(message("#Paraver (d):12_xs:1:1:1(1:1)"), Catch::Contains("time unit"));
        CHECK_THAT(message("#Paraver (d):12_ns:1:2:1(1:1)"), Catch::Contains("application 2"));
        CHECK_THAT(message("#Paraver (d):12_ns:1:1:2(1:1)"), Catch::Contains("expected 2 tasks"));
        CHECK_THAT(message("#Paraver (d):12_ns:1:1:1(1:3)"), Catch::Contains("node number"));
        CHECK_THAT(message("#Paraver (d):_ns:1:1:1(1:1)"), Catch::Contains("end time"));
    }
}

TEST_CASE("Paraver .pcf and .row parsing", "[paraver]") {
    storage::ParaverPcf pcf = storage::parseParaverPcf(fixture("small.pcf"));
    CHECK(pcf.unitNs == 1);
    CHECK(pcf.states.size() == 3);
    CHECK(pcf.states.at(5) == "Synchronization");
    CHECK(pcf.stateColors.at(0) == storage::ParaverColor { 117, 195, 255 });
    CHECK(pcf.stateColors.at(5) == storage::ParaverColor { 179, 0, 0 });
    REQUIRE(pcf.eventTypes.size() == 4);
    CHECK(pcf.eventTypes.at(50000001).label == "MPI Point-to-point");
    CHECK(pcf.eventTypes.at(50000001).gradient == 9);
    CHECK(pcf.eventTypes.at(50000001).values.at(2) == "MPI_Recv");
    CHECK(pcf.eventTypes.at(42000050).label == "(PAPI_TOT_INS) Instr completed");
    CHECK(pcf.eventTypes.at(42000050).values.empty());
    CHECK(pcf.eventTypes.at(60000019).values.size() == 2);

    SECTION("a VALUES section applies to every type of its block, not to earlier blocks") {
        auto p = storage::parseParaverPcfText("EVENT_TYPE\n0 10 A\n\n\nEVENT_TYPE\n0 11 B\n"
                                              "0 12 C\nVALUES\n0 End\n1 One\n",
            "x.pcf");
        CHECK(p.eventTypes.at(10).values.empty());
        CHECK(p.eventTypes.at(11).values.at(1) == "One");
        CHECK(p.eventTypes.at(12).values.at(1) == "One");
    }
    SECTION("malformed entries name the file and line") {
        CHECK_THROWS_WITH(storage::parseParaverPcfText("STATES\n0 Idle\nxx Running\n", "x.pcf"),
            Catch::StartsWith("x.pcf: line 3: expected"));
        CHECK_THROWS_WITH(storage::parseParaverPcfText("STATES_COLOR\n0 {1,2}\n", "x.pcf"),
            Catch::StartsWith("x.pcf: line 2: expected"));
    }

    storage::ParaverRow row = storage::parseParaverRow(fixture("small.row"));
    CHECK(row.at("NODE") == std::vector<std::string> { "nodeA", "nodeB" });
    CHECK(row.at("TASK") == std::vector<std::string> { "rank 0", "rank 1" });
    CHECK(row.at("THREAD").size() == 3);
    CHECK(row.at("THREAD")[2] == "THREAD 1.2.1");
}

TEST_CASE("Paraver state roles", "[paraver]") {
    using model::Role;
    CHECK(storage::paraverStateRole("Running") == Role::Useful);
    CHECK(storage::paraverStateRole("Idle") == Role::Idle);
    CHECK(storage::paraverStateRole("Not created") == Role::Idle);
    CHECK(storage::paraverStateRole("Outside") == Role::Idle);
    CHECK(storage::paraverStateRole("Waiting a message") == Role::Sync);
    CHECK(storage::paraverStateRole("Synchronization") == Role::Sync);
    CHECK(storage::paraverStateRole("Wait/WaitAll") == Role::Sync);
    CHECK(storage::paraverStateRole("Blocking Send") == Role::Sync);
    CHECK(storage::paraverStateRole("Group Communication") == Role::Comm);
    CHECK(storage::paraverStateRole("Immediate Send") == Role::Comm);
    CHECK(storage::paraverStateRole("Immediate Receive") == Role::Comm);
    CHECK(storage::paraverStateRole("Send Receive") == Role::Comm);
    CHECK(storage::paraverStateRole("Memory transfer") == Role::Transfer);
    CHECK(storage::paraverStateRole("Scheduling and Fork/Join") == Role::Runtime);
    CHECK(storage::paraverStateRole("I/O") == Role::Runtime);
    CHECK(storage::paraverStateRole("Others") == Role::Runtime);
    CHECK(storage::paraverStateRole("Distributed locking") == Role::Sync);
    CHECK(storage::paraverStateRole("Atomic memory operation") == Role::Comm);
    CHECK(storage::paraverDefaultStateName(5) == "Synchronization");
    CHECK(storage::paraverDefaultStateName(99).empty());
    // As in BSC's modelfactors, Running is the only useful state of Paraver's table.
    for (std::int64_t state = 0; !storage::paraverDefaultStateName(state).empty(); ++state) {
        const std::string_view name = storage::paraverDefaultStateName(state);
        INFO(name);
        CHECK((storage::paraverStateRole(name) == Role::Useful) == (state == 1));
    }
    // A custom state table's own names stay useful.
    CHECK(storage::paraverStateRole("Computing") == Role::Useful);
}

TEST_CASE("Paraver records into a MemoryTrace", "[paraver]") {
    MemoryTrace trace;
    std::vector<std::pair<std::uint64_t, std::uint64_t>> progress;
    ParaverImportStats stats =
        storage::importParaver(fixture("small.prv"), trace, [&](std::uint64_t d, std::uint64_t t) {
            progress.emplace_back(d, t);
            return true;
        });
    CHECK(stats.hasPcf);
    CHECK(stats.hasRow);
    CHECK(stats.lines == 14);
    CHECK(stats.states == 3);
    CHECK(stats.eventLines == 7);
    CHECK(stats.eventPairs == 10);
    CHECK(stats.communications == 1);
    CHECK(stats.communicatorLines == 1);
    CHECK(stats.commentLines == 1);
    CHECK(stats.unmatchedEnds == 1);
    CHECK(stats.unclosedBegins == 1);
    CHECK(stats.endNs == 1000);
    CHECK_FALSE(stats.truncated);
    CHECK(stats.stateColors.at(1) == storage::ParaverColor { 0, 0, 255 });
    REQUIRE_FALSE(progress.empty());
    CHECK(progress.back().first == progress.back().second);

    SECTION("meta") {
        CHECK(trace.meta().at("source_format") == "paraver");
        CHECK(trace.meta().at("time_unit") == "ns");
        CHECK(trace.meta().at("paraver.state_color.Running") == "#0000ff");
        CHECK(trace.meta().at("paraver.state_color.Synchronization") == "#b30000");
    }
    SECTION("tracks from the header, named by the .row") {
        const auto& tree = trace.resources();
        REQUIRE(tree.size() == 10);
        CHECK(tree.track(0).name == "nodeA");
        CHECK(tree.track(0).kind == model::ResourceKind::Node);
        CHECK(tree.track(1).name == "nodeB");
        CHECK(tree.track(2).name == "rank 0");
        CHECK(tree.track(2).kind == model::ResourceKind::Process);
        CHECK(tree.track(2).parent == 0);
        CHECK(tree.track(3).name == "THREAD 1.1.1");
        CHECK(tree.track(3).kind == model::ResourceKind::Thread);
        CHECK(tree.track(4).parent == 2);
        CHECK(tree.track(5).name == "rank 1");
        CHECK(tree.track(5).parent == 1);
        CHECK(tree.track(6).parent == 5);
        CHECK(tree.track(7).kind == model::ResourceKind::Counter);
        CHECK(tree.track(7).name == "(PAPI_TOT_INS) Instr completed");
        CHECK(tree.track(7).parent == 3);
        CHECK(tree.track(8).parent == 6);
        CHECK(tree.track(9).name == "type 77");
    }
    SECTION("states") {
        const auto& t4 = trace.track(4).intervals;
        REQUIRE(t4.size() == 2);
        CHECK(t4[0].startNs == 0);
        CHECK(t4[0].endNs == 50);
        CHECK(text(trace, t4[0].name) == "Idle");
        CHECK(text(trace, t4[0].category) == "state");
        CHECK(t4[0].role == model::Role::Idle);
        CHECK(t4[0].depth == 0);
        CHECK(text(trace, t4[1].name) == "Synchronization");
        CHECK(t4[1].role == model::Role::Sync);
        CHECK(t4[1].seq == 1);
    }
    SECTION("begin/end event pairs") {
        const auto& t3 = trace.track(3).intervals;
        REQUIRE(t3.size() == 3);
        CHECK(text(trace, t3[0].name) == "Running");
        CHECK(t3[0].role == model::Role::Useful);
        // the innermost (MPI_Recv, opened at 20) closes first
        CHECK(text(trace, t3[1].name) == "MPI_Recv");
        CHECK(t3[1].startNs == 20);
        CHECK(t3[1].endNs == 30);
        CHECK(text(trace, t3[1].category) == "MPI Point-to-point");
        CHECK(t3[1].role == model::Role::Comm);
        CHECK(t3[1].depth == model::kAutoDepth);
        CHECK(text(trace, t3[2].name) == "MPI_Send");
        CHECK(t3[2].startNs == 10);
        CHECK(t3[2].endNs == 40);
        CHECK(t3[2].seq < t3[1].seq);
        // never closed: ends at the trace's end
        const auto& t6 = trace.track(6).intervals;
        REQUIRE(t6.size() == 1);
        CHECK(text(trace, t6[0].name) == "compute");
        CHECK(text(trace, t6[0].category) == "User function");
        CHECK(t6[0].role == model::Role::Useful);
        CHECK(t6[0].startNs == 70);
        CHECK(t6[0].endNs == 1000);
    }
    SECTION("counters and sampled events") {
        CHECK(trace.track(7).counters == std::vector<model::CounterSample> { { 10, 1234 } });
        CHECK(trace.track(8).counters == std::vector<model::CounterSample> { { 70, 99 } });
        CHECK(trace.track(9).counters == std::vector<model::CounterSample> { { 95, 5 } });
        REQUIRE(trace.track(3).instants.size() == 1);
        CHECK(trace.track(3).instants[0].timeNs == 95);
        CHECK(text(trace, trace.track(3).instants[0].name) == "main");
        CHECK(text(trace, trace.track(3).instants[0].category) == "Sampled functions");
        CHECK(stats.counterSamples == 3);
        CHECK(stats.counterTracks == 3);
        CHECK(stats.instants == 1);
    }
    SECTION("communications") {
        REQUIRE(trace.track(3).flows.size() == 1);
        const model::Flow& flow = trace.track(3).flows[0];
        CHECK(flow.fromNs == 81);
        CHECK(flow.toTrack == 6);
        CHECK(flow.toNs == 90);
        CHECK(flow.sizeBytes == 1024);
        CHECK(flow.tag == 7);
        CHECK(text(trace, flow.name) == "message");
        CHECK(stats.flows == 1);
    }
}

TEST_CASE("Paraver event values may be decimal numbers", "[paraver]") {
    // A decimal value's integer part reads as an integer by itself: "2.5" was taken for 2
    // followed by a bad character, and the line was an error.
    test::TempDir dir;
    writeFile(dir / "d.prv",
        kHeader
            + "2:1:1:1:1:10:42000050:2.5\n"
              "2:1:1:1:1:20:42000050:-1.25:42000051:18446744073709551615\n"
              "2:1:1:1:1:30:42000050:7:42000051:3e2\n");
    MemoryTrace trace;
    const ParaverImportStats stats = storage::importParaver(dir / "d.prv", trace);
    CHECK(stats.counterSamples == 5);
    std::map<std::string, std::vector<model::CounterSample>> counters;
    for (model::TrackId t = 0; t < trace.resources().size(); ++t) {
        if (trace.resources().track(t).kind == model::ResourceKind::Counter)
            counters[trace.resources().track(t).name] = trace.track(t).counters;
    }
    CHECK(counters.at("type 42000050")
          == std::vector<model::CounterSample> { { 10, 2.5 }, { 20, -1.25 }, { 30, 7 } });
    CHECK(counters.at("type 42000051")
          == std::vector<model::CounterSample> { { 20, 18446744073709551615.0 }, { 30, 300 } });
    // Still an error: a value that is no number, or a number followed by junk.
    CHECK_THAT(importError(kHeader + "2:1:1:1:1:10:42000050:2.5x\n"),
        Catch::Contains("line 2"));
    CHECK_THAT(importError(kHeader + "2:1:1:1:1:10:42000050:abc\n"),
        Catch::Contains("line 2"));
}

TEST_CASE("Paraver without .pcf/.row uses numeric names, and .prv.gz is detected", "[paraver]") {
    test::TempDir dir;
    std::string prv = readAll(fixture("small.prv"));
    writeGzip(dir / "copy.prv.gz", prv);
    MemoryTrace trace;
    ParaverImportStats stats = storage::importParaver(dir / "copy.prv.gz", trace);
    CHECK_FALSE(stats.hasPcf);
    CHECK_FALSE(stats.hasRow);
    CHECK(stats.states == 3);
    CHECK(stats.eventPairs == 10);
    const auto& tree = trace.resources();
    CHECK(tree.track(0).name == "node 1");
    CHECK(tree.track(2).name == "task 1.1");
    CHECK(tree.track(3).name == "thread 1.1.1");
    CHECK(tree.track(4).name == "thread 1.1.2");
    CHECK(tree.track(7).name == "type 50000001");
    const auto& t4 = trace.track(4).intervals;
    REQUIRE(t4.size() == 2);
    CHECK(text(trace, t4[0].name) == "state 0");
    CHECK(t4[0].role == model::Role::Idle);  // Paraver's standard table
    CHECK(t4[1].role == model::Role::Sync);
    // every event type is a counter without a .pcf
    CHECK(stats.eventIntervals == 0);
    CHECK(stats.counterSamples == 10);
}

TEST_CASE("Paraver header without unit takes the .pcf UNITS, else microseconds", "[paraver]") {
    test::TempDir dir;
    writeFile(dir / "t.prv", "#Paraver (d):100:1:1:1(1:1),0\n1:1:1:1:1:2:5:1\n");
    MemoryTrace a;
    ParaverImportStats stats = storage::importParaver(dir / "t.prv", a);
    CHECK(stats.header.unitNs == 1000);
    CHECK(a.track(2).intervals.at(0).startNs == 2000);
    CHECK(a.meta().at("time_unit") == "us");
    writeFile(dir / "t.pcf", "DEFAULT_OPTIONS\n\nUNITS NANOSEC\n");
    MemoryTrace b;
    storage::importParaver(dir / "t.prv", b);
    CHECK(b.track(2).intervals.at(0).startNs == 2);
}

TEST_CASE("Paraver status, mode, annotation and deep event types", "[paraver]") {
    test::TempDir dir;
    writeFile(dir / "t.pcf",
        "EVENT_TYPE\n0 60000006 OpenMP named-Lock\nVALUES\n0 Unlocked status\n"
        "3 Lock\n5 Unlock\n6 Locked status\n\n"
        "EVENT_TYPE\n9 45000000 Solver phase\nVALUES\n1 Detailed\n2 Bursts\n\n"
        "EVENT_TYPE\n0 70000001 Caller at level 1\nVALUES\n0 End\n1 main\n\n"
        "EVENT_TYPE\n0 60000019 User function\nVALUES\n0 End\n1 f\n");
    std::string prv = "#Paraver (d):1000_ns:1(1):1:1(1:1),0\n"
                      "2:1:1:1:1:10:60000006:3:70000001:1\n2:1:1:1:1:20:60000006:6\n"
                      "2:1:1:1:1:30:60000006:5\n2:1:1:1:1:40:60000006:0\n"
                      "2:1:1:1:1:50:45000000:1\n2:1:1:1:1:60:45000000:2\n";
    for (int i = 0; i < 300; ++i)
        prv += "2:1:1:1:1:" + std::to_string(100 + i) + ":60000019:1\n";
    writeFile(dir / "t.prv", prv);
    MemoryTrace trace;
    ParaverImportStats stats = storage::importParaver(dir / "t.prv", trace);
    const auto& intervals = trace.track(2).intervals;
    REQUIRE(intervals.size() >= 5);
    CHECK(text(trace, intervals[0].name) == "Lock");
    CHECK(intervals[0].startNs == 10);
    CHECK(intervals[0].endNs == 20);
    CHECK(text(trace, intervals[1].name) == "Locked status");
    CHECK(intervals[1].endNs == 30);
    CHECK(text(trace, intervals[2].name) == "Unlock");
    CHECK(intervals[2].endNs == 40);
    CHECK(text(trace, intervals[3].name) == "Detailed");
    CHECK(intervals[3].startNs == 50);
    CHECK(intervals[3].endNs == 60);
    REQUIRE(trace.track(2).instants.size() == 1);
    CHECK(text(trace, trace.track(2).instants[0].name) == "main");
    CHECK(stats.depthOverflows == 300 - 256);
    CHECK(stats.unclosedBegins == 256 + 1);  // the user functions and "Bursts"
    CHECK(stats.unmatchedEnds == 0);
    CHECK(stats.eventIntervals == 3 + 1 + 300 + 1);
}

TEST_CASE("Extrae's own states (application, init, flush, tracing mode) are marks without a "
          "role",
    "[paraver]") {
    test::TempDir dir;
    writeFile(dir / "t.pcf",
        "STATES\n1 Running\n12 I/O\n15 Others\n\n"
        "EVENT_TYPE\n6 40000001 Application\nVALUES\n0 End\n1 Begin\n\n"
        "EVENT_TYPE\n6 40000002 Trace initialization\nVALUES\n0 End\n1 Begin\n\n"
        "EVENT_TYPE\n6 40000003 Flushing Traces\nVALUES\n0 End\n1 Begin\n\n"
        "EVENT_TYPE\n9 40000018 Tracing mode:\nVALUES\n1 Detailed\n2 CPU Bursts\n\n"
        "EVENT_TYPE\n0 60000019 User function\nVALUES\n0 End\n1 solve\n");
    // As Extrae writes them: init under state Others, a flush under state I/O, and the
    // mode, set once, never ended.
    writeFile(dir / "t.prv",
        "#Paraver (d):1000_ns:1(1):1:1(1:1),0\n"
        "1:1:1:1:1:0:10:15\n1:1:1:1:1:10:700:1\n1:1:1:1:1:700:800:12\n1:1:1:1:1:800:900:1\n"
        "2:1:1:1:1:0:40000001:1:40000018:1\n2:1:1:1:1:0:40000002:1\n2:1:1:1:1:10:40000002:0\n"
        "2:1:1:1:1:100:60000019:1\n2:1:1:1:1:200:60000019:0\n"
        "2:1:1:1:1:700:40000003:1\n2:1:1:1:1:800:40000003:0\n2:1:1:1:1:900:40000001:0\n");
    MemoryTrace trace;
    ParaverImportStats stats = storage::importParaver(dir / "t.prv", trace);
    const auto& intervals = trace.track(2).intervals;
    REQUIRE(intervals.size() == 5);  // the four states and the user function
    CHECK(text(trace, intervals[0].name) == "Others");
    CHECK(intervals[0].role == model::Role::Runtime);
    CHECK(text(trace, intervals[2].name) == "I/O");
    CHECK(intervals[2].role == model::Role::Runtime);
    CHECK(text(trace, intervals[4].name) == "solve");
    CHECK(intervals[4].role == model::Role::Useful);
    std::vector<std::string> marks;
    for (const model::Instant& i : trace.track(2).instants)
        marks.push_back(
            std::to_string(i.timeNs) + " " + text(trace, i.category) + ": " + text(trace, i.name));
    CHECK(marks
        == std::vector<std::string> { "0 Application: Begin", "0 Tracing mode:: Detailed",
            "0 Trace initialization: Begin", "10 Trace initialization: End",
            "700 Flushing Traces: Begin", "800 Flushing Traces: End", "900 Application: End" });
    CHECK(stats.unclosedBegins == 0);
    CHECK(stats.warnings.empty());
}

TEST_CASE(
    "Paraver records dropped or altered warn once per kind with the first line", "[paraver]") {
    test::TempDir dir;
    writeFile(dir / "t.pcf", "EVENT_TYPE\n0 60000019 User function\nVALUES\n0 End\n1 f\n");
    std::string prv = "#Paraver (d):1000_ns:1(2):1:2(1:1,1:1),0\n"  // line 1
                      "1:1:1:1:1:0:1000:1\n"  // 2
                      "2:1:1:1:1:10:60000019:0\n"  // 3: an end with nothing open
                      "2:1:1:1:1:20:60000019:1\n"  // 4
                      "2:1:1:1:1:30:60000019:0\n"  // 5
                      "2:1:1:1:1:40:60000019:0\n"  // 6: another
                      "2:2:1:2:1:50:60000019:1\n"  // 7: opens at 50 ...
                      "2:2:1:2:1:45:60000019:0\n"  // 8: ... and ends at 45
                      "2:2:1:2:1:60:60000019:1\n";  // 9: never ends
    for (int i = 0; i < 258; ++i)  // lines 10-267; the 257th open (line 266) is one too many
        prv += "2:1:1:1:1:" + std::to_string(100 + i) + ":60000019:1\n";
    prv += "2:1:1:1:1:500:6000";  // line 268, cut short
    writeFile(dir / "t.prv", prv);
    MemoryTrace trace;
    ParaverImportStats stats = storage::importParaver(dir / "t.prv", trace);
    CHECK(stats.unmatchedEnds == 2);
    CHECK(stats.endsBeforeBegin == 1);
    CHECK(stats.depthOverflows == 2);
    CHECK(stats.unclosedBegins == 1 + 256);
    CHECK(stats.truncated);
    CHECK(stats.warnings
        == std::vector<std::string> {
            "1 records dropped: the file ends inside this record (first at line 268)",
            "2 records dropped: event ends (value 0) with no open event of their type on "
            "their thread (first at line 3)",
            "257 records altered: events that never end, closed at the trace's end (first at "
            "line 9)",
            "1 records altered: events that end before they begin, made empty (first at line 8)",
            "2 records altered: events closed early, more than 256 open of one type on a "
            "thread (first at line 266)" });
}

TEST_CASE("Paraver malformed lines give a one-line InputError", "[paraver]") {
    auto expectError = [](const std::string& body, int line, const std::string& what) {
        std::string message = importError(kHeader + body);
        INFO(message);
        CHECK_THAT(
            message, Catch::Contains("bad.prv: line " + std::to_string(line) + ": expected"));
        CHECK_THAT(message, Catch::Contains(what));
        CHECK(message.find('\n') == std::string::npos);
    };
    expectError("1:1:1:1:1:0:10:1\n9:1:1:1:1:0\n", 3, "expected a record");
    expectError("1:1:1:1:1:0:x:1\n", 2, "end (a number) as field 7");
    expectError("1:1:1:1:1:0:10\n", 2, "state (a number) as field 8");
    expectError("1:1:1:1:1:0:10:1:4\n", 2, "8 fields");
    expectError("1:1:1:1:3:0:10:1\n", 2, "thread declared in the header");
    expectError("1:1:1:2:1:0:10:1\n", 2, "1:2:1");
    expectError("1:1:1:1:1:20:10:1\n", 2, "end >= begin");
    expectError("2:1:1:1:1:5\n", 2, "type:value pair");
    expectError("2:1:1:1:1:5:42\n", 2, "value after event type 42");
    expectError("2:1:1:1:1:5:42:abc\n", 2, "value (a number) after event type 42");
    expectError("3:1:1:1:1:1:2:1:1:1:2:3:4:10\n", 2, "tag (a number) as field 15");
    expectError("3:1:1:1:1:1:2:1:1:1:7:3:4:10:1\n", 2, "1:1:7");
    CHECK_THAT(
        importError("1:1:1:1:1:0:10:1\n"), Catch::Contains("line 1: expected a Paraver header"));
    CHECK_THAT(importError(""), Catch::Contains("line 1: expected a Paraver header"));
}

TEST_CASE("Paraver truncated file gives a warning, not an error", "[paraver]") {
    test::TempDir dir;
    SECTION("plain file cut inside a record") {
        writeFile(
            dir / "cut.prv", kHeader + "1:1:1:1:1:0:10:1\n1:1:1:1:2:0:10:1\n2:1:1:1:1:5:4200");
        // "2:1:1:1:1:5:4200" parses as an incomplete pair; it is dropped with a warning
        MemoryTrace trace;
        ParaverImportStats stats = storage::importParaver(dir / "cut.prv", trace);
        CHECK(stats.truncated);
        REQUIRE(stats.warnings.size() == 1);
        CHECK_THAT(stats.warnings[0], Catch::Contains("line 4"));
        CHECK(stats.states == 2);
        CHECK(trace.track(2).intervals.size() == 1);
    }
    SECTION("gzip stream cut short") {
        std::string body = kHeader;
        for (int i = 0; i < 20000; ++i)
            body +=
                "1:1:1:1:1:" + std::to_string(i * 10) + ":" + std::to_string(i * 10 + 5) + ":1\n";
        writeGzip(dir / "full.prv.gz", body);
        std::string gz = readAll(dir / "full.prv.gz");
        writeFile(dir / "cut.prv.gz", gz.substr(0, gz.size() / 2));
        MemoryTrace trace;
        ParaverImportStats stats = storage::importParaver(dir / "cut.prv.gz", trace);
        CHECK(stats.truncated);
        CHECK_FALSE(stats.warnings.empty());
        CHECK(stats.states > 0);
        CHECK(stats.states < 20000);
        CHECK(trace.track(2).intervals.size() == stats.states);
    }
    SECTION("a complete last line without a newline is kept") {
        writeFile(dir / "nonl.prv", kHeader + "1:1:1:1:1:0:10:1");
        MemoryTrace trace;
        ParaverImportStats stats = storage::importParaver(dir / "nonl.prv", trace);
        CHECK_FALSE(stats.truncated);
        CHECK(stats.states == 1);
    }
}

TEST_CASE("Paraver import can be cancelled", "[paraver]") {
    MemoryTrace trace;
    CHECK_THROWS_AS(storage::importParaver(fixture("small.prv"), trace,
                        [](std::uint64_t, std::uint64_t) { return false; }),
        storage::Cancelled);
}

TEST_CASE("Paraver real traces import with the README counts", "[paraver]") {
    struct Expected
    {
        const char* path;
        std::uint64_t states, eventLines, pairs, comms, communicatorLines, globalOps, threads;
    };
    const std::vector<Expected> expected = {
        { "public/paraver-folding/444.namd.prv.gz", 4, 27919, 157207, 0, 0, 0, 1 },
        { "public/paraver-kernel-qsort/qsort_beo3.prv", 292, 422, 422, 33, 8, 45, 4 },
        { "public/paraver-profet/lulesh_4+4_with_uncores_sockets1+2.chop_5it.prv.gz", 4280, 6785,
            42284, 484, 14, 0, 20 },
        { "public/paraver-profet/lulesh_7+1_with_uncores_sockets1+2.chop8.prv.gz", 1704, 2640,
            16624, 160, 14, 0, 20 },
        { "public/paraver-pypop/epoch_example_traces/epoch_1proc.prv.gz", 3468, 4048, 43392, 576, 1,
            0, 1 },
        { "public/paraver-pypop/epoch_example_traces/epoch_2proc.prv.gz", 6985, 8147, 86969, 1156,
            3, 0, 2 },
        { "public/paraver-pypop/epoch_example_traces/epoch_4proc.prv.gz", 15007, 17579, 186061,
            2556, 5, 0, 4 },
        { "public/paraver-pypop/epoch_example_traces/epoch_8proc.prv.gz", 29983, 35114, 371324,
            5100, 9, 0, 8 },
        { "public/paraver-pypop/epoch_example_traces/epoch_16proc.prv.gz", 61391, 72005, 759355,
            10556, 17, 0, 16 },
        { "public/paraver-pypop/imagemagick_example_traces/omp4.prv.gz", 114301, 114313, 1083849, 0,
            0, 0, 4 },
    };
    for (const Expected& e : expected) {
        const std::filesystem::path path = test::realTrace(e.path);
        if (path.empty() || !std::filesystem::exists(path))
            continue;
        INFO(e.path);
        MemoryTrace trace;
        ParaverImportStats stats = storage::importParaver(path, trace);
        CHECK(stats.states == e.states);
        CHECK(stats.eventLines == e.eventLines);
        CHECK(stats.eventPairs == e.pairs);
        CHECK(stats.communications == e.comms);
        CHECK(stats.communicatorLines == e.communicatorLines);
        CHECK(stats.globalOps == e.globalOps);
        CHECK(stats.flows == e.comms);
        CHECK_FALSE(stats.truncated);
        std::uint64_t threads = 0, intervals = 0, flows = 0, samples = 0, instants = 0;
        for (const auto& info : trace.resources().tracks()) {
            if (info.kind == model::ResourceKind::Thread)
                ++threads;
            intervals += trace.track(info.id).intervals.size();
            flows += trace.track(info.id).flows.size();
            samples += trace.track(info.id).counters.size();
            instants += trace.track(info.id).instants.size();
        }
        CHECK(threads == e.threads);
        CHECK(intervals == stats.states + stats.eventIntervals);
        CHECK(intervals == stats.intervals);
        CHECK(flows == e.comms);
        CHECK(samples == stats.counterSamples);
        CHECK(instants == stats.instants);
        // each pair gives at most one sample, instant or interval
        CHECK(stats.counterSamples + stats.instants + stats.eventIntervals <= stats.eventPairs);
        CHECK(stats.depthOverflows == 0);
        CHECK(trace.meta().at("source_format") == "paraver");
        std::cout << e.path << ": states " << stats.states << ", event lines " << stats.eventLines
                  << ", pairs " << stats.eventPairs << ", comms " << stats.communications
                  << ", event intervals " << stats.eventIntervals << ", counter samples "
                  << stats.counterSamples << ", instants " << stats.instants << ", unmatched ends "
                  << stats.unmatchedEnds << ", unclosed " << stats.unclosedBegins << "\n";
    }
}

TEST_CASE("Paraver parse speed (benchmark, not run by default)", "[.paraver-bench]") {
    auto measure = [](const std::filesystem::path& path, const char* what) {
        CountingSink sink;
        auto t0 = std::chrono::steady_clock::now();
        ParaverImportStats stats = storage::importParaver(path, sink);
        double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        std::uint64_t records = stats.states + stats.eventLines + stats.communications;
        std::cout << what << ": " << records << " records (" << stats.eventPairs << " pairs, "
                  << stats.bytes << " bytes) in " << s << " s = " << records / s / 1e6
                  << " M records/s, " << stats.bytes / s / 1e6 << " MB/s\n";
    };
    const std::filesystem::path omp =
        test::realTrace("public/paraver-pypop/imagemagick_example_traces/omp4.prv.gz");
    test::TempDir dir;
    if (!omp.empty() && std::filesystem::exists(omp)) {
        measure(omp, "omp4.prv.gz");
        // the same, inflated: the parser without zlib
        gzFile gz = gzopen(omp.string().c_str(), "rb");
        std::ofstream out(dir / "omp4.prv", std::ios::binary);
        std::vector<char> block(1 << 16);
        int got = 0;
        while ((got = gzread(gz, block.data(), unsigned(block.size()))) > 0)
            out.write(block.data(), got);
        gzclose(gz);
        out.close();
        std::filesystem::copy_file(omp.parent_path() / "omp4.pcf", dir / "omp4.pcf");
        measure(dir / "omp4.prv", "omp4.prv (inflated)");
        MemoryTrace trace;
        auto t0 = std::chrono::steady_clock::now();
        ParaverImportStats stats = storage::importParaver(dir / "omp4.prv", trace);
        double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        std::cout << "omp4.prv (inflated) into a MemoryTrace: "
                  << (stats.states + stats.eventLines) / s / 1e6 << " M records/s\n";
    }
    // A large plain trace, to time the parser on many records.
    {
        std::ofstream out(dir / "big.prv", std::ios::binary);
        out << "#Paraver (d):100000000000_ns:1(4):1:1(4:1),0\n";
        std::string chunk;
        for (int i = 0; i < 100000; ++i) {
            const std::string t = std::to_string(i * 1000);
            const std::string th = std::to_string(i % 4 + 1);
            chunk += "1:1:1:1:" + th + ":" + t + ":" + std::to_string(i * 1000 + 500) + ":1\n";
            chunk += "2:1:1:1:" + th + ":" + t + ":42000050:123456:42000059:98765\n";
        }
        for (int r = 0; r < 25; ++r)
            out << chunk;
    }
    measure(dir / "big.prv", "synthetic big.prv (5M records)");
}
