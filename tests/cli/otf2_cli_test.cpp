// `strata ingest` on OTF2 archives: the folder or the anchor file of the real Score-P
// ping-pong traces gives the README's counts in `info --json`; a truncated event file gives
// exit code 1, one line naming it, and no store.

#include "tests/support/run_command.h"
#include "tests/support/temp_dir.h"
#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>

using namespace strata;

TEST_CASE("real OTF2 archives ingest from their folder or anchor with the README's counts",
    "[cli][real][otf2]") {
    const auto plain = test::realTrace("public/otf2-pipit/ping-pong-otf2");
    const auto papi = test::realTrace("public/otf2-pipit/ping-pong-otf2-papi");
    if (plain.empty() || papi.empty())
        return;  // the shared real-trace folder is not here
    test::TempDir dir;
    const auto a = (dir / "a.strata").string();
    REQUIRE(test::runStrata({ "ingest", plain.string(), "-o", a }).exitCode == 0);
    const std::string info = test::runStrata({ "info", "--json", a }).out;
    CHECK_THAT(info,
        Catch::Contains(
            R"("events":{"total":62,"interval":42,"instant":4,"counter":0,"flow":16,)"));
    CHECK_THAT(info, Catch::Contains(R"("span_ns":199604460,)"));  // README: span 0.199604460 s
    CHECK_THAT(info, Catch::Contains(R"("source_format":"otf2")"));

    const auto b = (dir / "b.strata").string();
    REQUIRE(test::runStrata({ "ingest", (papi / "traces.otf2").string(), "-o", b }).exitCode == 0);
    const std::string papiInfo = test::runStrata({ "info", "--json", b }).out;
    CHECK_THAT(papiInfo, Catch::Contains(R"("interval":42,"instant":4,"counter":252,"flow":16,)"));
    CHECK_THAT(papiInfo, Catch::Contains(R"("span_ns":215546191,)"));
}

TEST_CASE("a truncated OTF2 event file fails with one line naming it and leaves no store",
    "[cli][real][otf2]") {
    const auto real = test::realTrace("public/otf2-pipit/ping-pong-otf2");
    if (real.empty())
        return;
    test::TempDir dir;
    const auto archive = dir / "archive";
    std::filesystem::copy(real, archive, std::filesystem::copy_options::recursive);
    for (const auto& entry :
        std::filesystem::recursive_directory_iterator(archive))  // real data is read-only
        std::filesystem::permissions(
            entry.path(), std::filesystem::perms::owner_write, std::filesystem::perm_options::add);
    std::filesystem::permissions(
        archive, std::filesystem::perms::owner_write, std::filesystem::perm_options::add);
    const auto evt = archive / "traces" / "1.evt";
    std::filesystem::resize_file(evt, 100);
    const auto store = dir / "t.strata";
    const auto result = test::runStrata({ "ingest", archive.string(), "-o", store.string() });
    CHECK(result.exitCode == 1);
    CHECK(std::count(result.err.begin(), result.err.end(), '\n') == 1);
    CHECK_THAT(result.err, Catch::Contains(evt.string()) && Catch::Contains("expected"));
    CHECK_FALSE(std::filesystem::exists(store));
}
