// Tests of the Nsight Systems importer: every real export under shared/data/real (2021,
// 2022.1, 2024.5 and 2025.3 schemas) against the counts of its README, exact values of a
// few events read back with sqlite3, launch flows, a hand-made export with the optional
// tables missing and GPU metrics present, the `nsys stats` NVTX CSV, and clean errors for
// a truncated .gz, an SQLite file that is no export and a file that is neither.

#include "storage/import/nsys/nsys_importer.h"

#include "storage/store/input_error.h"
#include "storage/store/memory_trace.h"
#include "storage/store/sqlite_db.h"

#include "tests/support/temp_dir.h"
#include <catch2/catch.hpp>
#include <zlib.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>

using namespace strata;
using storage::InputError;
using storage::MemoryTrace;
using storage::NsysImportStats;

namespace {

struct Imported
{
    MemoryTrace trace;
    NsysImportStats stats;
};

std::string text(const MemoryTrace& trace, model::StringId id)
{
    return std::string(trace.strings().text(id));
}

/// Intervals per category over all tracks.
std::map<std::string, std::size_t> intervalsByCategory(const MemoryTrace& trace)
{
    std::map<std::string, std::size_t> counts;
    for (const model::TrackInfo& track : trace.resources().tracks()) {
        for (const model::Interval& e : trace.track(track.id).intervals)
            ++counts[text(trace, e.category)];
    }
    return counts;
}

template<typename Fn>
std::size_t countOver(const MemoryTrace& trace, Fn perTrack)
{
    std::size_t n = 0;
    for (const model::TrackInfo& track : trace.resources().tracks())
        n += perTrack(trace.track(track.id));
    return n;
}

/// The interval named `name` that starts at `startNs`, with its track and args.
struct Found
{
    model::TrackId track = model::kNoTrack;
    model::Interval interval;
    std::string args;
};

Found findInterval(const MemoryTrace& trace, const std::string& name, model::TimeNs startNs)
{
    for (const model::TrackInfo& track : trace.resources().tracks()) {
        const auto& t = trace.track(track.id);
        for (std::size_t i = 0; i < t.intervals.size(); ++i) {
            if (t.intervals[i].startNs == startNs && text(trace, t.intervals[i].name) == name)
                return { track.id, t.intervals[i], t.intervalArgs[i] };
        }
    }
    return {};
}

std::filesystem::path nsysFile(const std::string& relative)
{
    return test::realTrace("public/" + relative);
}

void writeFile(const std::filesystem::path& path, const std::string& bytes)
{
    std::ofstream(path, std::ios::binary) << bytes;
}

std::string readFile(const std::filesystem::path& path)
{
    std::ifstream in(path, std::ios::binary);
    std::ostringstream out;
    out << in.rdbuf();
    return out.str();
}

std::string importError(const std::filesystem::path& path)
{
    MemoryTrace trace;
    try {
        storage::importNsys(path, trace);
    } catch (const InputError& e) {
        return e.what();
    }
    return "(no error)";
}

}  // namespace

TEST_CASE("real nsys exports import with the counts of their READMEs", "[nsys]") {
    struct Expected
    {
        const char* path;
        std::size_t kernels, memcpys, memsets, runtimeRows, nvtxRows, osrtRows;
        std::size_t streams;  // distinct kernel streams
        std::size_t kernelFlows;  // kernels whose correlationId matches a RUNTIME row
        model::TimeNs kernelMinStart, kernelMaxEnd;
        const char* version;
        const char* origin;  // "" when the export has no session start time
        const char* gpu;
    };
    const Expected expected[] = {
        { "nsys-ncu-nsightful/power_iteration__baseline.sqlite.gz", 3689, 89, 0, 7417, 787, 1428, 1,
            3689, 15057495, 1805665356, "2025.3.1.90", "1754324972242076786", "GPU 0: Tesla T4" },
        { "nsys-pipit/cloverleaf-nsys/perlmutter-cloverleaf-cuda.sqlite.gz", 1312, 279, 0, 3048, 0,
            1831, 1, 1312, 533338240, 875678947, "2024.5.1.113", "1696392839587175550",
            "GPU 0: NVIDIA A100-SXM4-80GB" },
        { "nsys-extrap/nsys_db/con_kernel.sqlite.gz", 9, 11, 1, 71, 0, 0, 5, 7, 529596644,
            785605098, "2022.1.1.61", "1651514235128046600",
            "GPU 0: GeForce GTX 1060 with Max-Q Design" },
        { "nsys-extrap/concurrent_example/concurrent.s1/profile1.sqlite.gz", 12, 30, 17, 184, 77, 0,
            10, 12, 553471799, 621326374, "2022.1.1.61", "1653929609397482800",
            "GPU 0: GeForce GTX 1060 with Max-Q Design" },
        { "nsys-extrap/sampled_callchains/ex-gpu.s10/ex-gpu.s10.sqlite.gz", 6, 0, 0, 36, 0, 1288, 1,
            6, 352103962, 355189518, "", "", "GPU 0: A100-PCIE-40GB" },
    };
    for (const Expected& e : expected) {
        const std::filesystem::path path = nsysFile(e.path);
        if (path.empty())
            continue;
        INFO(e.path);
        MemoryTrace trace;
        const NsysImportStats stats = storage::importNsys(path, trace);
        auto byCategory = intervalsByCategory(trace);
        CHECK(stats.kernels == e.kernels);
        CHECK(byCategory["kernel"] == e.kernels);
        CHECK(byCategory["gpu_memcpy"] == e.memcpys);
        CHECK(byCategory["gpu_memset"] == e.memsets);
        // Every RUNTIME row is a call, but for the 2021 export's CUDA backtrace duplicates.
        CHECK(byCategory["cuda_runtime"] + byCategory["cuda_driver"] + stats.backtraceRows
            == e.runtimeRows);
        CHECK(stats.apiCalls + stats.backtraceRows == e.runtimeRows);
        // NVTX rows: ranges and marks, plus the domain-creation rows that only name them.
        CHECK(stats.nvtxRows == e.nvtxRows);
        CHECK(byCategory["nvtx"] == stats.nvtxRanges);
        CHECK(stats.nvtxRanges + stats.nvtxMarks + (e.nvtxRows > 0 ? 1 : 0) == e.nvtxRows);
        CHECK(byCategory["osrt"] + stats.osrtMarkers == e.osrtRows);

        std::size_t kernelFlows = 0;
        std::set<model::TrackId> kernelStreams;
        std::set<model::TrackId> streamTracks;
        model::TimeNs minStart = INT64_MAX, maxEnd = INT64_MIN;
        for (const model::TrackInfo& track : trace.resources().tracks()) {
            if (track.kind == model::ResourceKind::Stream) {
                streamTracks.insert(track.id);
                CHECK(trace.resources().track(track.parent).name == e.gpu);
            }
            for (const model::Interval& k : trace.track(track.id).intervals) {
                if (text(trace, k.category) != "kernel")
                    continue;
                minStart = std::min(minStart, k.startNs);
                maxEnd = std::max(maxEnd, k.endNs);
                kernelStreams.insert(track.id);
                CHECK(track.kind == model::ResourceKind::Stream);
            }
        }
        CHECK(kernelStreams.size() == e.streams);
        CHECK(minStart == e.kernelMinStart);
        CHECK(maxEnd == e.kernelMaxEnd);
        // Flows from CPU threads to streams, one per correlated GPU operation.
        for (const model::TrackInfo& track : trace.resources().tracks()) {
            for (const model::Flow& f : trace.track(track.id).flows) {
                CHECK(track.kind == model::ResourceKind::Thread);
                CHECK(streamTracks.count(f.toTrack) == 1);
                kernelFlows += text(trace, f.name).find("Launch") != std::string::npos ? 1 : 0;
            }
        }
        CHECK(kernelFlows == e.kernelFlows);
        CHECK(stats.flows + stats.gpuOpsWithoutCall == e.kernels + e.memcpys + e.memsets);

        CHECK(trace.meta().at("source_format") == "nsys");
        CHECK(stats.productVersion == e.version);
        if (*e.origin) {
            CHECK(trace.meta().at("origin_ns") == e.origin);
        } else {
            CHECK(trace.meta().count("origin_ns") == 0);
            CHECK_FALSE(stats.warnings.empty());
        }
    }
}

TEST_CASE("nsys events keep their exact times, names, tracks and args", "[nsys]") {
    const auto pipit = nsysFile("nsys-pipit/cloverleaf-nsys/perlmutter-cloverleaf-cuda.sqlite.gz");
    if (!pipit.empty()) {
        MemoryTrace trace;
        storage::importNsys(pipit, trace);
        // The first kernel (sqlite3: ORDER BY start LIMIT 1) and the call that launched it.
        const Found kernel = findInterval(trace, "par_ranged2d_kernel", 533338240);
        REQUIRE(kernel.track != model::kNoTrack);
        CHECK(kernel.interval.endNs == 534705884);
        CHECK(kernel.interval.role == model::Role::Useful);
        CHECK(trace.resources().path(kernel.track) == "GPU 0: NVIDIA A100-SXM4-80GB/stream 7");
        CHECK_THAT(kernel.args,
            Catch::Contains("\"grid\":[115426,1,1]") && Catch::Contains("\"block\":[256,1,1]")
                && Catch::Contains("\"registers per thread\":32")
                && Catch::Contains("\"correlation\":452")
                && Catch::Contains("void clover::par_ranged2d_kernel<"));
        const Found launch = findInterval(trace, "cudaLaunchKernel", 533303007);
        REQUIRE(launch.track != model::kNoTrack);
        CHECK(launch.interval.endNs == 533337262);
        CHECK(launch.interval.role == model::Role::Runtime);
        CHECK(trace.resources().path(launch.track)
            == "cuda-cloverleaf (pid 1701896)/cuda-cloverleaf (tid 1701896)");
        CHECK(launch.args == "{\"correlation\":452}");
        const auto& flows = trace.track(launch.track).flows;
        const auto flow = std::find_if(
            flows.begin(), flows.end(), [](const model::Flow& f) { return f.tag == 452; });
        REQUIRE(flow != flows.end());
        CHECK(flow->fromNs == 533303007);
        CHECK(flow->toTrack == kernel.track);
        CHECK(flow->toNs == 533338240);
        CHECK(text(trace, flow->name) == "cudaLaunchKernel");
        const Found sync = findInterval(trace, "cudaDeviceSynchronize", 533338435);
        REQUIRE(sync.track == launch.track);
        CHECK(sync.interval.endNs == 534708986);
        CHECK(sync.interval.role == model::Role::Sync);
    }
    const auto nightful = nsysFile("nsys-ncu-nsightful/power_iteration__baseline.sqlite.gz");
    if (!nightful.empty()) {
        MemoryTrace trace;
        storage::importNsys(nightful, trace);
        const Found copy = findInterval(trace, "Memcpy DtoH", 17825656);
        REQUIRE(copy.track != model::kNoTrack);
        CHECK(copy.interval.endNs == 17826872);
        CHECK(copy.interval.role == model::Role::Transfer);
        CHECK(copy.args
            == "{\"bytes\":8,\"kind\":\"Device-to-Host\",\"src kind\":\"Device\",\"dst "
               "kind\":\"Pageable\",\"correlation\":4971,\"device\":0,\"context\":1,\"stream\":7}");
        // NVTX push/pop ranges of the CCCL domain, named through textId.
        const Found loop = findInterval(trace, "Loop", 15076968);
        REQUIRE(loop.track != model::kNoTrack);
        CHECK(loop.interval.endNs == 1802878722);
        CHECK(loop.interval.depth == model::kAutoDepth);
        CHECK(trace.resources().track(loop.track).kind == model::ResourceKind::Thread);
        CHECK(loop.args == "{\"color\":\"#0000ff\"}");  // the default domain
        const Found reduce = findInterval(trace, "cub::DeviceReduce::Sum", 15381601);
        CHECK(reduce.interval.endNs == 15405486);
        CHECK(reduce.track == loop.track);
        CHECK(reduce.args == "{\"domain\":\"CCCL\"}");
        const Found poll = findInterval(trace, "poll", 54154474);
        REQUIRE(poll.track != model::kNoTrack);
        CHECK(poll.interval.endNs == 154340340);
        CHECK(poll.interval.role == model::Role::Sync);
    }
    const auto profile1 =
        nsysFile("nsys-extrap/concurrent_example/concurrent.s1/profile1.sqlite.gz");
    if (!profile1.empty()) {
        MemoryTrace trace;
        storage::importNsys(profile1, trace);
        const Found memset = findInterval(trace, "Memset", 553139322);
        REQUIRE(memset.track != model::kNoTrack);
        CHECK(memset.interval.endNs == 553141658);
        CHECK_THAT(memset.args,
            Catch::StartsWith("{\"bytes\":4000000,\"value\":0,\"memory kind\":\"Device\""));
        CHECK(trace.resources().track(memset.track).name == "stream 15");
        const Found main = findInterval(trace, "main", 146301581);  // 2022.1: text, not textId
        REQUIRE(main.track != model::kNoTrack);
        CHECK(main.interval.endNs == 623746591);
        CHECK_THAT(main.args, Catch::Contains("de.tu-darmstadt.parallel.extra_prof"));
    }
    const auto old = nsysFile("nsys-extrap/sampled_callchains/ex-gpu.s10/ex-gpu.s10.sqlite.gz");
    if (!old.empty()) {
        MemoryTrace trace;
        storage::importNsys(old, trace);
        const Found fopen = findInterval(trace, "fopen", 38301351);
        REQUIRE(fopen.track != model::kNoTrack);
        CHECK(fopen.interval.endNs == 38305979);
        CHECK(text(trace, fopen.interval.category) == "osrt");
        CHECK(trace.resources().path(fopen.track) == "ex-gpu (pid 868881)/ex-gpu (tid 868881)");
    }
}

TEST_CASE("a hand-made export without the optional tables imports what it has", "[nsys]") {
    test::TempDir dir;
    const auto path = dir / "tiny.sqlite";
    {
        storage::SqliteDb db(path, storage::SqliteDb::Mode::Create);
        // 2021-like: no metadata, no session start, no RUNTIME/MEMCPY/OSRT/ThreadNames,
        // TARGET_INFO_GPU keyed by deviceId, a kernel table without mangledName and grid
        // columns, NVTX with inline text; plus GPU metrics (2023+).
        db.exec(
            "CREATE TABLE StringIds (id INTEGER PRIMARY KEY, value TEXT);"
            "INSERT INTO StringIds VALUES (1, 'gemm'), (2, 'void gemm<float>(float*)'),"
            "  (3, 'ncclKernel_AllReduce_RING_LL_Sum_float');"
            "CREATE TABLE TARGET_INFO_GPU (vmId INT, deviceId INT, name TEXT);"
            "INSERT INTO TARGET_INFO_GPU VALUES (0, 0, 'H100'), (0, 1, 'H100');"
            "CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INT, end INT, deviceId INT,"
            "  contextId INT, streamId INT, correlationId INT, globalPid INT, demangledName INT,"
            "  shortName INT, registersPerThread INT);"
            "INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES"
            "  (100, 250, 1, 1, 7, 10, 16777216000, 2, 1, 64),"
            "  (300, 290, 1, 1, 7, 11, 16777216000, 3, 3, 32);"
            "CREATE TABLE NVTX_EVENTS (start INT, end INT, eventType INT, globalTid INT,"
            "  text TEXT, domainId INT, color INT, int64Value INT);"
            "INSERT INTO NVTX_EVENTS VALUES"
            "  (50, 400, 59, 16777216001, 'step', 0, 4294901760, NULL),"
            "  (60, NULL, 34, 16777216001, 'marker', 0, NULL, 42),"
            "  (70, NULL, 59, 16777216001, 'never popped', 0, NULL, NULL),"
            "  (80, 500, 60, 16777216002, 'request', 0, NULL, NULL);"
            "CREATE TABLE TARGET_INFO_GPU_METRICS (typeId INT, sourceId INT, typeName TEXT,"
            "  metricId INT, metricName TEXT);"
            "INSERT INTO TARGET_INFO_GPU_METRICS VALUES"
            "  (65537, 8589934592, 'GH100', 5, 'SMs Active [Throughput %]'),"
            "  (65537, 8589934592, 'GH100', 9, 'GPC Clock Frequency [MHz]');"
            "CREATE TABLE GPU_METRICS (timestamp INT, typeId INT, metricId INT, value INT);"
            "INSERT INTO GPU_METRICS VALUES (0, 65537, 5, 10), (100, 65537, 5, 95),"
            "  (0, 65537, 9, 1980), (100, 65537, 9, 1755), (100, 65537, 77, 3);");
    }
    MemoryTrace trace;
    const NsysImportStats stats = storage::importNsys(path, trace);
    CHECK(stats.kernels == 2);
    CHECK(stats.apiCalls == 0);
    CHECK(stats.flows == 0);
    CHECK(stats.gpuOpsWithoutCall == 2);
    CHECK(stats.negativeDurations == 1);
    CHECK(stats.nvtxRows == 4);
    CHECK(stats.nvtxRanges == 2);
    CHECK(stats.nvtxMarks == 1);
    CHECK(stats.nvtxUnclosed == 1);
    // Issue 14: one warning per kind, saying where the first one is.
    CHECK_THAT(stats.warnings,
        Catch::VectorContains(std::string("1 events dropped: NVTX range without an end (first at "
                                          "NVTX_EVENTS, start 70 ns)"))
            && Catch::VectorContains(std::string("1 events altered: end before its start: made "
                                                 "empty (first at CUPTI_ACTIVITY_KIND_KERNEL, "
                                                 "start 300 ns)")));
    CHECK(stats.gpuMetricSamples == 5);
    CHECK(stats.gpuMetricTracks == 3);
    CHECK(trace.meta().count("origin_ns") == 0);

    const Found gemm = findInterval(trace, "gemm", 100);
    REQUIRE(gemm.track != model::kNoTrack);
    CHECK(trace.resources().path(gemm.track) == "GPU 1: H100/stream 7");
    CHECK(gemm.args
        == "{\"demangled\":\"void gemm<float>(float*)\",\"registers per thread\":64,"
           "\"correlation\":10,\"device\":1,\"context\":1,\"stream\":7}");
    const Found nccl = findInterval(trace, "ncclKernel_AllReduce_RING_LL_Sum_float", 300);
    CHECK(nccl.interval.endNs == 300);  // ended before it started: made empty
    CHECK(nccl.interval.role == model::Role::Comm);
    CHECK(nccl.args.find("demangled") == std::string::npos);  // same id as the short name

    const Found step = findInterval(trace, "step", 50);
    REQUIRE(step.track != model::kNoTrack);
    CHECK(trace.resources().path(step.track) == "pid 1000/thread 1");
    CHECK(step.args == "{\"color\":\"#ff0000\"}");
    const auto& instants = trace.track(step.track).instants;
    REQUIRE(instants.size() == 1);
    CHECK(instants[0].timeNs == 60);
    CHECK(text(trace, instants[0].name) == "marker");
    CHECK(trace.track(step.track).instantArgs[0] == "{\"payload\":42}");
    const Found request = findInterval(trace, "request", 80);
    CHECK(trace.resources().path(request.track) == "pid 1000/NVTX start/end ranges");

    // Metrics under the GPU of sourceId >> 32 = 2, i.e. TARGET_INFO_GPU id 1.
    std::map<std::string, const model::TrackInfo*> counters;
    for (const model::TrackInfo& track : trace.resources().tracks()) {
        if (track.kind == model::ResourceKind::Counter)
            counters[trace.resources().path(track.id)] = &track;
    }
    REQUIRE(counters.count("GPU 1: H100/SMs Active [Throughput %]") == 1);
    const model::TrackInfo& sm = *counters["GPU 1: H100/SMs Active [Throughput %]"];
    CHECK(sm.unit == "%");
    CHECK(trace.track(sm.id).counters
        == std::vector<model::CounterSample> { { 0, 10.0 }, { 100, 95.0 } });
    CHECK(counters["GPU 1: H100/GPC Clock Frequency [MHz]"]->unit == "MHz");
    CHECK(counters.count("GPU 1: H100/metric 77") == 1);  // not described: named by its id
}

TEST_CASE("an nsys stats NVTX range ending before its start is made empty and warned with its "
          "line (issue 14)",
    "[nsys]") {
    test::TempDir dir;
    writeFile(dir / "nvtx.csv",
        "Start (ns),End (ns),Name,PID,TID,Lvl\n1,2,a,1,1,0\n5,3,b,1,1,0\n7,6,c,1,1,0\n");
    MemoryTrace trace;
    const NsysImportStats stats = storage::importNsys(dir / "nvtx.csv", trace);
    CHECK(stats.negativeDurations == 2);
    CHECK(stats.warnings
        == std::vector<std::string> {
            "2 events altered: end before its start: made empty (first at line 3)" });
}

TEST_CASE("the nsys stats NVTX trace CSV imports its ranges at their levels", "[nsys]") {
    const auto csv = nsysFile("nsys-pipit/nbody-nvtx/trace.csv");
    if (csv.empty())
        return;
    MemoryTrace trace;
    const NsysImportStats stats = storage::importNsys(csv, trace);
    CHECK(stats.nvtxRows == 131);
    CHECK(stats.nvtxRanges == 131);
    std::map<int, int> depths;
    std::set<std::string> names;
    for (const model::TrackInfo& track : trace.resources().tracks()) {
        for (const model::Interval& e : trace.track(track.id).intervals) {
            ++depths[e.depth];
            names.insert(text(trace, e.name));
        }
    }
    CHECK(depths == std::map<int, int> { { 0, 1 }, { 1, 30 }, { 2, 100 } });
    CHECK(names.size() == 11);
    const Found main = findInterval(trace, "main", 982845927);
    REQUIRE(main.track != model::kNoTrack);
    CHECK(main.interval.endNs == 1987944256);
    CHECK(trace.resources().path(main.track) == "pid 3086332/thread 3086332");
}

TEST_CASE("broken nsys inputs give one-line errors and leave no temporary file", "[nsys]") {
    test::TempDir dir;
    test::TempDir temp;
    // The inflated copy goes to TMPDIR: watch that it is removed (each test runs alone).
    setenv("TMPDIR", temp.path().c_str(), 1);

    SECTION("a truncated .gz") {
        const auto real = nsysFile("nsys-extrap/nsys_db/con_kernel.sqlite.gz");
        if (real.empty())
            return;
        const std::string bytes = readFile(real);
        writeFile(dir / "cut.sqlite.gz", bytes.substr(0, bytes.size() / 2));
        const std::string message = importError(dir / "cut.sqlite.gz");
        CHECK_THAT(message,
            Catch::StartsWith((dir / "cut.sqlite.gz").string() + ": byte ")
                && Catch::Contains("truncated"));
        CHECK(message.find('\n') == std::string::npos);
    }
    SECTION("an SQLite database that is not an nsys export") {
        {
            storage::SqliteDb db(dir / "other.sqlite", storage::SqliteDb::Mode::Create);
            db.exec("CREATE TABLE customers (id INT, name TEXT); INSERT INTO customers VALUES (1, "
                    "'a');");
        }
        CHECK_THAT(importError(dir / "other.sqlite"),
            Catch::StartsWith(
                (dir / "other.sqlite").string() + ": tables: expected an Nsight Systems export"));
    }
    SECTION("a gzipped SQLite database that is not an nsys export") {
        {
            storage::SqliteDb db(dir / "other.sqlite", storage::SqliteDb::Mode::Create);
            db.exec("CREATE TABLE customers (id INT);");
        }
        const std::string bytes = readFile(dir / "other.sqlite");
        gzFile gz = gzopen((dir / "other.sqlite.gz").c_str(), "wb");
        REQUIRE(gz != nullptr);
        gzwrite(gz, bytes.data(), static_cast<unsigned>(bytes.size()));
        gzclose(gz);
        CHECK_THAT(importError(dir / "other.sqlite.gz"),
            Catch::StartsWith((dir / "other.sqlite.gz").string() + ": tables: expected"));
    }
    SECTION("a file that is neither SQLite nor the CSV") {
        writeFile(dir / "junk.sqlite", "SQLite format 3");  // too short for the magic
        CHECK_THAT(importError(dir / "junk.sqlite"),
            Catch::StartsWith(
                (dir / "junk.sqlite").string() + ": line 1: expected the nsys stats"));
    }
    SECTION("an SQLite header followed by garbage") {
        writeFile(dir / "bad.sqlite", std::string("SQLite format 3\0", 16) + std::string(200, 'x'));
        const std::string message = importError(dir / "bad.sqlite");
        CHECK_THAT(message, Catch::StartsWith((dir / "bad.sqlite").string() + ": "));
        CHECK(message != "(no error)");
    }
    SECTION("a CSV line with a bad number names its line") {
        writeFile(
            dir / "nvtx.csv", "Start (ns),End (ns),Name,PID,TID,Lvl\n1,2,a,1,1,0\n3,x4,b,1,1,0\n");
        CHECK(importError(dir / "nvtx.csv")
            == (dir / "nvtx.csv").string()
                + ": line 3: expected an integer in column 'End (ns)', found 'x4'");
    }
    CHECK(std::filesystem::is_empty(temp.path()));
    unsetenv("TMPDIR");
}
