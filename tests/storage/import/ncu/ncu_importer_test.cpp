// Tests of the Nsight Compute CSV importer: the real raw page (h100/ncu_raw.csv.gz) and
// details page (nsightful copy_blocked.csv) alone, with the counts their READMEs give and
// exact cells; the join to the real Kineto trace (through KernelRecorder) and to small
// hand-made traces (correlation, per-stream launch order, mangled names); quirks and bad
// input.

#include "storage/import/ncu/ncu_importer.h"

#include "storage/import/chrome/chrome_json_importer.h"
#include "storage/import/common/kernel_name.h"
#include "storage/import/common/kernel_recorder.h"
#include "storage/import/ncu/ncu_csv_reader.h"
#include "storage/store/input_error.h"
#include "storage/store/memory_trace.h"

#include "tests/support/temp_dir.h"
#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <string>

using namespace strata;
using storage::InputError;
using storage::MemoryTrace;

namespace {

std::filesystem::path fixture(const std::string& name)
{
    return std::filesystem::path(STRATA_TEST_DATA_DIR) / "ncu" / name;
}

/// The value of `metric` for the kernel starting at startNs on `track`, or -1.
double metricOf(
    const MemoryTrace& trace, model::TrackId track, model::TimeNs startNs, std::string_view metric)
{
    for (const model::KernelMetric& m : trace.kernelMetrics()) {
        if (m.track == track && m.startNs == startNs && trace.strings().text(m.metric) == metric)
            return m.value;
    }
    return -1;
}

std::optional<model::TrackId> findTrack(const MemoryTrace& trace, model::ResourceKind kind,
    std::string_view name, model::TrackId parent = model::kNoTrack)
{
    for (const model::TrackInfo& t : trace.resources().tracks()) {
        if (t.kind == kind && t.name == name && (parent == model::kNoTrack || t.parent == parent))
            return t.id;
    }
    return std::nullopt;
}

std::string errorOf(const std::function<void()>& f)
{
    try {
        f();
    } catch (const InputError& e) {
        return e.what();
    }
    return "(no error)";
}

constexpr std::string_view kTensor =
    "sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active";

}  // namespace

TEST_CASE("kernel name keys match demangler variants, mangled and cut names", "[ncu]") {
    using storage::kernelBaseKey;
    CHECK(
        kernelBaseKey("void at::native::(anonymous namespace)::vectorized_layer_norm_kernel<float, "
                      "float, false>(int, float, float const*)")
        == "vectorized_layer_norm_kernel");
    CHECK(
        kernelBaseKey("void at::<unnamed>::vectorized_layer_norm_kernel<float, float, 0>(int, T2, "
                      "const T1 *)")
        == "vectorized_layer_norm_kernel");
    CHECK(kernelBaseKey("void at::<unnamed>::vectorized_layer_norm_kernel<float, flo")
        == "vectorized_layer_norm_kernel");  // truncated
    CHECK(kernelBaseKey("_ZN2at6native28vectorized_layer_norm_kernelIffLb0EEEviT0_PKT_")
        == "vectorized_layer_norm_kernel");
    CHECK(kernelBaseKey("_Z10axpy_floatfPfS_") == "axpy_float");
    CHECK(kernelBaseKey("copy_blocked[v1,cw51cXTLS](Array<long long, 1, C, mutable, aligned>)")
        == "copy_blocked");
    CHECK(kernelBaseKey("nvjet_sm90_tst_128x64_64x8_1x2_h_bz_NNT")
        == "nvjet_sm90_tst_128x64_64x8_1x2_h_bz_NNT");
    CHECK(storage::kernelExactKey("void f<(anonymous namespace)::T>(int, float *)")
        == storage::kernelExactKey("void f<<unnamed>::T>(int,float*)"));
}

TEST_CASE("the real ncu raw page reads as 11 kernels with units and exact cells", "[ncu][real]") {
    const auto path = test::realTrace("h100/ncu_raw.csv.gz");
    if (path.empty())
        return;  // the shared real-trace folder is absent
    const storage::NcuReport report = storage::readNcuCsv(path);
    CHECK_FALSE(report.detailsPage);
    CHECK(report.kernels.size() == 11);
    CHECK(report.metrics.size() == 299);
    CHECK(report.toolLines == 3);  // ==WARNING== and two ==PROF== lines
    CHECK(report.raggedRows == 0);
    const std::vector<model::TimeNs> durations = { 6528, 6592, 7424, 42880, 42880, 176000, 23584,
        57984, 42304, 61856, 56544 };
    for (std::size_t i = 0; i < durations.size(); ++i) {
        CHECK(report.kernels[i].id == static_cast<std::int64_t>(i));
        CHECK(report.kernels[i].durationNs == durations[i]);
        CHECK(report.kernels[i].stream == 7);
        CHECK(report.kernels[i].device == 0);
    }
    CHECK(report.kernels[7].name.starts_with("cudnn_generated_fort_native_sdpa_sm90_flash_fprop"));
    CHECK(report.kernels[9].grid == "4096,1,1");
    CHECK(report.kernels[9].block == "32,4,1");

    MemoryTrace trace;
    const storage::NcuImportStats stats = storage::importNcuCsv(path, trace);
    CHECK(stats.kernels == 11);
    CHECK(stats.kernelMetrics == 11 * 83);  // numeric, non-environment metrics per kernel
    const auto gpu = findTrack(trace, model::ResourceKind::Gpu, "GPU 0");
    REQUIRE(gpu);
    const auto stream = findTrack(trace, model::ResourceKind::Stream, "stream 7", *gpu);
    REQUIRE(stream);
    const auto& intervals = trace.track(*stream).intervals;
    REQUIRE(intervals.size() == 11);
    // Back to back in ID order, each as long as gpu__time_duration.sum.
    model::TimeNs cursor = 0;
    for (std::size_t i = 0; i < intervals.size(); ++i) {
        CHECK(intervals[i].startNs == cursor);
        CHECK(intervals[i].durationNs() == durations[i]);
        cursor = intervals[i].endNs;
    }
    CHECK(cursor == 524576);
    CHECK_THAT(
        trace.track(*stream).intervalArgs[2], Catch::Contains("\"dram__bytes_read.sum\":4213504"));
    CHECK_THAT(trace.track(*stream).intervalArgs[2],
        Catch::Contains("\"launch__func_cache_config\":\"CachePreferNone\""));
    // A kernel's metric equals its CSV cell; the counter track holds it over the kernel.
    CHECK(metricOf(trace, *stream, intervals[5].startNs, kTensor) == Approx(94.79));
    CHECK(metricOf(trace, *stream, intervals[5].startNs, "dram__bytes_read.sum") == 150607872.0);
    const auto group = findTrack(trace, model::ResourceKind::Group, "ncu metrics", *gpu);
    REQUIRE(group);
    const auto tensor = findTrack(trace, model::ResourceKind::Counter, kTensor, *group);
    REQUIRE(tensor);
    CHECK(trace.resources().track(*tensor).unit == "%");
    const auto& samples = trace.track(*tensor).counters;
    REQUIRE(samples.size() == 12);  // one per kernel, and the last kernel's end back to 0
    CHECK(samples[5] == model::CounterSample { intervals[5].startNs, 94.79 });
    CHECK(samples[11] == model::CounterSample { cursor, 0.0 });
}

TEST_CASE(
    "the real ncu details page reads with rule rows, ragged rows and separators", "[ncu][real]") {
    const auto path = test::realTrace("public/nsys-ncu-nsightful/copy_blocked.csv");
    if (path.empty())
        return;
    const storage::NcuReport report = storage::readNcuCsv(path);
    CHECK(report.detailsPage);
    CHECK(report.dataRows == 83);
    CHECK(report.ruleRows == 11);
    CHECK(report.raggedRows == 72);  // 16-cell metric rows under a 20-column header
    REQUIRE(report.kernels.size() == 1);
    CHECK(report.kernels[0].durationNs == 21058944);
    CHECK(report.kernels[0].name.starts_with("copy_blocked[v1,"));

    MemoryTrace trace;
    const storage::NcuImportStats stats = storage::importNcuCsv(path, trace);
    CHECK(stats.kernels == 1);
    const auto stream = findTrack(trace, model::ResourceKind::Stream, "stream 7");
    REQUIRE(stream);
    CHECK(metricOf(trace, *stream, 0, "DRAM Frequency") == Approx(4963609951.19));
    CHECK(metricOf(trace, *stream, 0, "Memory Throughput") == Approx(61.84));
    CHECK(metricOf(trace, *stream, 0, "Memory Throughput (Memory Workload Analysis)")
        == Approx(196456177859.63));
    CHECK(metricOf(trace, *stream, 0, "Threads") == 262144.0);
    CHECK(stats.nonNumericCells == 1);  // Function Cache Configuration: CachePreferNone
}

TEST_CASE(
    "ncu rows join the real Kineto trace's kernels by name, launch and order", "[ncu][real]") {
    const auto kineto = test::realTrace("h100/kineto_gpt_train_1gpu.json.gz");
    const auto ncu = test::realTrace("h100/ncu_raw.csv.gz");
    if (kineto.empty() || ncu.empty())
        return;
    MemoryTrace trace;
    storage::KernelRecorder recorder(trace);
    storage::importChromeJson(kineto, recorder);
    CHECK(recorder.kernels().size() == 1820);  // README: 1,820 kernel intervals
    REQUIRE(recorder.originNs() == 1795358809126066206);  // baseTimeNanoseconds + first ts

    const storage::NcuImportStats stats = storage::importNcuCsv(ncu, recorder, &recorder.kernels());
    // Joined: the cuDNN attention and nvjet GEMM by exact name, layer norm and softmax by
    // base name with the same grid/block; the RNG fills (other grid) and the 128x64 GEMM
    // (not in the trace) are not.
    CHECK(stats.joined == 4);
    CHECK(stats.unjoined == 7);
    CHECK(stats.joinedByBaseName == 2);
    CHECK(stats.kernelMetrics == 4 * 83);
    REQUIRE(stats.warnings.size() == 1);
    CHECK_THAT(stats.warnings[0], Catch::StartsWith("joined 4 of 11 profiled kernel(s)"));

    // The first cuDNN fprop of the trace starts 2901.912 us after the origin.
    const auto stream = findTrack(trace, model::ResourceKind::Stream, "stream 7");
    REQUIRE(stream);
    CHECK(metricOf(trace, *stream, 2901912, kTensor) == Approx(39.96));
    CHECK(metricOf(trace, *stream, 2901912, "gpu__time_duration.sum") == 57984.0);
    CHECK(metricOf(trace, *stream, 1758401, "dram__bytes_read.sum") == 97810432.0);  // layer norm
    // Its counter plateau: the value at the kernel's start, 0 at its end.
    const model::TrackId gpu = trace.resources().track(*stream).parent;
    const auto group = findTrack(trace, model::ResourceKind::Group, "ncu metrics", gpu);
    REQUIRE(group);
    const auto tensor = findTrack(trace, model::ResourceKind::Counter, kTensor, *group);
    REQUIRE(tensor);
    const auto& samples = trace.track(*tensor).counters;
    REQUIRE(samples.size() == 8);
    const auto at = std::find_if(samples.begin(), samples.end(),
        [](const model::CounterSample& s) { return s.timeNs == 2901912; });
    REQUIRE(at != samples.end());
    CHECK(at->value == Approx(39.96));
    CHECK(*(at + 1) == model::CounterSample { 2901912 + 12929, 0.0 });
}

namespace {

/// A tiny trace: GPU 0 with streams 7 and 9, kernels given as (stream, start, name, args).
struct TinyTrace
{
    MemoryTrace memory;
    storage::KernelRecorder recorder { memory };
    model::TrackId gpu = recorder.addTrack(model::kNoTrack, model::ResourceKind::Gpu, "GPU 0");
    model::TrackId s7 = recorder.addTrack(gpu, model::ResourceKind::Stream, "stream 7", 7);
    model::TrackId s9 = recorder.addTrack(gpu, model::ResourceKind::Stream, "stream 9", 9);

    void kernel(model::TrackId track, model::TimeNs startNs, std::string_view name,
        std::string_view args = {})
    {
        recorder.addInterval(track,
            { startNs, startNs + 100, recorder.intern(name), recorder.intern("kernel") }, args);
    }
};

}  // namespace

TEST_CASE("ncu joins by correlation ID first, then Nth of a name per stream", "[ncu]") {
    SECTION("correlation") {
        TinyTrace t;
        t.kernel(t.s7, 1000, "k", R"({"stream": 7, "correlation": 101})");
        t.kernel(t.s7, 2000, "k", R"({"stream": 7, "correlation": 102})");
        const auto stats =
            storage::importNcuCsv(fixture("correlation.csv"), t.recorder, &t.recorder.kernels());
        CHECK(stats.joined == 2);
        CHECK(stats.joinedByCorrelation == 2);
        // ID 0 has correlation 102: the second kernel, though it was profiled first.
        CHECK(metricOf(t.memory, t.s7, 2000, "sm__throughput.avg.pct_of_peak_sustained_elapsed")
            == 20.0);
        CHECK(metricOf(t.memory, t.s7, 1000, "sm__throughput.avg.pct_of_peak_sustained_elapsed")
            == 10.0);
    }
    SECTION("name and launch order per stream, mangled names, ragged rows") {
        TinyTrace t;
        t.kernel(t.s7, 1000, "_Z4gemmIfLi128EEvPKfPfi");  // mangled: base key "gemm"
        t.kernel(t.s9, 1500, "_Z4gemmIfLi128EEvPKfPfi");
        t.kernel(t.s7, 2000, "axpy_kernel");
        t.kernel(t.s7, 3000, "_Z4gemmIfLi128EEvPKfPfi");
        const auto stats =
            storage::importNcuCsv(fixture("raw_small.csv"), t.recorder, &t.recorder.kernels());
        CHECK(stats.kernels == 4);
        CHECK(stats.joined == 4);
        CHECK(stats.joinedByBaseName == 3);
        // IDs 0 and 3 are the 1st and 2nd gemm on stream 7, ID 2 the gemm on stream 9.
        const std::string_view sm = "sm__throughput.avg.pct_of_peak_sustained_elapsed";
        CHECK(metricOf(t.memory, t.s7, 1000, sm) == 61.25);
        CHECK(metricOf(t.memory, t.s7, 3000, sm) == 65.0);
        CHECK(metricOf(t.memory, t.s9, 1500, sm) == 70.5);
        CHECK(metricOf(t.memory, t.s7, 1000, "dram__bytes_read.sum") == 1048576.0);  // "1,048,576"
        CHECK(metricOf(t.memory, t.s7, 1000, "gpu__time_duration.sum")
            == 1.5);  // as written, usecond
        CHECK(metricOf(t.memory, t.s7, 2000, sm) == -1);  // "n/a": no value
        CHECK(metricOf(t.memory, t.s7, 1000, "device__attribute_clock_rate") == -1);  // environment
        CHECK(stats.nonNumericCells == 4 + 1);  // PolicySpread x4, n/a
        REQUIRE(stats.warnings.size() == 2);
        CHECK(stats.warnings[1]
            == "2 events altered: row with another number of cells than the header (missing "
               "cells read as empty, extra cells ignored) (first at line 8)");
    }
    SECTION("unjoined rows are counted and named") {
        TinyTrace t;
        t.kernel(t.s7, 1000, "something_else");
        const auto stats =
            storage::importNcuCsv(fixture("raw_small.csv"), t.recorder, &t.recorder.kernels());
        CHECK(stats.joined == 0);
        CHECK(stats.unjoined == 4);
        CHECK_THAT(stats.warnings[0], Catch::Contains("4 not joined: ID 0 'void gemm<float, 128>"));
        CHECK(t.memory.kernelMetrics().empty());
    }
}

TEST_CASE(
    "ncu alone lays kernels back to back across streams, durations from their unit", "[ncu]") {
    MemoryTrace trace;
    const auto stats = storage::importNcuCsv(fixture("raw_small.csv"), trace);
    CHECK(stats.kernels == 4);
    const auto s7 = findTrack(trace, model::ResourceKind::Stream, "stream 7");
    const auto s9 = findTrack(trace, model::ResourceKind::Stream, "stream 9");
    REQUIRE(s7);
    REQUIRE(s9);
    const auto& k7 = trace.track(*s7).intervals;
    REQUIRE(k7.size() == 3);
    CHECK(k7[0].startNs == 0);
    CHECK(k7[0].endNs == 1500);  // 1.50 usecond
    CHECK(k7[1].startNs == 1500);
    CHECK(k7[1].endNs == 1750);
    REQUIRE(trace.track(*s9).intervals.size() == 1);
    CHECK(trace.track(*s9).intervals[0].startNs == 1750);
    CHECK(k7[2].startNs == 3750);
    CHECK(trace.strings().text(k7[0].name) == "void gemm<float, 128>(const float *, float *, int)");
}

TEST_CASE("bad ncu input gives one line with the file, the line and what was expected", "[ncu]") {
    MemoryTrace trace;
    const std::string header =
        errorOf([&] { storage::importNcuCsv(fixture("bad_header.csv"), trace); });
    CHECK_THAT(header,
        Catch::EndsWith("bad_header.csv: line 1: expected an Nsight Compute CSV header with \"ID\" "
                        "and \"Kernel Name\" columns"));
    const std::string id = errorOf([&] { storage::importNcuCsv(fixture("bad_id.csv"), trace); });
    CHECK_THAT(id,
        Catch::EndsWith(
            "bad_id.csv: line 4: column 1 (ID): expected an integer result ID, got 'one'"));
    const std::string cut =
        errorOf([&] { storage::importNcuCsv(fixture("raw_truncated.csv.gz"), trace); });
    CHECK_THAT(cut, Catch::Contains("raw_truncated.csv.gz: line "));
    CHECK_THAT(cut, Catch::Contains("file is truncated"));
    for (const std::string& e : { header, id, cut })
        CHECK(e.find('\n') == std::string::npos);
}
