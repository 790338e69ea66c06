// `mpirun -n 2 strata-mpi ingest` and `variability` (issue 17): the distributed ingest
// equals the single-process one (info figures, metrics, a cut byte for byte), the
// distributed variability report equals `strata variability`, and a rank that fails on a
// bad input ends the job with exit 1, one error line and no run left.

#ifdef STRATA_MPI_BINARY

#include "tests/support/run_command.h"
#include "tests/support/temp_dir.h"

#include <catch2/catch.hpp>

#include <fstream>
#include <iterator>

using namespace strata;

namespace {

test::CommandResult mpiStrata(const std::filesystem::path& dir, const std::vector<std::string>& args)
{
    test::RunOptions options;
    options.workDir = dir;
    options.wrapper = "mpirun --allow-run-as-root --oversubscribe -n 2";
    return test::runBinary(STRATA_MPI_BINARY, args, options);
}

/// Ingests `inputs` with 2 MPI ranks into DIR/mpi/run.strata and in one process into
/// DIR/one/run.strata, and compares what the commands answer.
void checkMpiEqualsSingle(const std::vector<std::string>& inputs)
{
    test::TempDir dir;
    for (const char* sub : {"mpi", "one"})
        std::filesystem::create_directories(dir / sub);
    std::vector<std::string> args {"ingest"};
    args.insert(args.end(), inputs.begin(), inputs.end());
    args.insert(args.end(), {"-o", "run.strata"});
    const auto distributed = mpiStrata(dir / "mpi", args);
    INFO(distributed.err);
    REQUIRE(distributed.exitCode == 0);
    CHECK(distributed.err.find("on 2 ranks") != std::string::npos);
    auto single = args;
    single.insert(single.end(), {"--shards", "1"});
    test::runStrataIn(dir / "one", single);

    const std::string info = test::runStrataIn(dir / "mpi", {"info", "run.strata", "--json"});
    CHECK(info.find("\"shards\":[{") != std::string::npos);
    CHECK(test::infoFigures(info) == test::infoFigures(test::runStrataIn(dir / "one", {"info", "run.strata", "--json"})));
    CHECK(test::runStrataIn(dir / "mpi", {"metrics", "run.strata", "--json"}) == test::runStrataIn(dir / "one", {"metrics", "run.strata", "--json"}));
    for (const char* sub : {"mpi", "one"})
        test::runStrataIn(dir / sub, {"cut", "run.strata", "-o", "cut.json", "--window", "0:50ms"});
    CHECK(test::readFile(dir / "mpi" / "cut.json") == test::readFile(dir / "one" / "cut.json"));
    // Variability across the 2 ranks (each reads its shards, rank 0 merges) equals one
    // process on the single store, at two levels.
    for (const char* level : {"process", "thread"}) {
        const auto distributedReport =
            mpiStrata(dir / "mpi", {"variability", "run.strata", "--json", "--level", level, "--top", "50"});
        CHECK(distributedReport.exitCode == 0);
        CHECK(distributedReport.out
              == test::runStrataIn(dir / "one", {"variability", "run.strata", "--json", "--level", level, "--top", "50"}));
    }
    // strata-mpi info is strata info, on rank 0.
    const auto mpiInfo = mpiStrata(dir / "mpi", {"info", "run.strata", "--json"});
    CHECK(mpiInfo.exitCode == 0);
    CHECK(mpiInfo.out == info);
}

} // namespace

TEST_CASE("strata-mpi ingest on 2 ranks equals one process: synthetic rank files", "[cli][mpi]")
{
    test::TempDir dir;
    const std::vector<std::string> inputs = test::synthRankFiles(dir.path(), 3);
    checkMpiEqualsSingle(inputs);
}

TEST_CASE("strata-mpi ingest on 2 ranks equals one process: the real 4-rank DDP files", "[cli][mpi][real]")
{
    const std::vector<std::string> inputs = test::realDdpRankFiles();
    if (inputs.empty())
        return;  // the shared real-trace folder is not here
    checkMpiEqualsSingle(inputs);
}

TEST_CASE("strata-mpi ingest: a rank failing on a bad input ends the job, leaving no run", "[cli][mpi][bad]")
{
    test::TempDir dir;
    const std::string good = (dir / "good.json").string();
    test::runStrataIn(dir.path(), {"synth", "-o", good, "--events", "20000", "--ranks", "1"});
    std::ofstream(dir / "bad.json") << R"({"traceEvents": []})";
    // Rank 0 imports good.json, rank 1 bad.json.
    const auto r = mpiStrata(dir.path(), {"ingest", good, (dir / "bad.json").string(), "-o", "run.strata"});
    CHECK(r.exitCode == 1);
    CHECK(r.err.find("strata-mpi: no events in " + (dir / "bad.json").string()) != std::string::npos);
    CHECK_FALSE(std::filesystem::exists(dir / "run.strata"));
    CHECK_FALSE(std::filesystem::exists(dir / "run.strata.d"));

    // Over an existing run, which stays as it was.
    const auto made = mpiStrata(dir.path(), {"ingest", good, good, "-o", "run.strata"});
    REQUIRE(made.exitCode == 0);
    const std::string manifest = test::readFile(dir / "run.strata");
    CHECK(mpiStrata(dir.path(), {"ingest", good, (dir / "bad.json").string(), "-o", "run.strata"}).exitCode == 1);
    CHECK(test::readFile(dir / "run.strata") == manifest);
    std::size_t files = 0;
    for (const auto& e : std::filesystem::directory_iterator(dir / "run.strata.d"))
        files += e.is_regular_file() ? 1 : 0;
    CHECK(files == 2);
    test::runStrataIn(dir.path(), {"info", "run.strata"});
}

#endif
