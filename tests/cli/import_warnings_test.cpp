// Issue 14: every event an ingest drops or alters is reported, once per kind and file, on
// stderr as "FILE: warning: N events dropped|altered: WHAT (first at byte B)", kept in the
// store's import report (strata info), and the ingest still succeeds.

#include "tests/support/run_command.h"
#include "tests/support/temp_dir.h"
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

using namespace strata;

namespace {

std::vector<std::string> lines(const std::string& text)
{
    std::vector<std::string> out;
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);)
        out.push_back(line);
    return out;
}

}  // namespace

TEST_CASE("ingest warns once per kind and file of events dropped or altered, with the first "
          "byte offset, and keeps the warnings in the import report",
    "[cli][issue14]") {
    test::TempDir dir;
    const std::filesystem::path anomalies =
        std::filesystem::path(STRATA_TEST_DATA_DIR) / "chrome" / "anomalies.json";
    const std::string a = (dir / "a.json").string();
    std::filesystem::copy_file(anomalies, a);
    // Two events with "ts": 1e300 among good ones; the first starts at byte 118.
    const std::string b = (dir / "t.json").string();
    const std::string good = R"({"ph": "X", "name": "ok", "pid": 1, "tid": 1, "ts": 10, "dur": 5})";
    const std::string huge =
        R"({"ph": "X", "name": "huge", "pid": 1, "tid": 1, "ts": 1e300, "dur": 5})";
    std::string json = "{\"traceEvents\": [\n" + good + ",\n";
    REQUIRE(json.size() < 118);
    json.append(118 - json.size(), ' ');
    json += huge + ",\n" + good + ",\n" + huge + "\n]}\n";
    std::ofstream(b) << json;
    REQUIRE(json.find(huge) == 118);
    const std::string store = (dir / "out.strata").string();

    const auto ingest = test::runStrata({ "ingest", a, b, "-o", store });
    INFO(ingest.err);
    CHECK(ingest.exitCode == 0);  // events remain: the ingest succeeds

    const std::regex format(
        R"((.*): warning: (\d+) events (dropped|altered): (.+) \(first at byte (\d+)\))");
    std::map<std::string, std::vector<std::string>> whatByFile;
    std::vector<std::string> tLines;
    for (const std::string& line : lines(ingest.err)) {
        if (line.find(": warning: ") == std::string::npos)
            continue;
        std::smatch m;
        INFO(line);
        REQUIRE(std::regex_match(line, m, format));
        whatByFile[m[1]].push_back(m[4]);
        if (m[1] == b)
            tLines.push_back(line);
    }
    REQUIRE(whatByFile.size() == 2);
    // anomalies.json has one event or two of each of the 24 kinds: one line each.
    CHECK(whatByFile[a].size() == 24);
    CHECK(std::set<std::string>(whatByFile[a].begin(), whatByFile[a].end()).size() == 24);
    CHECK(tLines
        == std::vector<std::string> {
            b + ": warning: 2 events dropped: \"ts\" out of range (first at byte 118)" });

    // strata info shows them under their file; the JSON meta keeps them too.
    const auto info = test::runStrata({ "info", store });
    REQUIRE(info.exitCode == 0);
    CHECK_THAT(info.out,
        Catch::Contains("  warning: 2 events dropped: \"ts\" out of range (first at byte 118)\n"));
    CHECK_THAT(info.out,
        Catch::Contains("  warning: 2 events altered: negative \"dur\" made 0 (first at byte "));
    const std::string infoJson = test::runStrata({ "info", "--json", store }).out;
    CHECK_THAT(infoJson,
        Catch::Contains(
            R"x("import.1.warning.001":"2 events dropped: \"ts\" out of range (first at byte 118)")x"));
    CHECK_THAT(infoJson, Catch::Contains(R"("import.0.warnings":"24")"));
}

TEST_CASE("a clean Chrome trace ingests without warnings", "[cli][issue14]") {
    test::TempDir dir;
    const std::filesystem::path clean =
        std::filesystem::path(STRATA_TEST_DATA_DIR) / "chrome" / "kineto_small.json";
    const auto ingest =
        test::runStrata({ "ingest", clean.string(), "-o", (dir / "s.strata").string() });
    CHECK(ingest.exitCode == 0);
    CHECK(ingest.err.find("warning") == std::string::npos);
}
