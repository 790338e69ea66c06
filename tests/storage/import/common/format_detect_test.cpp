// Tests of format detection: hand-made files of each format (plain and gzip), and every file
// under shared/data/real with the format its README says it has.

#include "storage/import/common/format_detect.h"

#include "storage/store/input_error.h"

#include "tests/support/gzip_file.h"
#include "tests/support/temp_dir.h"
#include <catch2/catch.hpp>
#include <sqlite3.h>
#include <zlib.h>

#include <filesystem>
#include <fstream>
#include <string>

using namespace strata;
using storage::TraceFormat;

namespace {

using test::writeGzip;

void writeAll(const std::filesystem::path& path, const std::string& bytes)
{
    std::ofstream out(path, std::ios::binary);
    out << bytes;
}

void makeSqlite(const std::filesystem::path& path, const char* sql)
{
    sqlite3* db = nullptr;
    REQUIRE(sqlite3_open(path.c_str(), &db) == SQLITE_OK);
    REQUIRE(sqlite3_exec(db, sql, nullptr, nullptr, nullptr) == SQLITE_OK);
    sqlite3_close(db);
}

TraceFormat detect(const test::TempDir& dir, const std::string& name, const std::string& bytes)
{
    writeAll(dir / name, bytes);
    TraceFormat plain = storage::detectFormat(dir / name);
    writeGzip(dir / (name + ".gz"), bytes);
    TraceFormat gz = storage::detectFormat(dir / (name + ".gz"));
    INFO(name);
    CHECK(plain == gz);  // gzip is looked through
    return plain;
}

}  // namespace

TEST_CASE("format names round-trip and --format values parse", "[format]") {
    for (TraceFormat f : { TraceFormat::Chrome, TraceFormat::Paraver, TraceFormat::Nsys,
             TraceFormat::Ncu, TraceFormat::Counters, TraceFormat::Folded, TraceFormat::PerfScript,
             TraceFormat::Otf2, TraceFormat::Strata })
        CHECK(storage::parseFormatName(storage::formatName(f)) == f);
    CHECK(storage::parseFormatName("auto") == TraceFormat::Unknown);
    CHECK(storage::parseFormatName("") == TraceFormat::Unknown);
    CHECK(storage::parseFormatName("Chrome") == TraceFormat::Chrome);
    CHECK(storage::parseFormatName("perf-script") == TraceFormat::PerfScript);
    CHECK(storage::formatName(TraceFormat::Unknown) == "unknown");
    CHECK(storage::parseFormatName("xml") == TraceFormat::Unknown);
}

TEST_CASE("detectFormat decides by content, through gzip", "[format]") {
    test::TempDir dir;
    // Names never decide: every file is called "trace".
    CHECK(detect(dir, "a", "\n  {\n \"traceEvents\": []}") == TraceFormat::Chrome);
    CHECK(detect(dir, "b", "\xEF\xBB\xBF[{\"ph\":\"X\"}]") == TraceFormat::Chrome);
    CHECK(detect(dir, "c", "#Paraver (01/01/2020 at 10:00):100_ns:1(1):1:1(1:1),0\n")
        == TraceFormat::Paraver);
    CHECK(detect(dir, "d", "DEFAULT_OPTIONS\n\nLEVEL               THREAD\n")
        == TraceFormat::Paraver);
    CHECK(detect(dir, "e", "LEVEL CPU SIZE 1\n1.node\n") == TraceFormat::Paraver);
    CHECK(detect(dir, "f",
              "==PROF== Connected to process 1\n\"ID\",\"Process ID\",\"Process Name\"\n"
              "\"\",\"\",\"\"\n\"0\",\"5\",\"python\"\n")
        == TraceFormat::Ncu);
    CHECK(detect(dir, "g", "epoch_ns,gpu_util_pct,power_mw\n1795358807161624319,0,116913\n")
        == TraceFormat::Counters);
    CHECK(detect(dir, "h",
              "timestamp, name, utilization.gpu [%]\n2024/01/01 10:00:00.000, "
              "NVIDIA H100, 98 %\n")
        == TraceFormat::Counters);
    CHECK(detect(dir, "i", "main;foo;bar 42\nmain;foo 7\nmain 1\n") == TraceFormat::Folded);
    CHECK(detect(dir, "j",
              "java 19983 [002] 1.5: 10 cycles: \n\t ffffffff8103d0ca "
              "native_write_msr_safe ([kernel.kallsyms])\n\n")
        == TraceFormat::PerfScript);
    CHECK(detect(dir, "k", "# ========\n# captured on: Thu Jul  9 17:14:37 2015\n")
        == TraceFormat::PerfScript);
    CHECK(detect(dir, "l",
              std::string("\x03"
                          "BOTF2\0\0\0",
                  9))
        == TraceFormat::Otf2);
    // Not a trace: a CSV without a time column, prose, a binary blob.
    // `nsys stats` CSV reports are Nsight Systems data, not a counter log.
    CHECK(detect(dir, "m", "Start (ns),End (ns),Name\n1,2,a\n") == TraceFormat::Nsys);
    CHECK(detect(dir, "n", "Some notes: nothing\nto see here\n") == TraceFormat::Unknown);
    CHECK(detect(dir, "o",
              std::string("\x7f"
                          "ELF\0\0\0\1",
                  8))
        == TraceFormat::Unknown);
    CHECK(detect(dir, "p", "") == TraceFormat::Unknown);

    CHECK_THROWS_AS(storage::detectFormat(dir / "missing.json"), storage::InputError);
}

TEST_CASE("detectFormat tells a Strata store from an Nsight Systems export", "[format]") {
    test::TempDir dir;
    makeSqlite(dir / "store.db",
        "CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT);"
        "INSERT INTO meta VALUES('format', 'strata');");
    CHECK(storage::detectFormat(dir / "store.db") == TraceFormat::Strata);
    makeSqlite(dir / "tables.db",
        "CREATE TABLE meta(key, value); CREATE TABLE tracks(id);"
        "CREATE TABLE tiles(track, payload);");
    CHECK(storage::detectFormat(dir / "tables.db") == TraceFormat::Strata);
    makeSqlite(dir / "report.sqlite",
        "CREATE TABLE StringIds(id INTEGER, value TEXT);"
        "CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL(start INTEGER);");
    CHECK(storage::detectFormat(dir / "report.sqlite") == TraceFormat::Nsys);
    makeSqlite(dir / "other.db", "CREATE TABLE people(name TEXT);");
    CHECK(storage::detectFormat(dir / "other.db") == TraceFormat::Unknown);
    makeSqlite(dir / "run.strata", "CREATE TABLE x(y);");
    CHECK(storage::detectFormat(dir / "run.strata") == TraceFormat::Strata);
}

TEST_CASE("detectFormat recognises every real trace file", "[format]") {
    const std::filesystem::path root = test::realTrace("h100");
    if (root.empty()) {
        WARN("shared/data/real is absent: real files not checked");
        return;
    }
    const std::filesystem::path real = root.parent_path();
    auto expected = [&](const std::filesystem::path& p) {
        // Relative: the checkout's own path may hold "kineto" or "chrome-".
        const std::string s = std::filesystem::relative(p, real).generic_string();
        auto has = [&](const char* part) {
            return s.find(part) != std::string::npos;
        };
        const std::string ext = p.extension().string();
        if (ext == ".md" || ext == ".py" || ext == ".tsv" || ext == ".cfg")
            return TraceFormat::Unknown;  // READMEs, counting scripts, Score-P config
        if (has("kineto") || has("chrome-"))
            return TraceFormat::Chrome;
        if (has(".prv") || has(".pcf") || has(".row"))
            return TraceFormat::Paraver;
        if (has(".sqlite") || has("nbody-nvtx/trace.csv"))
            return TraceFormat::Nsys;
        if (has("ncu_raw") || has("copy_blocked"))
            return TraceFormat::Ncu;
        if (has("nvml_counters"))
            return TraceFormat::Counters;
        if (has("collapsed"))
            return TraceFormat::Folded;
        if (has("perf-") && (has(".txt")))
            return TraceFormat::PerfScript;
        if (has("otf2-pipit") && (has(".otf2") || has(".def") || has(".evt")))
            return TraceFormat::Otf2;
        return TraceFormat::Unknown;
    };
    int files = 0;
    for (const auto& entry : std::filesystem::recursive_directory_iterator(real)) {
        if (!entry.is_regular_file())
            continue;
        ++files;
        INFO(entry.path().string());
        CHECK(storage::formatName(storage::detectFormat(entry.path()))
            == storage::formatName(expected(entry.path())));
    }
    CHECK(files > 100);
    CHECK(storage::detectFormat(real / "public/otf2-pipit/ping-pong-otf2") == TraceFormat::Otf2);
    CHECK(storage::detectFormat(real / "public/nsys-pipit/nbody-nvtx/trace.csv") == TraceFormat::Nsys);
}
