// The bench's ingest figures come from the median of several runs, each in a child process.

#include "bench/bench_support.h"
#include "tests/support/temp_dir.h"
#include <catch2/catch.hpp>

#include <fstream>

using namespace strata;

TEST_CASE("the bench reports the median run of a case and the lower middle of an even count",
    "[cli][bench]") {
    test::TempDir dir;
    const auto counter = dir / "runs";
    // Each run, a child process, counts itself in a file and takes the next time of `times`.
    auto medianOf = [&](const std::vector<double>& times) {
        std::ofstream(counter) << 0;
        return bench::medianRunInChild(static_cast<int>(times.size()), [&] {
            int run = 0;
            std::ifstream(counter) >> run;
            std::ofstream(counter) << run + 1;
            return std::vector<double> { times.at(static_cast<std::size_t>(run)), double(run) };
        });
    };
    CHECK(medianOf({ 5, 1, 9 }) == std::vector<double> { 5, 0 });
    CHECK(medianOf({ 5, 1, 9, 3 }) == std::vector<double> { 3, 3 });
    CHECK(medianOf({ 7 }) == std::vector<double> { 7, 0 });
    CHECK(medianOf({ 2, 8, 4, 6, 1 }) == std::vector<double> { 4, 2 });
}
