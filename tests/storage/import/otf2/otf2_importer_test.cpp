// Tests of the OTF2 importer: the tick -> ns clock on huge values, the MPI message matcher,
// region roles, anchor resolution, both real Score-P traces of the pipit ping-pong (the
// counts of their README and exact times, flows and PAPI values checked with otf2-print),
// and corrupt copies of them (truncated or missing files give one line naming the file).

#include "storage/import/otf2/otf2_importer.h"

#include "storage/import/otf2/mpi_message_matcher.h"
#include "storage/import/otf2/otf2_clock.h"
#include "storage/import/otf2/otf2_definitions.h"
#include "storage/import/otf2/otf2_event_mapper.h"
#include "storage/store/input_error.h"
#include "storage/store/memory_trace.h"

#include "tests/support/temp_dir.h"
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <vector>

using namespace strata;
using storage::InputError;
using storage::MemoryTrace;

namespace {

namespace fs = std::filesystem;

const char* const kPingPong = "public/otf2-pipit/ping-pong-otf2";
const char* const kPingPongPapi = "public/otf2-pipit/ping-pong-otf2-papi";

std::string text(const MemoryTrace& trace, model::StringId id)
{
    return std::string(trace.strings().text(id));
}

/// Tracks whose path (names from the root, '/'-joined) is `path`.
std::vector<model::TrackId> tracksAt(const MemoryTrace& trace, const std::string& path)
{
    std::vector<model::TrackId> found;
    for (const model::TrackInfo& info : trace.resources().tracks()) {
        if (trace.resources().path(info.id) == path)
            found.push_back(info.id);
    }
    return found;
}

model::TrackId trackAt(const MemoryTrace& trace, const std::string& path)
{
    const std::vector<model::TrackId> found = tracksAt(trace, path);
    REQUIRE(found.size() == 1);
    return found.front();
}

/// A writable copy of a real archive folder.
fs::path copyArchive(const fs::path& from, const test::TempDir& dir)
{
    const fs::path to = dir / "archive";
    fs::copy(from, to, fs::copy_options::recursive);
    for (const fs::directory_entry& entry : fs::recursive_directory_iterator(to))
        fs::permissions(entry.path(), fs::perms::owner_write, fs::perm_options::add);
    fs::permissions(to, fs::perms::owner_write, fs::perm_options::add);
    return to;
}

std::string importError(const fs::path& input)
{
    MemoryTrace trace;
    try {
        storage::importOtf2(input, trace);
    } catch (const InputError& e) {
        return e.what();
    }
    return "(no error)";
}

}  // namespace

TEST_CASE(
    "OTF2 ticks convert to exact ns, rounded, even past 2^53 and before the offset", "[otf2]") {
    const storage::Otf2Clock tsc(2095197216, 7397466976977800);
    CHECK(tsc.toNs(7397466976977800) == 0);
    CHECK(tsc.toNs(7397466976977800 + 2095197216ull * 3600) == 3'600'000'000'000);
    CHECK(tsc.toNs(7397467382750926) == 193668225);  // the first MPI_Send below

    const storage::Otf2Clock ns(1'000'000'000, 0);  // a nanosecond timer
    CHECK(ns.toNs(9007199254740993ull) == 9007199254740993);  // 2^53 + 1: a double says ...992
    CHECK(ns.toNs(9223372036854775807ull) == INT64_MAX);
    CHECK_FALSE(ns.toNs(9223372036854775808ull).has_value());  // does not fit in int64

    const storage::Otf2Clock third(3, 10);  // 1 tick = 333.33 ns: half rounds away from 0
    CHECK(third.toNs(11) == 333333333);
    CHECK(third.toNs(12) == 666666667);
    CHECK(third.toNs(9) == -333333333);
    CHECK(third.toNs(8) == -666666667);
    CHECK_FALSE(third.toNs(~std::uint64_t(0)).has_value());  // ~1.9e27 ns

    // 2 GHz over the whole 64-bit tick range: (2^64 - 3) / 2 ns = INT64_MAX - 0.5, rounded up.
    const storage::Otf2Clock twoGHz(2'000'000'000, 0);
    CHECK(twoGHz.toNs(18446744073709551613ull) == INT64_MAX);
    CHECK_FALSE(twoGHz.toNs(18446744073709551615ull).has_value());

    CHECK_FALSE(storage::Otf2Clock(0, 0).toNs(5).has_value());
}

TEST_CASE("OTF2 Leave and Enter records that do not pair are counted with the first one's "
          "file and tick (issue 14)",
    "[otf2]") {
    storage::Otf2Definitions defs;
    defs.clock = storage::Otf2Clock(1'000'000'000, 0);  // 1 tick = 1 ns
    defs.hasClock = true;
    defs.regions[1] = {};
    defs.regions[2] = {};
    MemoryTrace trace;
    storage::Otf2ImportStats stats;
    storage::Otf2EventMapper mapper(trace, defs, stats, "run/traces");
    mapper.createTracks();
    mapper.leave(3, 40, 1);  // nothing open on location 3
    mapper.enter(3, 50, nullptr, 1);
    mapper.leave(3, 45, 1);  // before its Enter
    mapper.leave(3, 55, 2);  // region 2 is not open
    mapper.enter(3, 60, nullptr, 1);
    mapper.enter(3, 70, nullptr, 2);
    mapper.enter(3, 75, nullptr, 2);
    mapper.leave(3, 80, 1);  // closes both region 2 frames with it
    mapper.enter(5, 90, nullptr, 1);  // never left
    mapper.enter(4, 95, nullptr, 1);  // never left
    mapper.finish();
    CHECK(stats.unmatchedLeaves == 2);
    CHECK(stats.backwardTimes == 1);
    CHECK(stats.skippedLeaves == 2);
    CHECK(stats.unclosedEnters == 2);
    const std::string file3 = (fs::path("run/traces") / "3.evt").string();
    CHECK(stats.firstAt
        == std::map<std::string, std::string> { { "unmatched_leaves", file3 + ", tick 40" },
            { "backward_times", file3 + ", tick 45" }, { "skipped_leaves", file3 + ", tick 80" },
            { "unclosed_enters", (fs::path("run/traces") / "4.evt").string() } });
}

TEST_CASE("MPI messages pair by key in order, whichever side comes first", "[otf2]") {
    storage::MpiMessageMatcher m;
    const storage::MessageKey ab { 0, 1, 7, 10 };
    const storage::MessageKey abOtherTag { 0, 1, 7, 11 };
    CHECK_FALSE(m.send(ab, { 1, 100, 8 }));
    CHECK_FALSE(m.send(ab, { 1, 200, 16 }));
    CHECK_FALSE(m.receive(abOtherTag, { 2, 150, 4 }));  // another tag: no partner yet
    CHECK(m.pendingSends() == 2);
    CHECK(m.pendingReceives() == 1);
    const auto first = m.receive(ab, { 2, 300, 8 });
    REQUIRE(first);
    CHECK(first->send.timeNs == 100);  // non-overtaking: the oldest send
    CHECK(first->receive.timeNs == 300);
    const auto second = m.receive(ab, { 2, 310, 16 });
    REQUIRE(second);
    CHECK(second->send.sizeBytes == 16);
    const auto late = m.send(abOtherTag, { 1, 140, 4 });  // the receive was read first
    REQUIRE(late);
    CHECK(late->send.timeNs == 140);
    CHECK(late->receive.track == 2);
    CHECK(m.pendingSends() == 0);
    CHECK(m.pendingReceives() == 0);
}

TEST_CASE("OTF2 region roles: MPI waits and barriers sync, other MPI comm, code useful", "[otf2]") {
    using model::Role;
    CHECK(storage::otf2RegionRole("MPI_Send", OTF2_REGION_ROLE_POINT2POINT, OTF2_PARADIGM_MPI)
        == Role::Comm);
    CHECK(storage::otf2RegionRole("MPI_Allreduce", OTF2_REGION_ROLE_COLL_ALL2ALL, OTF2_PARADIGM_MPI)
        == Role::Comm);
    CHECK(storage::otf2RegionRole("MPI_Init", OTF2_REGION_ROLE_FUNCTION, OTF2_PARADIGM_MPI)
        == Role::Comm);
    CHECK(storage::otf2RegionRole("MPI_Wait", OTF2_REGION_ROLE_FUNCTION, OTF2_PARADIGM_MPI)
        == Role::Sync);
    CHECK(storage::otf2RegionRole("MPI_Waitall", OTF2_REGION_ROLE_FUNCTION, OTF2_PARADIGM_MPI)
        == Role::Sync);
    CHECK(storage::otf2RegionRole("MPI_Barrier", OTF2_REGION_ROLE_BARRIER, OTF2_PARADIGM_MPI)
        == Role::Sync);
    CHECK(storage::otf2RegionRole(
              "!$omp implicit barrier", OTF2_REGION_ROLE_IMPLICIT_BARRIER, OTF2_PARADIGM_OPENMP)
        == Role::Sync);
    CHECK(storage::otf2RegionRole(
              "TRACE BUFFER FLUSH", OTF2_REGION_ROLE_ARTIFICIAL, OTF2_PARADIGM_MEASUREMENT_SYSTEM)
        == Role::Runtime);
    CHECK(storage::otf2RegionRole(
              "int main(int, char**)", OTF2_REGION_ROLE_FUNCTION, OTF2_PARADIGM_COMPILER)
        == Role::Useful);
    CHECK(storage::otf2RegionRole("solve", OTF2_REGION_ROLE_FUNCTION, OTF2_PARADIGM_USER)
        == Role::Useful);
}

TEST_CASE("an OTF2 archive is found from its folder, anchor, .def or .evt", "[otf2][real]") {
    const fs::path dir = test::realTrace(kPingPong);
    if (dir.empty())
        return;  // the shared real-trace folder is not here
    const fs::path anchor = dir / "traces.otf2";
    CHECK(storage::otf2AnchorFor(dir) == anchor);
    CHECK(storage::otf2AnchorFor(anchor) == anchor);
    CHECK(storage::otf2AnchorFor(dir / "traces.def") == anchor);
    CHECK(storage::otf2AnchorFor(dir / "traces" / "0.evt") == anchor);
    test::TempDir empty;
    CHECK_THROWS_WITH(storage::otf2AnchorFor(empty.path()),
        Catch::Contains(empty.path().string())
            && Catch::Contains("expected a folder holding an OTF2 anchor"));
}

TEST_CASE("the pipit ping-pong OTF2 trace imports with its README's counts and exact times",
    "[otf2][real]") {
    const fs::path dir = test::realTrace(kPingPong);
    if (dir.empty())
        return;
    MemoryTrace trace;
    const storage::Otf2ImportStats stats = storage::importOtf2(dir, trace);
    // README: definitions and events by type.
    CHECK(stats.strings == 267);
    CHECK(stats.regions == 235);
    CHECK(stats.locations == 2);
    CHECK(stats.locationGroups == 2);
    CHECK(stats.systemTreeNodes == 2);
    CHECK(stats.comms == 3);
    CHECK(stats.groups == 5);
    CHECK(stats.metricMembers == 0);
    CHECK(stats.attributes == 4);
    CHECK(stats.events == 120);
    CHECK(stats.enters == 42);
    CHECK(stats.leaves == 42);
    CHECK(stats.sends == 16);
    CHECK(stats.receives == 16);
    CHECK(stats.programEvents == 4);
    CHECK(stats.metricEvents == 0);
    // Every region instance is an interval, every message a flow; nothing unbalanced.
    CHECK(stats.intervals == 42);
    CHECK(stats.flows == 16);
    CHECK(stats.instants == 4);
    CHECK(stats.unmatchedSends + stats.unmatchedReceives + stats.unresolvedPeers == 0);
    CHECK(stats.unclosedEnters + stats.unmatchedLeaves + stats.skippedLeaves == 0);
    CHECK(stats.warnings.empty());
    CHECK(trace.meta().at("source_format") == "otf2");
    CHECK(trace.meta().at("otf2_timer_resolution") == "2095197216");
    CHECK(trace.meta().at("otf2_global_offset_ticks") == "7397466976977800");
    CHECK(trace.meta().count("origin_ns") == 0);  // Date: UNDEFINED, no epoch to give
    CHECK_THAT(trace.meta().at("origin_clock"), Catch::Contains("not epoch-based"));

    // machine > node > rank > thread; both threads are "Master thread", told apart by rank.
    const model::TrackId rank0 = trackAt(trace, "machine Linux/quartz10/MPI Rank 0/Master thread");
    const model::TrackId rank1 = trackAt(trace, "machine Linux/quartz10/MPI Rank 1/Master thread");
    CHECK(trace.resources().track(rank0).kind == model::ResourceKind::Thread);
    CHECK(trace.resources().track(trace.resources().track(rank0).parent).kind
        == model::ResourceKind::Process);
    CHECK(trace.resources().track(trackAt(trace, "machine Linux/quartz10")).kind
        == model::ResourceKind::Node);
    CHECK(trace.track(rank0).intervals.size() == 21);
    CHECK(trace.track(rank1).intervals.size() == 21);

    // The first MPI_Send of rank 0 (otf2-print: ENTER 7397467382750926, LEAVE
    // 7397467382788022 at 2095197216 ticks/s from 7397466976977800), inside main.
    std::vector<model::Interval> sends;
    std::vector<std::string> sendArgs;
    for (std::size_t i = 0; i < trace.track(rank0).intervals.size(); ++i) {
        const model::Interval& interval = trace.track(rank0).intervals[i];
        if (text(trace, interval.name) == "MPI_Send") {
            sends.push_back(interval);
            sendArgs.push_back(trace.track(rank0).intervalArgs[i]);
        }
    }
    REQUIRE(sends.size() == 8);
    const auto first = std::min_element(sends.begin(), sends.end(),
        [](const auto& a, const auto& b) { return a.startNs < b.startNs; });
    CHECK(first->startNs == 193668225);
    CHECK(first->durationNs() == 193685930 - 193668225);
    CHECK(first->depth == 1);
    CHECK(first->role == model::Role::Comm);
    CHECK(text(trace, first->category) == "MPI");
    CHECK(sendArgs[std::size_t(first - sends.begin())]
        == R"({"receiver":1,"tag":10,"bytes":16384,"communicator":"MPI_COMM_WORLD"})");
    const auto main0 = std::find_if(trace.track(rank0).intervals.begin(),
        trace.track(rank0).intervals.end(),
        [&](const model::Interval& i) { return text(trace, i.name) == "int main(int, char**)"; });
    REQUIRE(main0 != trace.track(rank0).intervals.end());
    CHECK(main0->depth == 0);
    CHECK(main0->role == model::Role::Useful);

    // Flows link the two ranks, 8 each way; the first goes from that send (MPI_SEND record
    // at 7397467382760060) to rank 1's MPI_RECV record (7397467382799971).
    REQUIRE(trace.track(rank0).flows.size() == 8);
    REQUIRE(trace.track(rank1).flows.size() == 8);
    for (const model::Flow& flow : trace.track(rank0).flows)
        CHECK(flow.toTrack == rank1);
    for (const model::Flow& flow : trace.track(rank1).flows)
        CHECK(flow.toTrack == rank0);
    const model::Flow& message =
        *std::min_element(trace.track(rank0).flows.begin(), trace.track(rank0).flows.end(),
            [](const model::Flow& a, const model::Flow& b) { return a.fromNs < b.fromNs; });
    CHECK(message.fromNs == 193672585);
    CHECK(message.toNs == 193691633);
    CHECK(message.sizeBytes == 16384);
    CHECK(message.tag == 10);
    CHECK(text(trace, message.name) == "MPI message");
}

TEST_CASE("the PAPI ping-pong OTF2 trace gives one counter track per rank and PAPI member",
    "[otf2][real]") {
    const fs::path dir = test::realTrace(kPingPongPapi);
    if (dir.empty())
        return;
    MemoryTrace trace;
    const storage::Otf2ImportStats stats = storage::importOtf2(dir / "traces.otf2", trace);
    CHECK(stats.strings == 274);
    CHECK(stats.regions == 235);
    CHECK(stats.metricMembers == 3);
    CHECK(stats.events == 204);
    CHECK(stats.enters == 42);
    CHECK(stats.leaves == 42);
    CHECK(stats.metricEvents == 84);
    CHECK(stats.counterSamples == 252);  // README: metric values summed over Metric events
    CHECK(stats.counterTracks == 6);
    CHECK(stats.flows == 16);
    CHECK(stats.intervals == 42);

    const std::string rank0 = "machine Linux/quartz10/MPI Rank 0/Master thread/";
    const model::TrackId cycles = trackAt(trace, rank0 + "PAPI_TOT_CYC");
    const model::TrackId l2 = trackAt(trace, rank0 + "PAPI_L2_TCM");
    CHECK(trace.resources().track(cycles).kind == model::ResourceKind::Counter);
    CHECK(trace.resources().track(cycles).unit == "#");
    REQUIRE(trace.track(cycles).counters.size() == 42);
    // otf2-print: the first METRIC of location 0 at 7396895680158984 (29353 ns after the
    // offset 7396895680097484 at 2095191439 ticks/s): PAPI_TOT_CYC 98850, PAPI_L2_TCM 2191.
    CHECK(trace.track(cycles).counters.front() == model::CounterSample { 29353, 98850 });
    CHECK(trace.track(l2).counters.front() == model::CounterSample { 29353, 2191 });
    CHECK(
        tracksAt(trace, "machine Linux/quartz10/MPI Rank 1/Master thread/PAPI_BR_MSP").size() == 1);
}

TEST_CASE("corrupt OTF2 archives fail with one line naming the file", "[otf2][real]") {
    const fs::path real = test::realTrace(kPingPong);
    if (real.empty())
        return;
    SECTION("a truncated event file") {
        test::TempDir dir;
        const fs::path archive = copyArchive(real, dir);
        fs::resize_file(archive / "traces" / "1.evt", 100);
        const std::string error = importError(archive);
        CHECK_THAT(error,
            Catch::Contains((archive / "traces" / "1.evt").string())
                && Catch::Contains("expected whole event records") && Catch::Contains("libotf2"));
        CHECK(error.find('\n') == std::string::npos);
    }
    SECTION("an event file cut inside its first chunk header") {
        test::TempDir dir;
        const fs::path archive = copyArchive(real, dir);
        fs::resize_file(archive / "traces" / "0.evt", 10);
        CHECK_THAT(importError(archive), Catch::Contains((archive / "traces" / "0.evt").string()));
    }
    SECTION("a missing event file") {
        test::TempDir dir;
        const fs::path archive = copyArchive(real, dir);
        fs::remove(archive / "traces" / "1.evt");
        CHECK_THAT(importError(archive),
            Catch::Contains((archive / "traces" / "1.evt").string())
                && Catch::Contains("does not exist"));
    }
    SECTION("truncated global definitions") {
        test::TempDir dir;
        const fs::path archive = copyArchive(real, dir);
        fs::resize_file(archive / "traces.def", 3000);
        CHECK_THAT(importError(archive),
            Catch::Contains((archive / "traces.def").string())
                && Catch::Contains("expected complete global definitions"));
    }
    SECTION("a garbage anchor") {
        test::TempDir dir;
        const fs::path archive = copyArchive(real, dir);
        std::ofstream(archive / "traces.otf2", std::ios::trunc) << "garbage";
        CHECK_THAT(importError(archive / "traces.otf2"),
            Catch::Contains((archive / "traces.otf2").string())
                && Catch::Contains("expected an OTF2 anchor"));
    }
    SECTION("a truncated local definition file") {
        test::TempDir dir;
        const fs::path archive = copyArchive(real, dir);
        fs::resize_file(archive / "traces" / "1.def", 20);
        CHECK_THAT(importError(archive), Catch::Contains((archive / "traces" / "1.def").string()));
    }
}
