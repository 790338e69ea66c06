// `mpirun -n 2 strata-mpi metrics` (issue 17): each rank reads its own shards' workers,
// rank 0 merges the partials, and the output is `strata metrics`'s, byte for byte: on the
// real 4-rank DDP files (exact and from the pyramid, where a worker's classification
// depends on what earlier workers' reads learned), on synthetic rank files, on Paraver
// runs whose processes lie in different shards (the ideal replay's calls and messages,
// useful counters, the hybrid split), and for the scaling table of two runs. A bad store
// ends the job with exit 1 and one error line from rank 0.

#ifdef STRATA_MPI_BINARY

#include "tests/support/run_command.h"
#include "tests/support/temp_dir.h"
#include <catch2/catch.hpp>

#include <fstream>
#include <sstream>

using namespace strata;

namespace {

test::CommandResult mpiStrata(
    const std::filesystem::path& dir, const std::vector<std::string>& args)
{
    test::RunOptions options;
    options.workDir = dir;
    options.wrapper = "mpirun --allow-run-as-root --oversubscribe -n 2";
    return test::runBinary(STRATA_MPI_BINARY, args, options);
}

/// Ingests `inputs` with 2 ranks into DIR/NAME (a run of 2 shards); returns NAME.
std::string mpiIngest(
    const test::TempDir& dir, const std::vector<std::string>& inputs, const std::string& name)
{
    std::vector<std::string> args { "ingest" };
    args.insert(args.end(), inputs.begin(), inputs.end());
    args.insert(args.end(), { "-o", name });
    const auto r = mpiStrata(dir.path(), args);
    INFO(r.err);
    REQUIRE(r.exitCode == 0);
    REQUIRE(test::runStrataIn(dir.path(), { "info", name }).find("shards       2")
        != std::string::npos);
    return name;
}

/// `strata-mpi metrics ARGS` on 2 ranks prints what `strata metrics ARGS` prints.
void checkMetricsEqual(const test::TempDir& dir, std::vector<std::string> args)
{
    args.insert(args.begin(), "metrics");
    std::string shown;
    for (const std::string& a : args)
        shown += a + " ";
    INFO(shown);
    const std::string single = test::runStrataIn(dir.path(), args);
    const auto distributed = mpiStrata(dir.path(), args);
    INFO(distributed.err);
    REQUIRE(distributed.exitCode == 0);
    CHECK(distributed.out == single);
}

std::string paraver(const std::string& name)
{
    return std::string(STRATA_TEST_DATA_DIR) + "/paraver/" + name + ".prv";
}

}  // namespace

TEST_CASE("strata-mpi metrics on 2 ranks equals strata metrics: the real 4-rank DDP files",
    "[cli][mpi][metrics][real]") {
    const std::vector<std::string> inputs = test::realDdpRankFiles();
    if (inputs.empty())
        return;  // the shared real-trace folder is not here
    test::TempDir dir;
    const std::string run = mpiIngest(dir, inputs, "run.strata");
    checkMetricsEqual(dir, { run });
    checkMetricsEqual(dir, { run, "--level", "thread" });
    checkMetricsEqual(dir, { run, "--json" });
    checkMetricsEqual(dir, { run, "--level", "stream", "--json", "--window", "20ms:180ms" });
    // From the pyramid: summary cells are classified by the categories earlier workers'
    // exact reads learned (the default rules ignore gpu_user_annotation by category), so a
    // rank must know what the other rank's workers learned.
    checkMetricsEqual(dir, { run, "--level", "process", "--slots", "16", "--json" });
    checkMetricsEqual(dir, { run, "--slots", "16", "--json" });
    checkMetricsEqual(dir, { run, "--profile", "--top", "5" });
    // A rules file (read by every rank) that classifies by category.
    std::ofstream(dir / "rules.txt") << "sync category=^cuda_runtime$\n";
    checkMetricsEqual(dir, { run, "--rules", "rules.txt", "--slots", "16", "--json" });
    checkMetricsEqual(dir, { run, "--profile", "--json", "--slots", "16", "--level", "process" });
}

TEST_CASE("strata-mpi metrics on 2 ranks equals strata metrics: synthetic rank files in 3 shards",
    "[cli][mpi][metrics]") {
    // 3 shards on 2 ranks: rank 0 reads shards 0 and 2, so its workers are not contiguous.
    test::TempDir dir;
    std::vector<std::string> args { "ingest" };
    for (const std::string& file : test::synthRankFiles(dir.path(), 3))
        args.push_back(file);
    args.insert(args.end(), { "-o", "run.strata", "--shards", "3" });
    test::runStrataIn(dir.path(), args);
    const std::string run = "run.strata";
    checkMetricsEqual(dir, { run });
    checkMetricsEqual(dir, { run, "--json", "--all-workers" });
    checkMetricsEqual(dir, { run, "--level", "thread", "--json" });
    checkMetricsEqual(dir, { run, "--slots", "16", "--level", "thread", "--json" });
    checkMetricsEqual(dir, { run, "--profile", "--level", "process", "--top", "3" });
}

TEST_CASE("strata-mpi metrics on 2 ranks equals strata metrics: MPI runs whose processes lie in "
          "both shards "
          "(ideal replay and counters and hybrid) and the scaling table of two runs",
    "[cli][mpi][metrics][scaling]") {
    test::TempDir dir;
    // Two ping-pongs (with PAPI counters): rank 0 reads one, rank 1 the other.
    const std::string counted =
        mpiIngest(dir, { paraver("pingpong"), paraver("pingpong") }, "counted.strata");
    // Rank 1 reads the serialization chain, whose messages set T_ideal.
    const std::string chain =
        mpiIngest(dir, { paraver("pingpong"), paraver("serial_chain") }, "chain.strata");
    // Rank 1 reads the hybrid MPI x threads run.
    const std::string hybrid =
        mpiIngest(dir, { paraver("pingpong"), paraver("hybrid") }, "hybrid.strata");
    REQUIRE(test::runStrataIn(dir.path(), { "metrics", counted }).find("Average useful IPC")
        != std::string::npos);
    REQUIRE(test::runStrataIn(dir.path(), { "metrics", chain }).find("T_ideal 997ns")
        != std::string::npos);
    REQUIRE(
        test::runStrataIn(dir.path(), { "metrics", hybrid, "--level", "thread" }).find("Hybrid: PE")
        != std::string::npos);

    checkMetricsEqual(dir, { counted });
    checkMetricsEqual(dir, { counted, "--json", "--level", "thread" });
    checkMetricsEqual(dir, { chain });
    checkMetricsEqual(dir, { chain, "--json", "--window", "100ns:900ns" });
    checkMetricsEqual(dir, { hybrid, "--level", "thread" });
    checkMetricsEqual(dir, { hybrid, "--json", "--level", "thread" });
    checkMetricsEqual(dir, { counted, chain });
    checkMetricsEqual(dir, { chain, counted, hybrid, "--json", "--weak" });
}

TEST_CASE("strata-mpi metrics: a bad store ends the job with exit 1 and one error line from rank 0",
    "[cli][mpi][metrics][bad]") {
    test::TempDir dir;
    const std::string run = mpiIngest(dir, test::synthRankFiles(dir.path(), 2), "run.strata");
    auto errorLines = [](const std::string& err) {
        std::istringstream in(err);
        std::vector<std::string> lines;
        for (std::string line; std::getline(in, line);) {
            if (line.starts_with("strata-mpi:"))
                lines.push_back(line);
        }
        return lines;
    };
    const std::string missing = (dir / "missing.strata").string();
    for (const auto& args : { std::vector<std::string> { "metrics", missing },
             std::vector<std::string> { "metrics", run, missing } }) {
        const auto r = mpiStrata(dir.path(), args);
        CHECK(r.exitCode == 1);
        CHECK(r.out.empty());
        CHECK(errorLines(r.err)
            == std::vector<std::string> { "strata-mpi: " + missing + ": no such store file" });
    }
    const auto usage = mpiStrata(dir.path(), { "metrics", run, "--strong", "--weak" });
    CHECK(usage.exitCode == 2);
    CHECK(errorLines(usage.err)
        == std::vector<std::string> { "strata-mpi: --strong and --weak exclude each other" });
}

#endif
