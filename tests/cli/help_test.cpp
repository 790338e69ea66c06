// Issue 14, item 5: `strata COMMAND --help` (or -h) prints that command's usage on stdout
// and exits 0, for every command.

#include "tests/support/run_command.h"
#include <catch2/catch.hpp>

using namespace strata;

TEST_CASE(
    "issue 14: strata COMMAND --help prints that command's usage and exits 0", "[cli][help]") {
    const std::vector<std::string> commands = { "ingest", "info", "metrics", "variability",
        "render", "cut", "synth", "bench" };
    for (const std::string& command : commands) {
        for (const char* flag : { "--help", "-h" }) {
            INFO(command << " " << flag);
            const auto r = test::runStrata({ command, flag });
            CHECK(r.exitCode == 0);
            CHECK(r.err.empty());
            CHECK_THAT(r.out, Catch::StartsWith("usage:\n  strata " + command + " "));
            // Only this command's lines.
            for (const std::string& other : commands) {
                if (other != command)
                    CHECK_THAT(r.out, !Catch::Contains("strata " + other + " "));
            }
        }
    }
    // After other arguments too, and render's continuation lines come with it.
    const auto render = test::runStrata({ "render", "s.strata", "--view", "flame", "--help" });
    CHECK(render.exitCode == 0);
    CHECK_THAT(render.out,
        Catch::Contains("--diff-store OTHER.strata") && Catch::Contains("Times accept units"));
    // After "--" it is a file name, not a flag.
    CHECK(test::runStrata({ "info", "--", "--help" }).exitCode == 1);
}
