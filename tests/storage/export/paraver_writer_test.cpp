// Tests of the Paraver writer: a synthetic trace written as .prv/.pcf/.row and imported
// back with the Paraver importer matches what was written (tracks, states with their
// roles, every interval's start/end/name/category, instants, counter samples, flows),
// the exact records of a tiny hand-made trace, byte-for-byte determinism, and that no
// temporary file is left behind (after finish() or without it).

#include "storage/export/paraver_writer.h"

#include "storage/import/paraver/paraver_importer.h"
#include "storage/import/paraver/paraver_pcf.h"
#include "storage/store/memory_trace.h"
#include "storage/synth/synthetic_trace.h"

#include "tests/support/temp_dir.h"
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

using namespace strata;
using model::ResourceKind;
using model::TrackId;
using storage::MemoryTrace;
using storage::ParaverWriter;

namespace {

std::string readAll(const std::filesystem::path& path)
{
    std::ifstream in(path, std::ios::binary);
    std::ostringstream out;
    out << in.rdbuf();
    return out.str();
}

std::vector<std::string> fileNames(const std::filesystem::path& dir)
{
    std::vector<std::string> names;
    for (const auto& entry : std::filesystem::directory_iterator(dir))
        names.push_back(entry.path().filename().string());
    std::sort(names.begin(), names.end());
    return names;
}

storage::SynthOptions smallSynth()
{
    storage::SynthOptions options;
    options.events = 4000;
    options.ranks = 2;
    options.seed = 7;
    return options;
}

void writeSynth(const std::filesystem::path& prv)
{
    ParaverWriter writer(prv);
    storage::generateSyntheticTrace(smallSynth(), writer);
    writer.finish();
}

/// "rank 0/python main" style paths, without the node level (the writer keeps nodes, but
/// this keeps the comparison about what matters).
std::string pathOf(const MemoryTrace& trace, TrackId id)
{
    return trace.resources().path(id);
}

using IntervalKey = std::tuple<std::int64_t, std::int64_t, std::string, std::string>;

}  // namespace

TEST_CASE(
    "Paraver writer: a synthetic trace round-trips through the importer", "[paraver_writer]") {
    test::TempDir dir;
    MemoryTrace original;
    storage::generateSyntheticTrace(smallSynth(), original);
    {
        ParaverWriter writer(dir / "synth.prv");
        original.replayInto(writer);
        writer.finish();
        CHECK(writer.skippedCounterValues() == 0);
        CHECK(writer.clampedTimes() == 0);
    }
    CHECK(fileNames(dir.path())
        == std::vector<std::string> { "synth.pcf", "synth.prv", "synth.row" });

    MemoryTrace back;
    const storage::ParaverImportStats stats = storage::importParaver(dir / "synth.prv", back);
    CHECK(stats.hasPcf);
    CHECK(stats.hasRow);
    CHECK(stats.header.unitName == "ns");
    CHECK(stats.unmatchedEnds == 0);
    CHECK(stats.unclosedBegins == 0);
    CHECK(stats.endsBeforeBegin == 0);
    CHECK(stats.warnings.empty());

    const auto& tree = original.resources();
    const auto& backTree = back.resources();
    std::map<std::string, TrackId> backByPath;
    for (TrackId id = 0; id < backTree.size(); ++id)
        backByPath[pathOf(back, id)] = id;

    // Counts of what was written.
    std::uint64_t intervals = 0, outermost = 0, instants = 0, samples = 0, flows = 0;
    for (TrackId id = 0; id < tree.size(); ++id) {
        const auto& track = original.track(id);
        intervals += track.intervals.size();
        for (const auto& interval : track.intervals)
            outermost += interval.depth == 0 ? 1 : 0;
        instants += track.instants.size();
        samples += track.counters.size();
        flows += track.flows.size();
    }
    REQUIRE(intervals > 1000);
    REQUIRE(outermost > 0);
    REQUIRE(outermost < intervals);
    REQUIRE(instants > 0);
    REQUIRE(samples > 0);
    REQUIRE(flows > 0);
    CHECK(stats.states == outermost);
    CHECK(stats.eventIntervals == intervals);
    CHECK(stats.intervals == intervals + outermost);
    CHECK(stats.instants == instants);
    CHECK(stats.counterSamples == samples);
    CHECK(stats.flows == flows);
    CHECK(stats.communications == flows);

    SECTION("tracks: nodes, a task per process and per GPU, a thread per thread and stream") {
        std::uint64_t processes = 0, threads = 0;
        for (TrackId id = 0; id < tree.size(); ++id) {
            const auto& info = tree.track(id);
            if (info.kind == ResourceKind::Node)
                CHECK(backByPath.count(pathOf(original, id)));
            if (info.kind == ResourceKind::Process || info.kind == ResourceKind::Gpu) {
                ++processes;
                REQUIRE(backByPath.count(pathOf(original, id)));
                CHECK(backTree.track(backByPath.at(pathOf(original, id))).kind
                    == ResourceKind::Process);
            }
            if (info.kind == ResourceKind::Thread || info.kind == ResourceKind::Stream) {
                ++threads;
                REQUIRE(backByPath.count(pathOf(original, id)));
                CHECK(backTree.track(backByPath.at(pathOf(original, id))).kind
                    == ResourceKind::Thread);
            }
        }
        std::uint64_t headerTasks = 0, headerThreads = 0;
        for (const auto& task : stats.header.applications.at(0)) {
            ++headerTasks;
            headerThreads += std::uint64_t(task.threads);
        }
        CHECK(stats.header.applications.size() == 1);
        CHECK(headerTasks == processes);
        // Each GPU's counters live on an extra thread named after the GPU.
        CHECK(headerThreads == threads + std::uint64_t(smallSynth().ranks));
    }

    SECTION("every interval, state and instant is back on its thread, exactly") {
        for (TrackId id = 0; id < tree.size(); ++id) {
            const auto& track = original.track(id);
            if (track.intervals.empty() && track.instants.empty())
                continue;
            INFO(pathOf(original, id));
            REQUIRE(backByPath.count(pathOf(original, id)));
            const auto& got = back.track(backByPath.at(pathOf(original, id)));
            std::vector<IntervalKey> want, have;
            std::vector<std::tuple<std::int64_t, std::int64_t, model::Role>> wantStates, haveStates;
            for (const auto& i : track.intervals) {
                want.emplace_back(i.startNs, i.endNs, std::string(original.strings().text(i.name)),
                    std::string(original.strings().text(i.category)));
                if (i.depth == 0)
                    wantStates.emplace_back(i.startNs, i.endNs, i.role);
            }
            for (const auto& i : got.intervals) {
                const std::string category(back.strings().text(i.category));
                if (category == "state")
                    haveStates.emplace_back(i.startNs, i.endNs, i.role);
                else
                    have.emplace_back(
                        i.startNs, i.endNs, std::string(back.strings().text(i.name)), category);
            }
            std::sort(want.begin(), want.end());
            std::sort(have.begin(), have.end());
            std::sort(wantStates.begin(), wantStates.end());
            std::sort(haveStates.begin(), haveStates.end());
            CHECK(have == want);
            CHECK(haveStates == wantStates);

            std::vector<IntervalKey> wantInstants, haveInstants;
            for (const auto& i : track.instants)
                wantInstants.emplace_back(i.timeNs, 0, std::string(original.strings().text(i.name)),
                    std::string(original.strings().text(i.category)));
            for (const auto& i : got.instants)
                haveInstants.emplace_back(i.timeNs, 0, std::string(back.strings().text(i.name)),
                    std::string(back.strings().text(i.category)));
            std::sort(wantInstants.begin(), wantInstants.end());
            std::sort(haveInstants.begin(), haveInstants.end());
            CHECK(haveInstants == wantInstants);
        }
    }

    SECTION("a few exact intervals") {
        const TrackId main = backByPath.at(pathOf(original,
            *tree.findChild(*tree.findChild(tree.children(model::kNoTrack).at(0),
                                ResourceKind::Process, "rank 0"),
                ResourceKind::Thread, "python main")));
        const TrackId originalMain = *tree.findChild(
            *tree.findChild(tree.children(model::kNoTrack).at(0), ResourceKind::Process, "rank 0"),
            ResourceKind::Thread, "python main");
        const auto& first = original.track(originalMain).intervals.front();
        bool found = false;
        for (const auto& i : back.track(main).intervals) {
            if (i.startNs == first.startNs && i.endNs == first.endNs
                && back.strings().text(i.name) == original.strings().text(first.name)) {
                found = true;
            }
        }
        CHECK(found);
    }

    SECTION("counter samples: same values, under the GPU's extra thread") {
        for (TrackId id = 0; id < tree.size(); ++id) {
            const auto& info = tree.track(id);
            if (info.kind != ResourceKind::Counter)
                continue;
            const std::string gpu = pathOf(original, info.parent);
            const std::string path = gpu + "/" + tree.track(info.parent).name + "/" + info.name;
            INFO(path);
            REQUIRE(backByPath.count(path));
            const auto& got = back.track(backByPath.at(path)).counters;
            const auto& want = original.track(id).counters;
            REQUIRE(got.size() == want.size());
            for (std::size_t i = 0; i < want.size(); ++i) {
                CHECK(got[i].timeNs == want[i].timeNs);
                CHECK(got[i].value == std::round(want[i].value));
            }
        }
    }

    SECTION("flows: same ends and times, with size and tag") {
        using FlowKey = std::tuple<std::string, std::int64_t, std::string, std::int64_t,
            std::uint64_t, std::int64_t>;
        std::vector<FlowKey> want, have;
        for (TrackId id = 0; id < tree.size(); ++id) {
            for (const auto& f : original.track(id).flows)
                want.emplace_back(pathOf(original, id), f.fromNs, pathOf(original, f.toTrack),
                    f.toNs, f.sizeBytes, f.tag);
        }
        for (TrackId id = 0; id < backTree.size(); ++id) {
            for (const auto& f : back.track(id).flows)
                have.emplace_back(pathOf(back, id), f.fromNs, pathOf(back, f.toTrack), f.toNs,
                    f.sizeBytes, f.tag);
        }
        std::sort(want.begin(), want.end());
        std::sort(have.begin(), have.end());
        CHECK(have == want);
    }
}

TEST_CASE("Paraver writer: output is deterministic", "[paraver_writer]") {
    test::TempDir a;
    test::TempDir b;
    writeSynth(a / "t.prv");
    writeSynth(b / "t.prv");
    for (const char* name : { "t.prv", "t.pcf", "t.row" }) {
        INFO(name);
        const std::string first = readAll(a / name);
        CHECK_FALSE(first.empty());
        CHECK(first == readAll(b / name));
    }
}

TEST_CASE("Paraver writer: exact records of a tiny trace", "[paraver_writer]") {
    test::TempDir dir;
    storage::ParaverWriterOptions options;
    options.counterScale = 1000;
    {
        ParaverWriter writer(dir / "tiny.prv", options);
        writer.setMeta("paraver_date", "02/03/2024 at 12:00");
        const TrackId node = writer.addTrack(model::kNoTrack, ResourceKind::Node, "host");
        const TrackId proc = writer.addTrack(node, ResourceKind::Process, "rank 0");
        const TrackId main = writer.addTrack(proc, ResourceKind::Thread, "main");
        const TrackId gpu = writer.addTrack(node, ResourceKind::Gpu, "GPU 0");
        const TrackId stream = writer.addTrack(gpu, ResourceKind::Stream, "stream 7");
        const TrackId util = writer.addTrack(gpu, ResourceKind::Counter, "util", 0, "%");
        const TrackId loose = writer.addTrack(model::kNoTrack, ResourceKind::Thread, "");

        model::Interval outer { 100, 500, writer.intern("step"), writer.intern("cpu_op"), 0,
            model::Role::Useful };
        model::Interval inner { 150, 200, writer.intern("launch"), writer.intern("cuda_runtime"), 1,
            model::Role::Runtime };
        model::Interval kernel { 210, 300, writer.intern("nccl"), writer.intern("kernel"), 0,
            model::Role::Comm };
        writer.addInterval(main, outer);
        writer.addInterval(main, inner);
        writer.addInterval(stream, kernel);
        writer.addInstant(main, { 120, writer.intern("mark"), writer.intern("marker") });
        writer.addCounterSample(util, { 100, 12.3456 });
        writer.addCounterSample(util, { 200, std::nan("") });
        writer.addFlow(main, { 160, stream, 210, writer.intern("ac2g"), 64, 9 });
        writer.addInterval(loose, { 5, 6, writer.intern("x"), 0, 0, model::Role::Idle });
        writer.addStackSample(main, { 1, writer.internStack(0, writer.intern("f")) });
        writer.finish();
        CHECK(writer.skippedCounterValues() == 1);
        CHECK(writer.skippedSamples() == 1);
        CHECK(writer.stateRecords() == 3);
        CHECK(writer.communicationRecords() == 1);
    }
    CHECK(readAll(dir / "tiny.prv")
        == "#Paraver (02/03/2024 at 12:00):500_ns:2(3,1):1:3(1:1,2:1,1:2),0\n"
           "1:1:1:1:1:100:500:1\n"
           "2:1:1:1:1:100:60000000:1\n"
           "2:1:1:1:1:500:60000000:0\n"
           "2:1:1:1:1:150:60000001:1\n"
           "2:1:1:1:1:200:60000001:0\n"
           "1:2:1:2:1:210:300:13\n"
           "2:2:1:2:1:210:60000002:1\n"
           "2:2:1:2:1:300:60000002:0\n"
           "2:1:1:1:1:120:30000000:1\n"
           "2:4:1:2:2:100:90000000:12346\n"
           "3:1:1:1:1:160:160:2:1:2:1:210:210:64:9\n"
           "1:3:1:3:1:5:6:0\n"
           "2:3:1:3:1:5:60000003:1\n"
           "2:3:1:3:1:6:60000003:0\n");
    CHECK(readAll(dir / "tiny.row")
        == "LEVEL NODE SIZE 2\nhost\nnode\n\nLEVEL APPL SIZE 1\nstrata\n\n"
           "LEVEL TASK SIZE 3\nrank 0\nGPU 0\n(unnamed)\n\n"
           "LEVEL THREAD SIZE 4\nmain\nstream 7\nGPU 0\n(unnamed)\n");
    const storage::ParaverPcf pcf = storage::parseParaverPcf(dir / "tiny.pcf");
    CHECK(pcf.unitNs == 1);
    CHECK(pcf.states.at(1) == "Running");
    CHECK(pcf.states.at(13) == "Group Communication");
    CHECK(pcf.states.at(24) == "Overhead");
    CHECK(pcf.eventTypes.at(60000000).label == "cpu_op");
    CHECK(pcf.eventTypes.at(60000000).values.at(0) == "End");
    CHECK(pcf.eventTypes.at(60000000).values.at(1) == "step");
    CHECK(pcf.eventTypes.at(60000003).label == "Intervals");
    CHECK(pcf.eventTypes.at(30000000).label == "marker");
    CHECK(pcf.eventTypes.at(30000000).values.count(0) == 0);
    CHECK(pcf.eventTypes.at(90000000).label == "util (x1000)");
    CHECK(pcf.eventTypes.at(90000000).values.empty());

    MemoryTrace back;
    const auto stats = storage::importParaver(dir / "tiny.prv", back);
    CHECK(stats.states == 3);
    CHECK(stats.eventIntervals == 4);
    CHECK(stats.instants == 1);
    CHECK(stats.counterSamples == 1);
    CHECK(stats.flows == 1);
    CHECK(back.meta().at("paraver_date") == "02/03/2024 at 12:00");
    const auto& tree = back.resources();
    const TrackId main = *tree.findChild(
        *tree.findChild(*tree.findChild(model::kNoTrack, ResourceKind::Node, "host"),
            ResourceKind::Process, "rank 0"),
        ResourceKind::Thread, "main");
    bool sawRunning = false;
    for (const auto& i : back.track(main).intervals) {
        if (back.strings().text(i.category) == "state") {
            CHECK(i.role == model::Role::Useful);
            CHECK(back.strings().text(i.name) == "Running");
            sawRunning = true;
        }
    }
    CHECK(sawRunning);
}

TEST_CASE("Paraver writer: roles map to states that import as the same roles", "[paraver_writer]") {
    test::TempDir dir;
    {
        ParaverWriter writer(dir / "roles.prv");
        const TrackId proc = writer.addTrack(model::kNoTrack, ResourceKind::Process, "p");
        const TrackId thread = writer.addTrack(proc, ResourceKind::Thread, "t");
        model::TimeNs t = 0;
        for (model::Role role : model::kAllRoles) {
            writer.addInterval(thread, { t, t + 10, writer.intern("x"), 0, 0, role });
            t += 10;
        }
        writer.finish();
    }
    MemoryTrace back;
    storage::importParaver(dir / "roles.prv", back);
    std::vector<model::Role> roles;
    for (TrackId id = 0; id < back.resources().size(); ++id) {
        for (const auto& i : back.track(id).intervals) {
            if (back.strings().text(i.category) == "state")
                roles.push_back(i.role);
        }
    }
    std::vector<model::Role> want(model::kAllRoles.begin(), model::kAllRoles.end());
    std::sort(roles.begin(), roles.end());
    std::sort(want.begin(), want.end());
    CHECK(roles == want);
}

TEST_CASE("Paraver writer: no temporary files remain", "[paraver_writer]") {
    test::TempDir dir;
    SECTION("after finish()") {
        writeSynth(dir / "x.prv");
        CHECK(fileNames(dir.path()) == std::vector<std::string> { "x.pcf", "x.prv", "x.row" });
    }
    SECTION("destroyed without finish(): nothing is left") {
        {
            ParaverWriter writer(dir / "x.prv");
            storage::generateSyntheticTrace(smallSynth(), writer);
        }
        CHECK(fileNames(dir.path()).empty());
    }
    SECTION("used after finish() throws") {
        ParaverWriter writer(dir / "x.prv");
        writer.finish();
        CHECK_THROWS_AS(
            writer.addTrack(model::kNoTrack, ResourceKind::Node, "n"), std::logic_error);
        MemoryTrace back;
        const auto stats = storage::importParaver(dir / "x.prv", back);
        CHECK(stats.lines == 1);
    }
}
