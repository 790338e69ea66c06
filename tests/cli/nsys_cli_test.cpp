// `strata ingest` of Nsight Systems inputs: the real exports become stores whose
// `info --json` figures are their README's counts; a truncated export fails with one line
// and leaves no store.

#include "tests/support/run_command.h"
#include "tests/support/temp_dir.h"
#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>

using namespace strata;

TEST_CASE("real nsys exports ingest with their README's counts", "[cli][nsys]") {
    test::TempDir dir;
    const auto store = (dir / "n.strata").string();
    const auto pipit =
        test::realTrace("public/nsys-pipit/cloverleaf-nsys/perlmutter-cloverleaf-cuda.sqlite.gz");
    if (!pipit.empty()) {
        const auto ingest = test::runStrata({ "ingest", pipit.string(), "-o", store });
        INFO(ingest.err);
        REQUIRE(ingest.exitCode == 0);
        const auto info = test::runStrata({ "info", "--json", store });
        REQUIRE(info.exitCode == 0);
        // 1312 kernels + 279 memcpys + 3048 API calls + 1828 OS runtime calls; the 3 OS
        // runtime profiling markers are instants; every kernel and memcpy has its launch.
        CHECK_THAT(info.out, Catch::Contains("\"interval\":6467,"));
        CHECK_THAT(info.out, Catch::Contains("\"instant\":3,"));
        CHECK_THAT(info.out, Catch::Contains("\"flow\":1591,"));
        CHECK_THAT(info.out,
            Catch::Contains("\"kernel\":{\"count\":1312,")
                && Catch::Contains("\"gpu_memcpy\":{\"count\":279,")
                && Catch::Contains("\"osrt\":{\"count\":1828,"));
        CHECK_THAT(info.out, Catch::Contains("\"origin_ns\":\"1696392839587175550\""));
        CHECK_THAT(info.out, Catch::Contains("\"nsys_version\":\"2024.5.1.113\""));
        CHECK_THAT(info.out, Catch::Contains("\"source_format\":\"nsys\""));
    }
    const auto csv = test::realTrace("public/nsys-pipit/nbody-nvtx/trace.csv");
    if (!csv.empty()) {
        const auto ingest = test::runStrata({ "ingest", csv.string(), "-o", store });
        INFO(ingest.err);
        REQUIRE(ingest.exitCode == 0);
        const auto info = test::runStrata({ "info", "--json", store });
        CHECK_THAT(info.out, Catch::Contains("\"interval\":131,"));
        CHECK_THAT(info.out, Catch::Contains("\"nvtx\":{\"count\":131,"));
    }
}

TEST_CASE("a truncated nsys export fails with one line and no store", "[cli][nsys]") {
    const auto real = test::realTrace("public/nsys-extrap/nsys_db/con_kernel.sqlite.gz");
    if (real.empty())
        return;
    test::TempDir dir;
    std::ifstream in(real, std::ios::binary);
    const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    std::ofstream(dir / "cut.sqlite.gz", std::ios::binary) << bytes.substr(0, bytes.size() * 3 / 4);
    const auto store = dir / "cut.strata";
    const auto result =
        test::runStrata({ "ingest", (dir / "cut.sqlite.gz").string(), "-o", store.string() });
    CHECK(result.exitCode == 1);
    CHECK(std::count(result.err.begin(), result.err.end(), '\n') == 1);
    CHECK_THAT(result.err, Catch::Contains("cut.sqlite.gz: byte ") && Catch::Contains("truncated"));
    CHECK_FALSE(std::filesystem::exists(store));
}
