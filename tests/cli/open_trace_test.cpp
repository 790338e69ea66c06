// Issue 14, item 1: `strata FILE...` opens whatever `strata ingest` takes. Without a
// display it ingests raw traces into a store beside the first file (as File > Open does),
// reuses that store while the files are unchanged, renders the PNG and prints the
// figures; a bad file gets the one-line error and exit 1. Every trace is copied into a
// temporary folder first: the store is written beside it.

#include "tests/support/run_command.h"
#include "tests/support/temp_dir.h"
#include <catch2/catch.hpp>
#include <sys/stat.h>

#include <algorithm>
#include <chrono>
#include <fstream>
#include <iterator>

using namespace strata;

namespace {

std::string slurp(const std::filesystem::path& path)
{
    std::ifstream in(path, std::ios::binary);
    return { std::istreambuf_iterator<char>(in), {} };
}

/// Device, inode and modification time: what changes when a file is written anew.
struct FileIdentity
{
    dev_t device = 0;
    ino_t inode = 0;
    timespec modified {};
    bool operator==(const FileIdentity& o) const
    {
        return device == o.device && inode == o.inode && modified.tv_sec == o.modified.tv_sec
            && modified.tv_nsec == o.modified.tv_nsec;
    }
};

FileIdentity identity(const std::filesystem::path& path)
{
    struct stat st
    {};
    REQUIRE(::stat(path.c_str(), &st) == 0);
    return { st.st_dev, st.st_ino, st.st_mtim };
}

/// Copies of these real traces (paths under ../shared/data/real) in `dir`, or none when
/// the shared real-trace folder is not here.
std::vector<std::filesystem::path> realCopies(
    const test::TempDir& dir, std::initializer_list<const char*> relatives)
{
    std::vector<std::filesystem::path> copies;
    for (const char* relative : relatives) {
        const std::filesystem::path from = test::realTrace(relative);
        if (from.empty())
            return {};
        copies.push_back(dir / from.filename().string());
        std::filesystem::copy_file(from, copies.back());
    }
    return copies;
}

}  // namespace

TEST_CASE(
    "issue 14: strata TRACE without a display ingests it beside the trace, renders and prints, "
    "and reuses the store while the trace is unchanged",
    "[cli][open]") {
    test::TempDir dir;
    const auto trace = dir / "run.json.gz";
    REQUIRE(test::runStrata({ "synth", "-o", trace.string(), "--events", "20000", "--ranks", "2" })
                .exitCode
        == 0);
    const std::string before = slurp(trace);
    const test::RunOptions inDir { dir.path(), {} };

    const auto first = test::runStrata({ "run.json.gz" }, inDir);
    INFO(first.err);
    REQUIRE(first.exitCode == 0);
    const auto store = dir / "run.json.gz.strata";
    REQUIRE(std::filesystem::exists(store));
    CHECK(std::filesystem::file_size(dir / "run.json.gz-timeline.png") > 10000);
    CHECK_THAT(first.out,
        Catch::Contains("rendered") && Catch::Contains("events") && Catch::Contains("tracks"));
    CHECK_THAT(
        first.err, Catch::Contains("ingested") && Catch::Contains(store.filename().string()));
    CHECK(slurp(trace) == before);  // the input is only read

    // Opened again unchanged, by another spelling: the same store file, not rebuilt.
    const FileIdentity built = identity(store);
    const auto again = test::runStrata({ "./run.json.gz" }, inDir);
    REQUIRE(again.exitCode == 0);
    CHECK(identity(store) == built);
    CHECK_THAT(again.err, !Catch::Contains("ingested"));
    CHECK(slurp(trace) == before);

    // A store given as is opens as is.
    const auto direct = test::runStrata({ store.string() }, inDir);
    CHECK(direct.exitCode == 0);
    CHECK(identity(store) == built);

    // The trace changed: the store is built again.
    std::filesystem::last_write_time(
        trace, std::filesystem::last_write_time(trace) + std::chrono::seconds(5));
    const auto changed = test::runStrata({ trace.string() }, inDir);
    REQUIRE(changed.exitCode == 0);
    CHECK_THAT(changed.err, Catch::Contains("ingested"));
    CHECK_FALSE(identity(store) == built);
}

TEST_CASE(
    "issue 14: strata with a bad trace prints one line naming the file and position and exits 1",
    "[cli][open]") {
    test::TempDir dir;
    std::ofstream(dir / "broken.json")
        << R"({"traceEvents": [{"ph":"X", "ts": 1, "dur": 2, "pid": 1, @@@)";
    const auto bad = test::runStrata({ (dir / "broken.json").string() }, { dir.path(), {} });
    CHECK(bad.exitCode == 1);
    CHECK(std::count(bad.err.begin(), bad.err.end(), '\n') == 1);
    CHECK_THAT(bad.err, Catch::Contains("broken.json") && Catch::Contains("byte"));
    CHECK_FALSE(std::filesystem::exists(dir / "broken.json.strata"));

    const auto missing = test::runStrata({ (dir / "nothing.json").string() }, { dir.path(), {} });
    CHECK(missing.exitCode == 1);
    CHECK_THAT(missing.err, Catch::Contains("nothing.json") && Catch::Contains("no such file"));
}

TEST_CASE("issue 14: strata with several rank files opens them as one run", "[cli][open][real]") {
    test::TempDir dir;
    const auto copies =
        realCopies(dir, { "h100/kineto_ddp_rank0.json.gz", "h100/kineto_ddp_rank1.json.gz" });
    if (copies.empty())
        return;  // the shared real-trace folder is not here
    const auto opened =
        test::runStrata({ copies[0].string(), copies[1].string() }, { dir.path(), {} });
    INFO(opened.err);
    REQUIRE(opened.exitCode == 0);
    const auto store = dir / "kineto_ddp_rank0.json.gz+1.strata";
    REQUIRE(std::filesystem::exists(store));
    const std::string info = test::runStrata({ "info", "--json", store.string() }).out;
    CHECK_THAT(info, Catch::Contains("\"interval\":" + std::to_string(10384 + 10411) + ","));
    CHECK(slurp(copies[0]) == slurp(test::realTrace("h100/kineto_ddp_rank0.json.gz")));
    CHECK(slurp(copies[1]) == slurp(test::realTrace("h100/kineto_ddp_rank1.json.gz")));
}

TEST_CASE("issue 14: strata with a trace and its NVML counter log opens both as one store",
    "[cli][open][real]") {
    test::TempDir dir;
    const auto copies =
        realCopies(dir, { "h100/kineto_gpt_train_1gpu.json.gz", "h100/nvml_counters_1gpu.csv" });
    if (copies.empty())
        return;  // the shared real-trace folder is not here
    const std::string trace = slurp(copies[0]), counters = slurp(copies[1]);
    const test::RunOptions noDisplayAtAll { dir.path(), "HOME=" + (dir / "home").string() };

    // The first step of the README, as a new user takes it.
    const auto alone = test::runStrata({ copies[0].filename().string() }, noDisplayAtAll);
    INFO(alone.err);
    CHECK(alone.exitCode == 0);
    CHECK(std::filesystem::exists(dir / "kineto_gpt_train_1gpu.json.gz.strata"));
    CHECK(slurp(copies[0]) == trace);

    const auto opened = test::runStrata(
        { copies[0].filename().string(), copies[1].filename().string() }, noDisplayAtAll);
    INFO(opened.err);
    REQUIRE(opened.exitCode == 0);
    const auto store = dir / "kineto_gpt_train_1gpu.json.gz+1.strata";
    REQUIRE(std::filesystem::exists(store));
    const std::string info = test::runStrata({ "info", "--json", store.string() }).out;
    CHECK_THAT(info, Catch::Contains("\"interval\":32148,"));
    CHECK_THAT(info, !Catch::Contains("\"counter\":0,"));
    CHECK(slurp(copies[0]) == trace);
    CHECK(slurp(copies[1]) == counters);
}
