// `strata ingest` with Nsight Compute and counter CSVs: alone, and joined to the real
// Kineto trace whatever the argument order; the per-kernel table read back through
// StoreReader; bad input exits 1 with one line.

#include "storage/store/store_reader.h"

#include "tests/support/run_command.h"
#include "tests/support/temp_dir.h"
#include <catch2/catch.hpp>

#include <algorithm>
#include <string>

using namespace strata;

namespace {

std::optional<model::TrackId> trackNamed(
    const storage::StoreReader& store, model::ResourceKind kind, std::string_view name)
{
    for (const model::TrackInfo& t : store.resources().tracks()) {
        if (t.kind == kind && t.name == name)
            return t.id;
    }
    return std::nullopt;
}

}  // namespace

TEST_CASE("ncu and NVML files ingest with the trace first whatever the order", "[cli][ncu][real]") {
    const auto kineto = test::realTrace("h100/kineto_gpt_train_1gpu.json.gz");
    const auto ncu = test::realTrace("h100/ncu_raw.csv.gz");
    const auto nvml = test::realTrace("h100/nvml_counters_1gpu.csv");
    if (kineto.empty() || ncu.empty() || nvml.empty())
        return;  // the shared real-trace folder is absent
    test::TempDir dir;
    const auto path = (dir / "joined.strata").string();
    const auto result =
        test::runStrata({ "ingest", ncu.string(), nvml.string(), kineto.string(), "-o", path });
    REQUIRE(result.exitCode == 0);
    CHECK_THAT(
        result.err, Catch::Contains("ncu_raw.csv.gz: warning: joined 4 of 11 profiled kernel(s)"));
    CHECK_THAT(result.err, Catch::Contains("; 7 not joined: ID 0 "));

    storage::StoreReader store(path);
    CHECK(store.meta("origin_ns") == "1795358809126066206");  // the trace's, not the log's
    // The trace is intact: 1820 kernels; NVML samples 2 s before its start are kept.
    CHECK(store.span().startNs == 1795358807161624319 - 1795358809126066206);
    const auto power = trackNamed(store, model::ResourceKind::Counter, "power");
    REQUIRE(power);
    CHECK(store.summary(*power).counters == 414);
    CHECK(store.summary(*power).firstNs == 1795358807161624319 - 1795358809126066206);

    const auto metrics = store.kernelMetricNames();
    CHECK(metrics.size() == 83);
    const auto tensor =
        std::find_if(metrics.begin(), metrics.end(), [&](const storage::KernelMetricInfo& m) {
            return store.strings().text(m.metric)
                == "sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active";
        });
    REQUIRE(tensor != metrics.end());
    CHECK(tensor->kernels == 4);
    CHECK(store.strings().text(tensor->unit) == "%");
    CHECK(tensor->maxValue == Approx(94.79));  // the nvjet 256x128 GEMM (ncu ID 5)

    const auto stream = trackNamed(store, model::ResourceKind::Stream, "stream 7");
    REQUIRE(stream);
    const auto values = store.kernelMetrics(*stream, tensor->metric);
    REQUIRE(values.size() == 4);
    // Each row names a real kernel interval of the trace: its start on the stream track.
    for (const model::KernelMetric& m : values) {
        const auto kernels = store.intervals(*stream, m.startNs, m.startNs + 1);
        CHECK(std::any_of(kernels.begin(), kernels.end(),
            [&](const model::Interval& i) { return i.startNs == m.startNs; }));
    }
    CHECK(values[1].startNs == 2901912);  // the first cuDNN attention forward
    CHECK(values[1].value == Approx(39.96));
    CHECK(store.kernelMetrics(*stream).size() == 4 * 83);
}

TEST_CASE("ncu and counter files ingest alone", "[cli][ncu]") {
    test::TempDir dir;
    const auto data = std::filesystem::path(STRATA_TEST_DATA_DIR);
    const auto ncuStore = (dir / "ncu.strata").string();
    REQUIRE(test::runStrata({ "ingest", (data / "ncu/raw_small.csv").string(), "-o", ncuStore })
                .exitCode
        == 0);
    {
        storage::StoreReader store(ncuStore);
        const auto stream = trackNamed(store, model::ResourceKind::Stream, "stream 7");
        REQUIRE(stream);
        CHECK(store.summary(*stream).intervals == 3);
        CHECK(store.kernelMetrics(*stream).size() == 3 * 3 - 1);  // duration, sm (one n/a), dram
    }
    const auto logStore = (dir / "log.strata").string();
    REQUIRE(
        test::runStrata({ "ingest", (data / "counters/perf_stat.csv").string(), "-o", logStore })
            .exitCode
        == 0);
    storage::StoreReader store(logStore);
    CHECK(store.meta("origin_ns") == "1000123456");
    CHECK(store.kernelMetricNames().empty());
    const auto cycles = trackNamed(store, model::ResourceKind::Counter, "cycles");
    REQUIRE(cycles);
    CHECK(store.summary(*cycles).counters == 3);
}

TEST_CASE("bad ncu and counter files exit 1 with one line and leave no store", "[cli][ncu]") {
    test::TempDir dir;
    const auto data = std::filesystem::path(STRATA_TEST_DATA_DIR);
    for (const char* name :
        { "counters/bad_time.csv", "counters/nvml_truncated.csv.gz", "ncu/bad_id.csv" }) {
        INFO(name);
        const auto out = dir / "bad.strata";
        const auto result =
            test::runStrata({ "ingest", (data / name).string(), "-o", out.string() });
        CHECK(result.exitCode == 1);
        CHECK(std::count(result.err.begin(), result.err.end(), '\n') == 1);
        CHECK_THAT(result.err, Catch::Contains(std::string(name) + ": line "));
        CHECK_FALSE(std::filesystem::exists(out));
    }
}
