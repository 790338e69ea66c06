// Tests of the counter log importer: the real NVML log (h100/nvml_counters_1gpu.csv) alone
// and aligned to its Kineto trace's origin, nvidia-smi and perf-stat style logs (units in
// the header and the cells, dates, GPU index column, separators, ragged rows), bad input.

#include "storage/import/counters/counter_log_importer.h"

#include "storage/store/input_error.h"
#include "storage/store/memory_trace.h"

#include "tests/support/temp_dir.h"
#include <catch2/catch.hpp>

#include <filesystem>
#include <string>

using namespace strata;
using storage::InputError;
using storage::MemoryTrace;

namespace {

std::filesystem::path fixture(const std::string& name)
{
    return std::filesystem::path(STRATA_TEST_DATA_DIR) / "counters" / name;
}

const model::TrackInfo* findTrack(
    const MemoryTrace& trace, std::string_view name, model::TrackId parent)
{
    for (const model::TrackInfo& t : trace.resources().tracks()) {
        if (t.name == name && t.parent == parent)
            return &t;
    }
    return nullptr;
}

std::string errorOf(const std::filesystem::path& path)
{
    try {
        MemoryTrace trace;
        storage::importCounterLog(path, trace);
    } catch (const InputError& e) {
        return e.what();
    }
    return "(no error)";
}

}  // namespace

TEST_CASE("counter column names give their units", "[counters]") {
    using P = std::pair<std::string, std::string>;
    CHECK(storage::counterNameAndUnit("power_mw") == P { "power", "mW" });
    CHECK(storage::counterNameAndUnit("power_w") == P { "power", "W" });
    CHECK(storage::counterNameAndUnit(" power.draw [W] ") == P { "power.draw", "W" });
    CHECK(storage::counterNameAndUnit("power (W)") == P { "power", "W" });
    CHECK(storage::counterNameAndUnit("gpu_util_pct") == P { "gpu_util", "%" });
    CHECK(storage::counterNameAndUnit("temp_c") == P { "temp", "°C" });
    CHECK(storage::counterNameAndUnit("mem_used_bytes") == P { "mem_used", "B" });
    CHECK(storage::counterNameAndUnit("cycles") == P { "cycles", "" });
}

TEST_CASE("the real NVML log ingests alone and aligned to its trace's origin", "[counters][real]") {
    const auto path = test::realTrace("h100/nvml_counters_1gpu.csv");
    if (path.empty())
        return;  // the shared real-trace folder is absent
    SECTION("alone: time 0 is the first sample") {
        MemoryTrace trace;
        const auto stats = storage::importCounterLog(path, trace);
        CHECK(stats.rows == 414);
        CHECK(stats.counterTracks == 6);
        CHECK(stats.samples == 6 * 414);
        CHECK(stats.timeUnit == "ns");
        CHECK(stats.warnings.empty());
        CHECK(trace.meta().at("origin_ns") == "1795358807161624319");
        const model::TrackInfo* group =
            findTrack(trace, "counters (nvml_counters_1gpu.csv)", model::kNoTrack);
        REQUIRE(group);
        const model::TrackInfo* power = findTrack(trace, "power", group->id);
        REQUIRE(power);
        CHECK(power->unit == "mW");
        const auto& samples = trace.track(power->id).counters;
        REQUIRE(samples.size() == 414);
        CHECK(samples[0] == model::CounterSample { 0, 116913 });
        // Line 100: 1795358807668797141,0,0,117136,...
        CHECK(samples[98]
            == model::CounterSample { 1795358807668797141 - 1795358807161624319, 117136 });
    }
    SECTION("with the Kineto trace's origin (baseTimeNanoseconds + first ts)") {
        MemoryTrace trace;
        storage::CounterLogOptions options;
        options.originNs = 1795358809126066206;
        const auto stats = storage::importCounterLog(path, trace, options);
        CHECK(trace.meta().count("origin_ns") == 0);  // the trace's stays
        CHECK(stats.firstNs == 1795358807161624319 - 1795358809126066206);
        CHECK(stats.lastNs == 1795358809639898740 - 1795358809126066206);
        const model::TrackInfo* group =
            findTrack(trace, "counters (nvml_counters_1gpu.csv)", model::kNoTrack);
        REQUIRE(group);
        const model::TrackInfo* util = findTrack(trace, "gpu_util", group->id);
        REQUIRE(util);
        CHECK(util->unit == "%");
        CHECK(trace.track(util->id).counters.back()
            == model::CounterSample { 1795358809639898740 - 1795358809126066206, 0 });
    }
}

TEST_CASE("nvidia-smi logs: dates, a GPU index column, units in cells, [N/A]", "[counters]") {
    MemoryTrace trace;
    const auto stats = storage::importCounterLog(fixture("nvidia_smi.csv"), trace);
    CHECK(stats.timeUnit == "datetime");
    CHECK(stats.rows == 4);
    CHECK(trace.meta().at("origin_ns") == "1738324800000000000");  // 2025-01-31T12:00:00Z
    const model::TrackInfo* group = findTrack(trace, "counters (nvidia_smi.csv)", model::kNoTrack);
    REQUIRE(group);
    const model::TrackInfo* gpu1 = findTrack(trace, "GPU 1", group->id);
    REQUIRE(gpu1);
    CHECK(gpu1->kind == model::ResourceKind::Gpu);
    const model::TrackInfo* power1 = findTrack(trace, "power.draw", gpu1->id);
    REQUIRE(power1);
    CHECK(power1->unit == "W");
    CHECK(trace.track(power1->id).counters
        == std::vector<model::CounterSample> { { 0, 68.5 }, { 250'000'000, 69.0 } });
    const model::TrackInfo* clock1 = findTrack(trace, "clocks.sm", gpu1->id);
    REQUIRE(clock1);
    CHECK(trace.track(clock1->id).counters
        == std::vector<model::CounterSample> { { 250'000'000, 1755 } });
    CHECK(stats.counterTracks == 6);  // 3 counters x 2 GPUs; "name" has no number
    // [N/A]; the name column's text is no sample dropped (it is no counter: its own line).
    CHECK(stats.nonNumericCells == 1);
    CHECK(stats.emptyCells == 1);
    REQUIRE(stats.warnings.size() == 3);
    CHECK(stats.warnings[0] == "1 events dropped: empty cell (first at line 5, column 5)");
    CHECK(stats.warnings[1]
        == "1 events dropped: cell not a number (first at line 3, column 6 ('[N/A]'))");
    CHECK(stats.warnings[2] == "column 3 ('name') has no numeric value: no counter track");
}

TEST_CASE("perf-stat style logs: seconds, comments, separators, ragged rows", "[counters]") {
    MemoryTrace trace;
    const auto stats = storage::importCounterLog(fixture("perf_stat.csv"), trace);
    CHECK(stats.timeUnit == "s");
    CHECK(stats.commentLines == 1);
    CHECK(stats.raggedRows == 2);
    CHECK(trace.meta().at("origin_ns") == "1000123456");
    const model::TrackInfo* group = findTrack(trace, "counters (perf_stat.csv)", model::kNoTrack);
    REQUIRE(group);
    const model::TrackInfo* cycles = findTrack(trace, "cycles", group->id);
    REQUIRE(cycles);
    CHECK(trace.track(cycles->id).counters
        == std::vector<model::CounterSample> {
            { 0, 1234567 }, { 1000111111, 2345678 }, { 2000222222, 3456789 } });
    const model::TrackInfo* instructions = findTrack(trace, "instructions", group->id);
    REQUIRE(instructions);
    CHECK(trace.track(instructions->id).counters.size() == 2);
    CHECK_THAT(stats.warnings.back(),
        Catch::Equals("2 events altered: row with another number of cells than the header's 3 "
                      "(missing cells skipped, extra ones ignored) (first at line 4, column 3: 2 "
                      "cells)"));
}

TEST_CASE(
    "bad counter logs give one line with the file, the line and what was expected", "[counters]") {
    CHECK_THAT(errorOf(fixture("bad_time.csv")),
        Catch::EndsWith("bad_time.csv: line 4: column 1 (epoch_ns): expected a number of ns or a "
                        "date and time, got 'abc'"));
    CHECK_THAT(errorOf(fixture("no_time_column.csv")),
        Catch::EndsWith(
            "no_time_column.csv: line 1: expected a time column (epoch_ns, timestamp, time, "
            "ts, ...) in the CSV header"));
    // Found by fuzzing (UBSan: signed overflow): a date beyond int64 epoch ns.
    CHECK_THAT(errorOf(fixture("far_date.csv")),
        Catch::EndsWith(
            "far_date.csv: line 2: column 1 (timestamp): expected a number of ns or a date "
            "and time, got '9999/12/31 23:59:59.999'"));
    const std::string cut = errorOf(fixture("nvml_truncated.csv.gz"));
    CHECK_THAT(cut, Catch::Contains("nvml_truncated.csv.gz: line "));
    CHECK_THAT(cut, Catch::Contains("file is truncated"));
    CHECK(cut.find('\n') == std::string::npos);
}
