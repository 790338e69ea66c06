// Issue 14, item 2: a command never destroys an input and never replaces a store with
// nothing. The output of ingest, cut and render is refused when it is one of the
// inputs, however it is spelled; a store is never written over a file that is not one;
// an ingest that yields no event fails and leaves the existing store byte-identical; a
// folder that cannot take the store says why.

#include "tests/support/run_command.h"
#include "tests/support/temp_dir.h"
#include <catch2/catch.hpp>
#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <iterator>

using namespace strata;

namespace {

std::string slurp(const std::filesystem::path& path)
{
    std::ifstream in(path, std::ios::binary);
    return { std::istreambuf_iterator<char>(in), {} };
}

int lineCount(const std::string& s)
{
    return static_cast<int>(std::count(s.begin(), s.end(), '\n'));
}

/// Files in `dir` whose name holds ".tmp." or ".spill." (a builder's leftovers).
int leftovers(const std::filesystem::path& dir)
{
    int n = 0;
    for (const auto& entry : std::filesystem::directory_iterator(dir)) {
        const std::string name = entry.path().filename().string();
        n += name.find(".tmp.") != std::string::npos || name.find(".spill.") != std::string::npos;
    }
    return n;
}

/// gzip -n of `text` into `path`.
void writeGzip(const std::filesystem::path& path, const std::string& text)
{
    const auto plain = path.string() + ".plain";
    std::ofstream(plain, std::ios::binary) << text;
    REQUIRE(std::system(("gzip -n -c '" + plain + "' > '" + path.string() + "'").c_str()) == 0);
    std::filesystem::remove(plain);
}

const std::string kMetadata =
    R"({"ph":"M","name":"process_name","pid":1,"args":{"name":"trainer"}},)"
    R"({"ph":"M","name":"thread_name","pid":1,"tid":2,"args":{"name":"main"}},)";

}  // namespace

TEST_CASE("issue 14: ingest refuses an output that is one of its inputs, however it is spelled",
    "[cli][safety]") {
    test::TempDir dir;
    const auto trace = dir / "x.json";
    REQUIRE(test::runStrata({ "synth", "-o", trace.string(), "--events", "2000" }).exitCode == 0);
    const std::string before = slurp(trace);
    std::filesystem::create_symlink(trace, dir / "link.strata");
    std::filesystem::create_hard_link(trace, dir / "hard.strata");
    std::filesystem::create_directory(dir / "sub");

    for (const std::string& output : { trace.string(), std::string("x.json"),
             std::string("./x.json"), std::string("sub/../x.json"), (dir / "link.strata").string(),
             std::string("hard.strata") }) {
        INFO(output);
        const auto r = test::runStrata({ "ingest", "x.json", "-o", output }, { dir.path(), {} });
        CHECK(r.exitCode == 1);
        CHECK(lineCount(r.err) == 1);
        CHECK_THAT(r.err, Catch::Contains("the output would overwrite input x.json"));
        CHECK(slurp(trace) == before);
        CHECK(std::filesystem::is_symlink(dir / "link.strata"));
    }
    // One of several inputs counts too.
    const auto other = dir / "y.json";
    REQUIRE(test::runStrata({ "synth", "-o", other.string(), "--events", "2000", "--seed", "2" })
                .exitCode
        == 0);
    const auto r =
        test::runStrata({ "ingest", other.string(), trace.string(), "-o", trace.string() });
    CHECK(r.exitCode == 1);
    CHECK_THAT(r.err, Catch::Contains("the output would overwrite input " + trace.string()));
    CHECK(slurp(trace) == before);
    CHECK(leftovers(dir.path()) == 0);
}

TEST_CASE("issue 14: cut and render never write over the store they read", "[cli][safety]") {
    test::TempDir dir;
    const auto store = dir / "s.strata";
    REQUIRE(test::runStrata({ "synth", "-o", store.string(), "--events", "2000" }).exitCode == 0);
    const std::string before = slurp(store);
    std::filesystem::create_symlink(store, dir / "alias.strata");

    for (const std::string& output :
        { std::string("./s.strata"), (dir / "alias.strata").string() }) {
        INFO(output);
        const auto cut = test::runStrata({ "cut", "s.strata", "-o", output }, { dir.path(), {} });
        CHECK(cut.exitCode == 1);
        CHECK_THAT(cut.err, Catch::Contains("the output would overwrite input s.strata"));
        const auto render =
            test::runStrata({ "render", "s.strata", "-o", output }, { dir.path(), {} });
        CHECK(render.exitCode == 1);
        CHECK_THAT(render.err, Catch::Contains("the output would overwrite input s.strata"));
        CHECK(slurp(store) == before);
    }
    // The baseline of a differential flame graph is an input too.
    const auto other = dir / "o.strata";
    REQUIRE(test::runStrata({ "synth", "-o", other.string(), "--events", "2000", "--seed", "4" })
                .exitCode
        == 0);
    const std::string otherBefore = slurp(other);
    const auto diff = test::runStrata({ "render", store.string(), "--view", "flame", "--diff-store",
        other.string(), "-o", other.string() });
    CHECK(diff.exitCode == 1);
    CHECK(slurp(other) == otherBefore);
}

TEST_CASE("issue 14: a store is never written over a file that is not a store", "[cli][safety]") {
    test::TempDir dir;
    const auto trace = dir / "x.json";
    const auto keep = dir / "keep.strata";
    REQUIRE(test::runStrata({ "synth", "-o", trace.string(), "--events", "2000" }).exitCode == 0);
    std::ofstream(keep) << "my notes, not a store\n";
    const auto store = dir / "s.strata";
    REQUIRE(test::runStrata({ "synth", "-o", store.string(), "--events", "2000" }).exitCode == 0);

    const std::vector<std::vector<std::string>> commands = {
        { "ingest", trace.string(), "-o", keep.string() },
        { "synth", "-o", keep.string(), "--events", "100" },
        { "cut", store.string(), "-o", keep.string() },
    };
    for (const auto& command : commands) {
        INFO(command.front());
        const auto r = test::runStrata(command);
        CHECK(r.exitCode == 1);
        CHECK(lineCount(r.err) == 1);
        CHECK_THAT(r.err, Catch::Contains(keep.string()) && Catch::Contains("not a Strata store"));
        CHECK(slurp(keep) == "my notes, not a store\n");
    }
    // An existing store is replaced, as before.
    CHECK(test::runStrata({ "ingest", trace.string(), "-o", store.string() }).exitCode == 0);
    CHECK(leftovers(dir.path()) == 0);
}

TEST_CASE(
    "issue 14: an ingest that yields no event fails and leaves the existing store byte-identical",
    "[cli][safety]") {
    test::TempDir dir;
    const auto store = dir / "s.strata";
    REQUIRE(test::runStrata({ "synth", "-o", store.string(), "--events", "3000" }).exitCode == 0);
    const std::string before = slurp(store);

    struct Case
    {
        const char* name;
        std::string json;
        const char* reason;
    };
    const std::vector<Case> cases = {
        // A truncated file whose readable part holds only metadata.
        { "meta.json.gz",
            R"({"traceEvents":[)" + kMetadata + R"({"ph":"X","name":"step","pid":1,"ti)",
            "with only metadata before it" },
        { "empty.json", R"({"traceEvents":[]})", "traceEvents is empty" },
        { "onlymeta.json", R"({"traceEvents":[)" + kMetadata.substr(0, kMetadata.size() - 1) + "]}",
            "only metadata" },
        { "dropped.json",
            R"({"traceEvents":[)" + kMetadata
                + R"({"ph":"X","name":"a","pid":1,"tid":2,"dur":5}]})",
            "all 1 of its events were dropped (missing_timestamps 1)" },
    };
    for (const Case& c : cases) {
        INFO(c.name);
        const auto input = dir / c.name;
        if (input.extension() == ".gz")
            writeGzip(input, c.json);
        else
            std::ofstream(input, std::ios::binary) << c.json;
        const auto r = test::runStrata({ "ingest", input.string(), "-o", store.string() });
        CHECK(r.exitCode == 1);
        CHECK(lineCount(r.err) == 1);
        CHECK_THAT(r.err,
            Catch::StartsWith("strata: no events in " + input.string() + ": ")
                && Catch::Contains(c.reason));
        CHECK(slurp(store) == before);
        CHECK(leftovers(dir.path()) == 0);
        // Opened with `strata FILE`, the same error and no store beside it.
        const auto opened = test::runStrata({ input.string() }, { dir.path(), {} });
        CHECK(opened.exitCode == 1);
        CHECK_THAT(opened.err, Catch::Contains("no events in " + input.string()));
        CHECK_FALSE(std::filesystem::exists(input.string() + ".strata"));
    }

    // A truncated file that does hold events is still salvaged, with a warning.
    const auto salvage = dir / "salvage.json.gz";
    writeGzip(salvage,
        R"({"traceEvents":[)" + kMetadata
            + R"({"ph":"X","name":"a","pid":1,"tid":2,"ts":1,"dur":5},{"ph":"X","name":"b","pid":1,"tid":2,"ts":7,"d)");
    const auto r = test::runStrata({ "ingest", salvage.string(), "-o", store.string() });
    CHECK(r.exitCode == 0);
    CHECK_THAT(r.err, Catch::Contains("truncated") && Catch::Contains("ingested 1 events"));
}

TEST_CASE(
    "issue 14: a store that cannot be created says why, not 'is the disk full?'", "[cli][safety]") {
    test::TempDir dir;
    const auto trace = dir / "x.json";
    REQUIRE(test::runStrata({ "synth", "-o", trace.string(), "--events", "2000" }).exitCode == 0);
    std::ofstream(dir / "file") << "a file, not a folder\n";

    const auto notFolder =
        test::runStrata({ "ingest", trace.string(), "-o", (dir / "file" / "x.strata").string() });
    CHECK(notFolder.exitCode == 1);
    CHECK(lineCount(notFolder.err) == 1);
    CHECK_THAT(notFolder.err,
        Catch::Contains(
            "cannot create " + (dir / "file" / "x.strata").string() + ": not a directory")
            && !Catch::Contains("disk full"));

    const auto noFolder =
        test::runStrata({ "synth", "-o", (dir / "none" / "x.strata").string(), "--events", "10" });
    CHECK(noFolder.exitCode == 1);
    CHECK_THAT(noFolder.err,
        Catch::Contains(
            "cannot create " + (dir / "none" / "x.strata").string() + ": no such directory"));

    // Permission denied: a folder that only its owner (root) may write, written to as
    // another user. Root itself ignores permissions, so as root the command runs as
    // nobody (setpriv); the folders above must let nobody through.
    std::filesystem::permissions(dir.path(),
        std::filesystem::perms::owner_all | std::filesystem::perms::group_exec
            | std::filesystem::perms::others_exec);
    std::filesystem::permissions(
        trace, std::filesystem::perms::others_read, std::filesystem::perm_options::add);
    std::filesystem::create_directory(dir / "locked");
    std::filesystem::permissions(dir / "locked",
        std::filesystem::perms::owner_read | std::filesystem::perms::owner_exec
            | std::filesystem::perms::others_read | std::filesystem::perms::others_exec);
    const bool root = ::geteuid() == 0;
    if (root && std::system("setpriv --version >/dev/null 2>&1") != 0) {
        WARN("running as root without setpriv: the permission-denied case is not checked");
        return;
    }
    const std::string wrapper = root ? "setpriv --reuid=65534 --regid=65534 --clear-groups" : "";
    const auto denied =
        test::runStrata({ "ingest", trace.string(), "-o", (dir / "locked" / "x.strata").string() },
            { {}, wrapper });
    CHECK(denied.exitCode == 1);
    CHECK(lineCount(denied.err) == 1);
    CHECK(denied.err
        == "strata: cannot create " + (dir / "locked" / "x.strata").string()
            + ": permission denied\n");
    std::filesystem::permissions(dir / "locked", std::filesystem::perms::owner_all);
}
