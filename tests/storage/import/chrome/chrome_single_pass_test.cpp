// The Chrome importer's single pass (chrome_json_importer.h): into a store builder, a file
// is read once and its tracks are named and moved to time 0 at the end. It must give the
// store that two passes give (the layout learnt first), byte for byte, on every fixture
// and every real Chrome/Kineto trace; a file that needs its layout first is undone and read
// again, with the same result.

#include "storage/import/chrome/chrome_json_importer.h"
#include "storage/store/input_error.h"
#include "storage/store/store_builder.h"

#include "tests/support/temp_dir.h"
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <string>
#include <tuple>
#include <vector>

using namespace strata;

namespace {

struct Built
{
    std::string store;  ///< the store's bytes; empty when the import failed
    std::string error;
    storage::ImportStats stats;
};

/// Imports `path` into a new store: in one pass, or in two (pass 1 given as made ahead,
/// as a run of several files does), with a small memory budget so that events spill.
Built build(const std::filesystem::path& path, const std::filesystem::path& store, bool twoPasses,
    std::size_t budget = std::size_t(512) << 20)
{
    Built out;
    try {
        storage::StoreBuildOptions buildOptions;
        buildOptions.memoryBudgetBytes = budget;
        storage::StoreBuilder builder(store, buildOptions);
        storage::ChromeImportOptions options;
        options.threads = 2;
        if (twoPasses)
            options.prescan = storage::prescanChromeJson(path, options);
        out.stats = storage::importChromeJson(path, builder, options);
        builder.finish();
        out.store = test::readFile(store);
    } catch (const storage::InputError& e) {
        out.error = e.what();
    }
    return out;
}

/// The import report's rows: name, value, first position.
std::vector<std::tuple<std::string, std::uint64_t, std::uint64_t>> counts(
    const storage::ImportStats& stats)
{
    std::vector<std::tuple<std::string, std::uint64_t, std::uint64_t>> out;
    for (const storage::ImportStatRow& row : stats.rows())
        out.emplace_back(std::string(row.name), row.value, row.first);
    return out;
}

/// One pass against two on `path`; returns how many times the single-pass import read it.
int checkSame(const std::filesystem::path& path, const std::filesystem::path& dir,
    std::size_t budget = std::size_t(512) << 20)
{
    INFO(path.string());
    const Built once = build(path, dir / "once.strata", false, budget);
    const Built twice = build(path, dir / "twice.strata", true, budget);
    CHECK(once.error == twice.error);
    CHECK(once.store.size() == twice.store.size());
    CHECK((once.store == twice.store));
    CHECK(once.stats.warnings == twice.stats.warnings);
    CHECK(counts(once.stats) == counts(twice.stats));
    CHECK(once.stats.originNs == twice.stats.originNs);
    CHECK(once.stats.endNs == twice.stats.endNs);
    if (twice.error.empty())
        CHECK(twice.stats.reads == 1);
    return once.stats.reads;
}

}  // namespace

TEST_CASE("Chrome single pass: every fixture gives the store of two passes", "[chrome]") {
    test::TempDir dir;
    const std::filesystem::path fixtures = std::filesystem::path(STRATA_TEST_DATA_DIR) / "chrome";
    int files = 0;
    for (const auto& entry : std::filesystem::directory_iterator(fixtures)) {
        if (entry.path().extension() == ".json" || entry.path().extension() == ".gz") {
            checkSame(entry.path(), dir.path());
            ++files;
        }
    }
    CHECK(files >= 20);
}

TEST_CASE("Chrome single pass: a Kineto trace is read once, and the same when its events spill",
    "[chrome]") {
    test::TempDir dir;
    const std::filesystem::path fixtures = std::filesystem::path(STRATA_TEST_DATA_DIR) / "chrome";
    // Metadata after the events, GPU pids, counters with several keys, baseTimeNanoseconds.
    CHECK(checkSame(fixtures / "kineto_small.json", dir.path()) == 1);
    CHECK(checkSame(fixtures / "metrics_2gpu.json", dir.path()) == 1);
    CHECK(checkSame(fixtures / "counters.json", dir.path()) == 1);
    // A budget of a few KB: the builder spills every few events, so the tracks' times are
    // moved in the spill file too.
    CHECK(checkSame(fixtures / "kineto_small.json", dir.path(), 4096) == 1);
    CHECK(checkSame(fixtures / "async.json", dir.path(), 4096) == 1);
}

TEST_CASE("Chrome single pass: what needs the layout first is undone and read in two passes",
    "[chrome]") {
    test::TempDir dir;
    const std::filesystem::path fixtures = std::filesystem::path(STRATA_TEST_DATA_DIR) / "chrome";
    // An X without "dur" ends at its thread's last time.
    const std::filesystem::path noDur = dir.path() / "no_dur.json";
    std::ofstream(noDur) << R"({"traceEvents":[
        {"ph":"X","name":"step","pid":1,"tid":1,"ts":10},
        {"ph":"X","name":"op","pid":1,"tid":1,"ts":10,"dur":5},
        {"ph":"X","name":"late","pid":1,"tid":1,"ts":30,"dur":7},
        {"ph":"M","name":"thread_name","pid":1,"tid":1,"args":{"name":"main"}}]})";
    CHECK(checkSame(noDur, dir.path()) == 3);
    CHECK(checkSame(noDur, dir.path(), 256) == 3);  // undone after a spill too
    // Flow ends bound to the next slice (no bp:"e").
    CHECK(checkSame(fixtures / "flows.json", dir.path()) == 3);
    // Host threads on a GPU's pid move to a process of their own.
    CHECK(checkSame(fixtures / "kineto_gpu_on_host_pid.json", dir.path()) == 3);
}

TEST_CASE("Chrome single pass: a file undone after another in the same store, spilled or not, "
          "leaves the other as it was",
    "[chrome]") {
    test::TempDir dir;
    const std::filesystem::path fixtures = std::filesystem::path(STRATA_TEST_DATA_DIR) / "chrome";
    const std::filesystem::path first = fixtures / "kineto_small.json";
    const std::filesystem::path noDur = dir.path() / "no_dur.json";
    std::ofstream(noDur) << R"({"traceEvents":[
        {"ph":"X","name":"op","cat":"cpu_op","pid":7,"tid":1,"ts":12,"dur":5,"args":{"a":1}},
        {"ph":"C","name":"mem","pid":7,"ts":13,"args":{"used":5}},
        {"ph":"X","name":"step","pid":7,"tid":1,"ts":10},
        {"ph":"X","name":"late","pid":7,"tid":2,"ts":30,"dur":7}]})";
    // Both into one store: the second is read once, undone at its X without dur (after
    // the first's tracks, strings and spilled segments), then read in two passes.
    auto both = [&](const std::filesystem::path& store, bool twoPasses, std::size_t budget) {
        storage::StoreBuildOptions buildOptions;
        buildOptions.memoryBudgetBytes = budget;
        storage::StoreBuilder builder(store, buildOptions);
        for (const auto& file : { first, noDur }) {
            storage::ChromeImportOptions options;
            if (twoPasses)
                options.prescan = storage::prescanChromeJson(file, options);
            const storage::ImportStats stats = storage::importChromeJson(file, builder, options);
            CHECK(stats.reads == (twoPasses ? 1 : file == first ? 1 : 3));
        }
        builder.finish();
        return test::readFile(store);
    };
    for (const std::size_t budget : { std::size_t(512) << 20, std::size_t(2048) }) {
        INFO("memory budget " << budget);
        const std::string once = both(dir / "once.strata", false, budget);
        CHECK(once.size() > 1000);
        CHECK((once == both(dir / "twice.strata", true, budget)));
    }

    // A file that fails half way leaves nothing of it: the store is the first file's.
    auto withFailure = [&](const std::filesystem::path& store, bool failing) {
        storage::StoreBuildOptions buildOptions;
        buildOptions.memoryBudgetBytes = 2048;
        storage::StoreBuilder builder(store, buildOptions);
        storage::importChromeJson(first, builder);
        if (failing) {
            CHECK_THROWS_AS(storage::importChromeJson(fixtures / "malformed_middle.json", builder),
                storage::InputError);
        }
        builder.finish();
        return test::readFile(store);
    };
    CHECK((withFailure(dir / "failed.strata", true) == withFailure(dir / "alone.strata", false)));
}

TEST_CASE("Chrome single pass: every real Chrome/Kineto trace gives the store of two passes",
    "[chrome][real]") {
    const std::filesystem::path real(STRATA_REAL_DATA_DIR);
    if (!std::filesystem::exists(real)) {
        WARN("shared/data/real is absent: real Chrome traces not checked");
        return;
    }
    test::TempDir dir;
    int files = 0;
    int once = 0;
    for (const auto& entry : std::filesystem::recursive_directory_iterator(real)) {
        const std::string name = entry.path().filename().string();
        if (!entry.is_regular_file() || !(name.ends_with(".json") || name.ends_with(".json.gz")))
            continue;
        const int reads = checkSame(entry.path(), dir.path());  // configs fail alike
        once += reads == 1 ? 1 : 0;
        files += reads > 0 ? 1 : 0;
    }
    CHECK(files >= 20);
    CHECK(once * 2 > files);  // most real traces are read once
}
