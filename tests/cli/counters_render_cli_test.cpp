// `strata render --view counters`: the counter charts of a window, offscreen, on the real
// H100 run (Kineto trace + NVML log); and render's default window on that run.

#include "tests/support/run_command.h"
#include "tests/support/temp_dir.h"

#include <catch2/catch.hpp>

#include <fstream>

using namespace strata;

namespace {

std::string fileText(const std::filesystem::path& path)
{
    std::ifstream in(path, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), {}};
}

/// The Kineto trace and its NVML log ingested into `dir` (empty without the real data).
std::string h100Store(const test::TempDir& dir)
{
    const auto kineto = test::realTrace("h100/kineto_gpt_train_1gpu.json.gz");
    const auto nvml = test::realTrace("h100/nvml_counters_1gpu.csv");
    if (kineto.empty() || nvml.empty())
        return {};
    const auto store = (dir / "h100.strata").string();
    REQUIRE(test::runStrata({"ingest", kineto.string(), nvml.string(), "-o", store}).exitCode == 0);
    return store;
}

}  // namespace

TEST_CASE("render --view counters draws the chosen counters' charts", "[cli][counters][real]") {
    test::TempDir dir;
    const std::string store = h100Store(dir);
    if (store.empty())
        return;

    const auto png = dir / "counters.png";
    const auto r = test::runStrata({"render", store, "-o", png.string(), "--view", "counters", "--counters",
                                    "power|gpu_util", "--window", "0:50ms", "--size", "1000x500"});
    REQUIRE(r.exitCode == 0);
    CHECK_THAT(r.out, Catch::Contains("view counters"));
    const std::string bytes = fileText(png);
    REQUIRE(bytes.size() > 8);
    CHECK(bytes.substr(1, 3) == "PNG");
    CHECK(bytes.size() > 10'000);  // charts, axes and titles, not a blank page

    // SVG keeps the titles as text: the two chosen counters, with their units and range
    // over the default window, the run's activity (issue 14; NVML there: 3..30 %
    // utilisation, 122.0..149.8 W; over its whole log 0..30 %, 116.9..152.3 W).
    const auto svg = dir / "counters.svg";
    REQUIRE(test::runStrata({"render", store, "-o", svg.string(), "--view", "counters", "--counters", "power|gpu_util"})
                .exitCode
            == 0);
    const std::string text = fileText(svg);
    CHECK_THAT(text, Catch::Contains("power (mW) [122k … 149.8k]"));
    CHECK_THAT(text, Catch::Contains("gpu_util (%) [3 … 30]"));
    CHECK_THAT(text, !Catch::Contains("sm_clock (MHz) ["));  // listed in the chooser, not charted

    const auto none = test::runStrata({"render", store, "-o", png.string(), "--view", "counters", "--counters", "nope"});
    CHECK(none.exitCode == 2);
    CHECK_THAT(none.err, Catch::Contains("no counter track matches 'nope'"));
    const auto bad = test::runStrata({"render", store, "-o", png.string(), "--view", "counters", "--counters", "("});
    CHECK(bad.exitCode == 2);
    CHECK_THAT(bad.err, Catch::Contains("--counters: bad regex"));
}

TEST_CASE("render's default window is the run's activity, not the counter log around it (issue 14)",
    "[cli][render][counters][real]") {
    test::TempDir dir;
    const std::string store = h100Store(dir);
    if (store.empty())
        return;
    // The Kineto events run from 0 to its "Record Window End" instant at 239.4 ms; with
    // 1 % each side the window is 244.2 ms wide. The NVML log spans 2.478 s around them:
    // the old first view, 2.528 s wide, left the run in its right tenth.
    const auto timeline = dir / "timeline.svg";
    REQUIRE(test::runStrata({ "render", store, "-o", timeline.string() }).exitCode == 0);
    CHECK_THAT(fileText(timeline), Catch::Contains(">244.2ms wide<"));
    // The main window's first view agrees (its ruler and status bar).
    const auto window = dir / "window.svg";
    REQUIRE(test::runStrata({ "render", store, "--view", "window", "-o", window.string() }).exitCode
        == 0);
    CHECK_THAT(fileText(window),
        Catch::Contains(">244.2ms wide<") && Catch::Contains(">window 244.2ms wide<"));
    // A window given explicitly still reaches the log before the trace: the power row
    // writes its range there.
    const auto before = dir / "before.svg";
    REQUIRE(
        test::runStrata({ "render", store, "-o", before.string(), "--window", "-1900ms:-1400ms" })
            .exitCode
        == 0);
    CHECK_THAT(fileText(before), Catch::Contains(">500.0ms wide<") && Catch::Contains(" W .. "));
}
