// `strata ingest` of a Paraver trace with records it drops or alters: one warning per kind
// on stderr, naming the file and the first line (issue 14, item 2).

#include "tests/support/run_command.h"
#include "tests/support/temp_dir.h"
#include <catch2/catch.hpp>

#include <sstream>
#include <string>
#include <vector>

using namespace strata;

TEST_CASE("Paraver ingest warns once per kind of dropped or altered record, with its first "
          "line",
    "[cli][paraver]") {
    test::TempDir dir;
    const std::string prv = std::string(STRATA_TEST_DATA_DIR) + "/paraver/anomalies.prv";
    const auto r = test::runStrata({ "ingest", prv, "-o", (dir / "a.strata").string() });
    INFO(r.err);
    REQUIRE(r.exitCode == 0);
    std::vector<std::string> warnings;
    std::istringstream lines(r.err);
    for (std::string line; std::getline(lines, line);) {
        if (line.find(": warning: ") != std::string::npos)
            warnings.push_back(line);
    }
    CHECK(warnings
        == std::vector<std::string> { prv
                + ": warning: 1 records dropped: the file ends inside this record (first at line "
                  "11)",
            prv
                + ": warning: 2 records dropped: event ends (value 0) with no open event of their "
                  "type on their thread (first at line 4)",
            prv
                + ": warning: 1 records altered: events that never end, closed at the trace's end "
                  "(first at line 10)",
            prv
                + ": warning: 1 records altered: events that end before they begin, made empty "
                  "(first at line 9)" });
}
