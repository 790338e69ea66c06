// `mpirun -n 2 strata-mpi ingest` and `variability` (issue 17): the distributed ingest
// equals the single-process one (info figures, metrics, a cut byte for byte), the
// distributed variability report equals `strata variability`, and a rank that fails on a
// bad input ends the job with exit 1, one error line and no run left. One Paraver .prv is
// split between the ranks (app/mpi/paraver_split.h), with the same results and errors.

#ifdef STRATA_MPI_BINARY

#include "storage/import/common/gzip_reader.h"

#include "tests/support/run_command.h"
#include "tests/support/temp_dir.h"
#include <catch2/catch.hpp>

#include <cstdlib>
#include <fstream>
#include <iterator>
#include <regex>

using namespace strata;

namespace {

/// `mpirun -n 2 [mpirunOptions] strata-mpi args...` in `dir`.
test::CommandResult mpiStrata(const std::filesystem::path& dir,
    const std::vector<std::string>& args, const std::string& mpirunOptions = {})
{
    test::RunOptions options;
    options.workDir = dir;
    options.wrapper = "mpirun --allow-run-as-root --oversubscribe -n 2 " + mpirunOptions;
    return test::runBinary(STRATA_MPI_BINARY, args, options);
}

/// Ingests `inputs` with 2 MPI ranks into DIR/mpi/run.strata and in one process into
/// DIR/one/run.strata, and compares what the commands answer. Returns strata-mpi's stderr.
std::string checkMpiEqualsSingle(
    const std::vector<std::string>& inputs, const std::string& mpirunOptions = {})
{
    test::TempDir dir;
    for (const char* sub : {"mpi", "one"})
        std::filesystem::create_directories(dir / sub);
    std::vector<std::string> args {"ingest"};
    args.insert(args.end(), inputs.begin(), inputs.end());
    args.insert(args.end(), {"-o", "run.strata"});
    const auto distributed = mpiStrata(dir / "mpi", args, mpirunOptions);
    INFO(distributed.err);
    REQUIRE(distributed.exitCode == 0);
    CHECK(distributed.err.find("on 2 ranks") != std::string::npos);
    const bool split = distributed.err.find("the file split between them") != std::string::npos;
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
    // process on the single store, at two levels. A file split by node (or pid) numbers its
    // tracks a node's subtree at a time, so there the outliers' track ids are left out, and
    // the names of workers without a thread, which are their track ids.
    const auto trackIds = [&](std::string report) {
        return split ? std::regex_replace(std::regex_replace(report, std::regex("\"track\": [0-9]+"), "\"track\": _"),
                                          std::regex("\"worker\": \"[0-9]+\""), "\"worker\": _")
                     : report;
    };
    for (const char* level : {"process", "thread"}) {
        const auto distributedReport =
            mpiStrata(dir / "mpi", {"variability", "run.strata", "--json", "--level", level, "--top", "50"});
        CHECK(distributedReport.exitCode == 0);
        CHECK(trackIds(distributedReport.out)
              == trackIds(test::runStrataIn(
                  dir / "one", {"variability", "run.strata", "--json", "--level", level, "--top", "50"})));
    }
    // strata-mpi info is strata info, on rank 0.
    const auto mpiInfo = mpiStrata(dir / "mpi", {"info", "run.strata", "--json"});
    CHECK(mpiInfo.exitCode == 0);
    CHECK(mpiInfo.out == info);
    return distributed.err;
}

/// The shards of a run, from `strata info --json`.
std::size_t shardCount(const std::filesystem::path& dir)
{
    const std::string info = test::runStrataIn(dir, { "info", "run.strata", "--json" });
    std::size_t n = 0;
    for (std::size_t at = info.find("\"path\":"); at != std::string::npos;
         at = info.find("\"path\":", at + 1))
        ++n;
    return n;
}

/// A synthetic Paraver run of 8 ranks on 2 nodes (.prv, .pcf, .row) in `dir`.
std::string synthParaver(const std::filesystem::path& dir)
{
    const std::string prv = (dir / "synth.prv").string();
    test::runStrataIn(dir, { "synth", "-o", prv, "--events", "60000", "--ranks", "8" });
    return prv;
}

/// The lines of a text file.
std::vector<std::string> lines(const std::filesystem::path& file)
{
    std::ifstream in(file);
    std::vector<std::string> out;
    for (std::string line; std::getline(in, line);)
        out.push_back(line);
    return out;
}

/// Writes `text` as DIR/STEM.prv beside a copy of `prv`'s .pcf and .row; returns its path.
std::string paraverVariant(const std::filesystem::path& dir, const std::string& stem,
    const std::string& prv, const std::vector<std::string>& text)
{
    const std::filesystem::path out = dir / (stem + ".prv");
    {
        std::ofstream file(out);
        for (const std::string& line : text)
            file << line << '\n';
    }
    for (const char* side : { ".pcf", ".row" })
        std::filesystem::copy_file(
            std::filesystem::path(prv).replace_extension(side), dir / (stem + side));
    return out.string();
}

/// Writes the content of gzip file `gz` to `file`.
void inflate(const std::filesystem::path& gz, const std::filesystem::path& file)
{
    storage::GzipReader reader(gz, true);
    std::ofstream out(file, std::ios::binary);
    std::string buffer(std::size_t(1) << 20, '\0');
    while (const std::size_t got = reader.read(buffer.data(), buffer.size()))
        out.write(buffer.data(), static_cast<std::streamsize>(got));
}

/// Writes `text` as the lines of `file`; returns its path.
std::string writeLines(const std::filesystem::path& file, const std::vector<std::string>& text)
{
    std::ofstream out(file);
    for (const std::string& line : text)
        out << line << '\n';
    return file.string();
}

/// A Chrome trace in the bare array form, not closed by ']', written here: 4 pids of 2
/// threads, whose X events have names holding "},{" and args holding arrays of objects
/// (text where a guessed event start is wrong), B/E pairs, an E without its B, flows from
/// pid 1 to pid 2, counters on pid 3, async events on pid 4, and the metadata last.
std::string trickyChrome(const std::filesystem::path& dir)
{
    std::vector<std::string> text {"["};
    for (int i = 0; i < 3000; ++i) {
        const int pid = 1 + i % 4;
        const std::string at = ",\"ts\":" + std::to_string(1000 + i * 7);
        const std::string thread = ",\"pid\":" + std::to_string(pid) + ",\"tid\":" + std::to_string(10 + i / 4 % 2);
        text.push_back(R"({"ph":"X","name":"op },{ )" + std::to_string(i % 13) + R"(","cat":"cpu_op")" + thread + at
                       + R"(,"dur":5,"args":{"frames":[{"f":"a"},)");
        text.push_back(R"(  {"f":"b"}]}},)");
        if (pid == 1 && i % 3 == 0)
            text.push_back(R"({"ph":"s","cat":"fl","name":"hop","id":)" + std::to_string(i) + thread + at + "},");
        if (pid == 2 && i % 3 == 1)
            text.push_back(R"({"ph":"f","bp":"e","cat":"fl","name":"hop","id":)" + std::to_string(i - 1) + thread + at
                           + "},");
        if (pid == 3) {
            text.push_back(R"({"ph":"C","name":"mem","pid":3,"tid":0)" + at + R"(,"args":{"a":)" + std::to_string(i)
                           + R"(,"b":2}},)");
            text.push_back(R"({"ph":"B","name":"step","pid":3,"tid":12)" + at + "},");
            text.push_back(R"({"ph":"E","pid":3,"tid":12,"ts":)" + std::to_string(1003 + i * 7) + "},");
        }
        if (pid == 4 && i % 8 == 3)
            text.push_back(R"({"ph":"b","cat":"req","name":"get","id":)" + std::to_string(i) + thread + at + "},");
        if (pid == 4 && i % 8 == 7)
            text.push_back(R"({"ph":"e","cat":"req","name":"get","id":)" + std::to_string(i - 4) + thread + at + "},");
    }
    text.push_back(R"({"ph":"E","pid":4,"tid":10,"ts":1000},)");
    for (int pid = 1; pid <= 4; ++pid)
        text.push_back(R"({"ph":"M","name":"process_name","pid":)" + std::to_string(pid) + R"(,"args":{"name":"p)"
                       + std::to_string(pid) + "\"}}" + (pid < 4 ? "," : ""));
    return writeLines(dir / "tricky.json", text);
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

TEST_CASE("strata-mpi ingest splits one synthetic .prv between 2 ranks, equal to one process",
    "[cli][mpi][paraver]") {
    test::TempDir dir;
    const std::string prv = synthParaver(dir.path());
    const std::string err = checkMpiEqualsSingle({ prv });
    CHECK(err.find("on 2 ranks, the file split between them") != std::string::npos);
    // Each rank built the shard of one node.
    test::TempDir again;
    REQUIRE(mpiStrata(again.path(), { "ingest", prv, "-o", "run.strata" }).exitCode == 0);
    CHECK(shardCount(again.path()) == 2);
    // Many small chunks (lines cut at every chunk border, many rounds) and messages cut
    // into 1000-byte pieces give the same run.
    CHECK(checkMpiEqualsSingle(
              { prv }, "-x STRATA_MPI_CHUNK_BYTES=65536 -x STRATA_MPI_MAX_MESSAGE=1000")
              .find("the file split between them")
        != std::string::npos);
}

TEST_CASE("strata-mpi ingest of one .prv whose nodes all exchange messages splits the nodes",
    "[cli][mpi][paraver]") {
    test::TempDir dir;
    const std::string prv = (dir / "four.prv").string();
    test::runStrataIn(dir.path(), { "synth", "-o", prv, "--events", "60000", "--ranks", "16" });
    // 16 ranks on 4 nodes (tasks 1, 3, ... 31 the ranks, the even ones their GPUs): a ring
    // of messages, rank k to rank k + 1 and the last to the first, 5 rounds, so every
    // node talks to its neighbours and no cut between nodes is free of messages.
    std::vector<std::string> text = lines(prv);
    for (int round = 0; round < 5; ++round) {
        for (int k = 0; k < 16; ++k) {
            const long send = 2'000'000 + round * 10'000'000L + k * 1000;
            const std::string at = std::to_string(send) + ":" + std::to_string(send) + ":";
            const std::string arrive =
                std::to_string(send + 50'000) + ":" + std::to_string(send + 50'000) + ":";
            text.push_back("3:1:1:" + std::to_string(2 * k + 1) + ":1:" + at
                + "1:1:" + std::to_string(2 * ((k + 1) % 16) + 1) + ":1:" + arrive
                + "64:" + std::to_string(k));
        }
    }
    const std::string talk = paraverVariant(dir.path(), "talk", prv, text);
    CHECK(checkMpiEqualsSingle({ talk }).find("the file split between them") != std::string::npos);
    REQUIRE(mpiStrata(dir.path(), { "ingest", talk, "-o", "run.strata" }).exitCode == 0);
    // Two nodes (49 tracks each) on each rank, the messages between them kept.
    CHECK(shardCount(dir.path()) == 2);
    const std::string info = test::runStrataIn(dir.path(), { "info", "run.strata", "--json" });
    INFO(info);
    CHECK(info.find("\"tracks\":98,") != std::string::npos);
    CHECK(info.find("\"tracks\":98,", info.find("\"tracks\":98,") + 1) != std::string::npos);
    // strata-mpi metrics: each rank sends the messages of its processes, with their
    // receivers on the other rank's nodes too, to rank 0's replay.
    const auto metrics = mpiStrata(dir.path(), { "metrics", "run.strata", "--json" });
    CHECK(metrics.exitCode == 0);
    CHECK(metrics.out == test::runStrataIn(dir.path(), { "metrics", "run.strata", "--json" }));
    // The Paraver cut writes each message as a type-3 record again, alike from both.
    test::runStrataIn(dir.path(), { "ingest", talk, "-o", "one.strata", "--shards", "1" });
    for (const char* store : { "run", "one" })
        test::runStrataIn(dir.path(),
            { "cut", std::string(store) + ".strata", "-o", std::string(store) + "-cut.prv" });
    const std::string cutPrv = test::readFile(dir / "run-cut.prv");
    CHECK(cutPrv == test::readFile(dir / "one-cut.prv"));
    // The message from the last rank to the first is there.
    CHECK(cutPrv.find(":64:15\n") != std::string::npos);
    // The timeline draws the arrows between the shards' nodes (rank 7 on "node 1", in
    // shard 0, to rank 8 on "node 2", in shard 1, at 2.007 ms) as in the single store.
    for (const char* store : { "run", "one" })
        test::runStrataIn(dir.path(),
            { "render", std::string(store) + ".strata", "-o", std::string(store) + ".png",
                "--window", "1.9ms:2.2ms", "--tracks", "node [12]" });
    CHECK(test::readFile(dir / "run.png") == test::readFile(dir / "one.png"));
}

TEST_CASE("strata-mpi ingest splits one real Extrae .prv between 2 ranks, equal to one process",
    "[cli][mpi][paraver][real]") {
    const auto gz = test::realTrace("public/paraver-pypop/epoch_example_traces/epoch_4proc.prv.gz");
    if (gz.empty())
        return;  // the shared real-trace folder is not here
    test::TempDir dir;
    // Uncompressed (a .prv.gz cannot be split), with its .pcf and .row.
    const auto prv = dir / "epoch_4proc.prv";
    inflate(gz, prv);
    for (const char* side : { ".pcf", ".row" })
        std::filesystem::copy_file(
            std::filesystem::path(gz).replace_extension("").replace_extension(side),
            std::filesystem::path(prv).replace_extension(side));
    // One node, so rank 0 owns every record; rank 1 reads half of the lines and sends them.
    const std::string err =
        checkMpiEqualsSingle({ prv.string() }, "-x STRATA_MPI_CHUNK_BYTES=200000");
    CHECK(err.find("the file split between them") != std::string::npos);
}

TEST_CASE(
    "strata-mpi ingest splits the real 4-node MPI qsort .prv, messages between the ranks kept",
    "[cli][mpi][paraver][real]") {
    const auto prv = test::realTrace("public/paraver-kernel-qsort/qsort_beo3.prv");
    if (prv.empty())
        return;  // the shared real-trace folder is not here
    test::TempDir dir;
    for (const char* ext : { ".prv", ".pcf" })
        std::filesystem::copy_file(std::filesystem::path(prv).replace_extension(ext),
            dir / (std::string("qsort_beo3") + ext));
    const std::string copy = (dir / "qsort_beo3.prv").string();
    // 4 MPI tasks on 4 nodes whose 33 point-to-point messages join them all.
    CHECK(checkMpiEqualsSingle({ copy }).find("the file split between them") != std::string::npos);
    REQUIRE(mpiStrata(dir.path(), { "ingest", copy, "-o", "run.strata" }).exitCode == 0);
    CHECK(shardCount(dir.path()) == 2);
    // The ideal replay matches the messages sent on one rank's nodes to the other's calls.
    const std::string metrics = test::runStrataIn(dir.path(), { "metrics", "run.strata" });
    CHECK(metrics.find("0.2841   (T_ideal / T)") != std::string::npos);
    const auto distributed = mpiStrata(dir.path(), { "metrics", "run.strata" });
    CHECK(distributed.exitCode == 0);
    CHECK(distributed.out == metrics);
}

TEST_CASE("strata-mpi ingest of one split .prv: a malformed line in rank 1's range ends the job",
    "[cli][mpi][paraver][bad]") {
    test::TempDir dir;
    const std::string prv = synthParaver(dir.path());
    // The file is split: a good run has one shard per rank.
    REQUIRE(mpiStrata(dir.path(), { "ingest", prv, "-o", "good.strata" }).exitCode == 0);
    const std::string good = test::runStrataIn(dir.path(), { "info", "good.strata", "--json" });
    CHECK(good.find("shard-0001") != std::string::npos);

    // A bad record three quarters down (rank 1's half of the file), with its .pcf/.row.
    std::vector<std::string> text = lines(prv);
    const std::size_t badLine = text.size() * 3 / 4;  // 1-based line number of the bad record
    text.insert(
        text.begin() + static_cast<std::ptrdiff_t>(badLine - 1), "2:1:1:1:1:oops:50000001:1");
    const std::string bad = paraverVariant(dir.path(), "bad", prv, text);
    const auto single = test::runStrata({ "ingest", bad, "-o", (dir / "one.strata").string() });
    REQUIRE(single.exitCode == 1);
    const std::string expected =
        bad + ": line " + std::to_string(badLine) + ": expected time (a number) as field 6";
    CHECK(single.err.find(expected) != std::string::npos);

    for (const std::string options : { "", "-x STRATA_MPI_CHUNK_BYTES=65536" }) {
        const auto r = mpiStrata(dir.path(), { "ingest", bad, "-o", "run.strata" }, options);
        CHECK(r.exitCode == 1);
        // One line from rank 0: strata ingest's message.
        CHECK(r.err.find("strata-mpi: " + single.err.substr(std::string("strata: ").size()))
            != std::string::npos);
        CHECK(r.err.find("strata-mpi: ", r.err.find("strata-mpi: ") + 1) == std::string::npos);
        CHECK_FALSE(std::filesystem::exists(dir / "run.strata"));
        CHECK_FALSE(std::filesystem::exists(dir / "run.strata.d"));
    }
    // Over an existing run, which stays as it was.
    std::filesystem::copy_file(dir / "good.strata", dir / "kept.strata");
    std::filesystem::copy(dir / "good.strata.d", dir / "kept.strata.d");
    const std::string manifest = test::readFile(dir / "kept.strata");
    CHECK(mpiStrata(dir.path(), { "ingest", bad, "-o", "kept.strata" }).exitCode == 1);
    CHECK(test::readFile(dir / "kept.strata") == manifest);
    test::runStrataIn(dir.path(), { "info", "kept.strata" });
}

TEST_CASE("strata-mpi ingest splits one .prv.gz between 2 ranks, equal to one process", "[cli][mpi][paraver]")
{
    test::TempDir dir;
    const std::string prv = synthParaver(dir.path());
    // The trace gzipped, beside its .pcf and .row; and a copy with a bad record three
    // quarters down (rank 1's half).
    std::vector<std::string> text = lines(prv);
    const std::string packed = paraverVariant(dir.path(), "packed", prv, text);
    const std::size_t badLine = text.size() * 3 / 4;
    text.insert(text.begin() + static_cast<std::ptrdiff_t>(badLine - 1), "2:1:1:1:1:oops:50000001:1");
    const std::string bad = paraverVariant(dir.path(), "bad", prv, text);
    for (const std::string& file : {packed, bad})
        REQUIRE(std::system(("gzip -n '" + file + "'").c_str()) == 0);

    // Every rank inflates the stream and keeps its chunks: small chunks, many rounds.
    for (const std::string options : {"", "-x STRATA_MPI_CHUNK_BYTES=65536"}) {
        CHECK(checkMpiEqualsSingle({packed + ".gz"}, options).find("on 2 ranks, the file split between them")
              != std::string::npos);
        const auto single = test::runStrata({"ingest", bad + ".gz", "-o", (dir / "one.strata").string()});
        REQUIRE(single.exitCode == 1);
        CHECK(single.err.find(": line " + std::to_string(badLine) + ": ") != std::string::npos);
        const auto r = mpiStrata(dir.path(), {"ingest", bad + ".gz", "-o", "run.strata"}, options);
        CHECK(r.exitCode == 1);
        CHECK(r.err.find("strata-mpi: " + single.err.substr(std::string("strata: ").size())) != std::string::npos);
        CHECK_FALSE(std::filesystem::exists(dir / "run.strata"));
    }
    REQUIRE(mpiStrata(dir.path(), {"ingest", packed + ".gz", "-o", "run.strata"}).exitCode == 0);
    CHECK(shardCount(dir.path()) == 2);
}

TEST_CASE("strata-mpi ingest splits one synthetic Chrome JSON between 2 ranks, equal to one process",
          "[cli][mpi][chrome]")
{
    test::TempDir dir;
    const std::string json = (dir / "synth.json").string();
    test::runStrataIn(dir.path(), {"synth", "-o", json, "--events", "60000", "--ranks", "8"});
    CHECK(checkMpiEqualsSingle({json}).find("on 2 ranks, the file split between them") != std::string::npos);
    // Each rank built the shard of 4 of the 8 ranks' pids.
    test::TempDir again;
    REQUIRE(mpiStrata(again.path(), {"ingest", json, "-o", "run.strata"}).exitCode == 0);
    CHECK(shardCount(again.path()) == 2);
    // Many small chunks (events cut at every chunk border, many rounds) and messages cut
    // into 1000-byte pieces give the same run.
    CHECK(checkMpiEqualsSingle({json}, "-x STRATA_MPI_CHUNK_BYTES=65536 -x STRATA_MPI_MAX_MESSAGE=1000")
              .find("the file split between them")
          != std::string::npos);
}

TEST_CASE("strata-mpi ingest of one Chrome JSON: wrong guesses of event starts, a bare array, pids joined by flows",
          "[cli][mpi][chrome]")
{
    test::TempDir dir;
    const std::string json = trickyChrome(dir.path());
    // 4 KB chunks: most chunk starts are guessed inside a name or an args array, and
    // scanned again from where the chunk before stopped.
    const std::string err = checkMpiEqualsSingle({json}, "-x STRATA_MPI_CHUNK_BYTES=4096");
    CHECK(err.find("the file split between them") != std::string::npos);
    CHECK(err.find("the JSON array is not closed with ']'") != std::string::npos);  // the report's note
    // Pids 1 and 2 (joined by flows) on rank 0, pids 3 and 4 on rank 1.
    REQUIRE(mpiStrata(dir.path(), {"ingest", json, "-o", "run.strata"}, "-x STRATA_MPI_CHUNK_BYTES=4096").exitCode
            == 0);
    CHECK(shardCount(dir.path()) == 2);
    const std::string info = test::runStrataIn(dir.path(), {"info", "run.strata", "--json"});
    CHECK(info.find("\"tracks\":6,") != std::string::npos);  // p1, p2 and their 2 threads each
}

TEST_CASE("strata-mpi ingest splits one real Kineto JSON between 2 ranks, equal to one process",
          "[cli][mpi][chrome][real]")
{
    for (const char* trace : {"h100/kineto_gpt_train_1gpu.json.gz", "public/kineto-hta/trace_filter/sampled_rank-0.json.gz"}) {
        const auto gz = test::realTrace(trace);
        if (gz.empty())
            return;  // the shared real-trace folder is not here
        INFO(trace);
        test::TempDir dir;
        // Uncompressed (a .json.gz is read by one rank).
        const auto json = dir / "trace.json";
        inflate(gz, json);
        const std::string err = checkMpiEqualsSingle({json.string()}, "-x STRATA_MPI_CHUNK_BYTES=400000");
        CHECK(err.find("the file split between them") != std::string::npos);
    }
}

TEST_CASE("strata-mpi ingest of one split Chrome JSON: a malformed event in rank 1's range ends the job",
          "[cli][mpi][chrome][bad]")
{
    test::TempDir dir;
    const std::string json = (dir / "synth.json").string();
    test::runStrataIn(dir.path(), {"synth", "-o", json, "--events", "60000", "--ranks", "8"});
    // The file is split: a good run has one shard per rank.
    REQUIRE(mpiStrata(dir.path(), {"ingest", json, "-o", "good.strata"}).exitCode == 0);
    CHECK(test::runStrataIn(dir.path(), {"info", "good.strata", "--json"}).find("shard-0001") != std::string::npos);

    // A member missing after a ',' three quarters down (rank 1's half of the file).
    std::vector<std::string> text = lines(json);
    const std::size_t badLine = text.size() * 3 / 4;
    std::uint64_t offset = 0;
    for (std::size_t i = 0; i + 1 < badLine; ++i)
        offset += text[i].size() + 1;
    const std::string event = R"({"ph":"X","name":"bad","pid":1000,"tid":1,"ts":12,"dur":3,},)";
    text.insert(text.begin() + static_cast<std::ptrdiff_t>(badLine - 1), event);
    const std::string bad = writeLines(dir / "bad.json", text);
    const auto single = test::runStrata({"ingest", bad, "-o", (dir / "one.strata").string()});
    REQUIRE(single.exitCode == 1);
    const std::string expected =
        bad + ": byte " + std::to_string(offset + event.find(",}") + 1) + ": expected a member name";
    CHECK(single.err.find(expected) != std::string::npos);

    for (const std::string options : {"", "-x STRATA_MPI_CHUNK_BYTES=65536"}) {
        const auto r = mpiStrata(dir.path(), {"ingest", bad, "-o", "run.strata"}, options);
        CHECK(r.exitCode == 1);
        // One line from rank 0: strata ingest's message.
        CHECK(r.err.find("strata-mpi: " + single.err.substr(std::string("strata: ").size())) != std::string::npos);
        CHECK(r.err.find(expected) != std::string::npos);
        CHECK(r.err.find("strata-mpi: ", r.err.find("strata-mpi: ") + 1) == std::string::npos);
        CHECK_FALSE(std::filesystem::exists(dir / "run.strata"));
        CHECK_FALSE(std::filesystem::exists(dir / "run.strata.d"));
    }
    // Over an existing run, which stays as it was.
    const std::string manifest = test::readFile(dir / "good.strata");
    CHECK(mpiStrata(dir.path(), {"ingest", bad, "-o", "good.strata"}).exitCode == 1);
    CHECK(test::readFile(dir / "good.strata") == manifest);
    test::runStrataIn(dir.path(), {"info", "good.strata"});
}

#endif
