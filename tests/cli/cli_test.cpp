// The command-line contract: exit codes, one-line errors naming the file, and the
// figures `info --json` promises, on stores made by `synth` and by `ingest`.

#include "tests/support/run_command.h"
#include "tests/support/temp_dir.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdlib>
#include <sys/wait.h>
#include <fstream>
#include <iterator>

using namespace strata;

namespace {

std::string field(const std::string& json, const std::string& key)
{
    const auto at = json.find("\"" + key + "\":");
    if (at == std::string::npos)
        return {};
    const auto start = at + key.size() + 3;
    const auto end = json.find_first_of(",}", start);
    return json.substr(start, end - start);
}

int lineCount(const std::string& s)
{
    return static_cast<int>(std::count(s.begin(), s.end(), '\n'));
}

} // namespace

TEST_CASE("bad usage exits with 2 and bad input with 1 and one line", "[cli]")
{
    test::TempDir dir;
    CHECK(test::runStrata({"--version"}).exitCode == 0);
    CHECK(test::runStrata({"info"}).exitCode == 2);
    CHECK(test::runStrata({"ingest", "x.json"}).exitCode == 2);  // no -o
    CHECK(test::runStrata({"synth", "-o", (dir / "a.strata").string(), "--events", "many"}).exitCode == 2);
    CHECK(test::runStrata({"info", "--bogus", "x"}).exitCode == 2);

    std::ofstream(dir / "broken.json") << "{\"traceEvents\": [{\"ph\":\"X\", \"ts\": 1, \"dur\": 2, @@@";
    const auto bad = test::runStrata({"ingest", (dir / "broken.json").string(), "-o", (dir / "b.strata").string()});
    CHECK(bad.exitCode == 1);
    CHECK(lineCount(bad.err) == 1);
    CHECK_THAT(bad.err, Catch::Contains("broken.json") && Catch::Contains("byte"));
    CHECK_FALSE(std::filesystem::exists(dir / "b.strata"));

    const auto notStore = test::runStrata({"info", (dir / "broken.json").string()});
    CHECK(notStore.exitCode == 1);
    CHECK(lineCount(notStore.err) == 1);
    CHECK_THAT(notStore.err, Catch::Contains("broken.json") && Catch::Contains("not a Strata store"));
}

TEST_CASE("synth to a store and to JSON then ingest give the same figures", "[cli]")
{
    test::TempDir dir;
    const auto store = (dir / "s.strata").string();
    const auto json = (dir / "s.json.gz").string();
    const auto ingested = (dir / "i.strata").string();
    REQUIRE(test::runStrata({"synth", "-o", store, "--events", "20000", "--ranks", "2", "--seed", "3"}).exitCode == 0);
    REQUIRE(test::runStrata({"synth", "-o", json, "--events", "20000", "--ranks", "2", "--seed", "3"}).exitCode == 0);
    const auto ingest = test::runStrata({"ingest", json, "-o", ingested});
    INFO(ingest.err);
    REQUIRE(ingest.exitCode == 0);

    const auto a = test::runStrata({"info", "--json", store});
    const auto b = test::runStrata({"info", "--json", ingested});
    REQUIRE(a.exitCode == 0);
    REQUIRE(b.exitCode == 0);
    for (const char* key : {"interval", "instant", "counter", "flow", "span_ns"})
        CHECK(field(a.out, key) == field(b.out, key));
    CHECK(std::stoll(field(a.out, "interval")) > 5000);
    CHECK(std::stoll(field(a.out, "store_bytes")) > 0);
    CHECK_THAT(a.out, Catch::Contains("\"intervals_by_category\":{") && Catch::Contains("\"kernel\""));
    CHECK_THAT(a.out, Catch::Contains("\"levels\":{\"summary_levels\":"));
    CHECK(std::stoll(field(a.out, "tracks")) > 10);
}

TEST_CASE("the same synth seed gives byte-identical outputs", "[cli]")
{
    test::TempDir dir;
    for (const char* ext : {".strata", ".json.gz"}) {
        const auto a = (dir / (std::string("a") + ext)).string();
        const auto b = (dir / (std::string("b") + ext)).string();
        REQUIRE(test::runStrata({"synth", "-o", a, "--events", "5000", "--seed", "9"}).exitCode == 0);
        REQUIRE(test::runStrata({"synth", "-o", b, "--events", "5000", "--seed", "9"}).exitCode == 0);
        std::ifstream fa(a, std::ios::binary), fb(b, std::ios::binary);
        const std::string sa{std::istreambuf_iterator<char>(fa), {}}, sb{std::istreambuf_iterator<char>(fb), {}};
        CHECK(sa.size() > 1000);
        CHECK(sa == sb);
    }
}

TEST_CASE("without a display, strata renders the demo to a PNG and prints its figures", "[cli]")
{
    test::TempDir dir;
    const std::string script = "cd '" + dir.path().string() + "' && XDG_CACHE_HOME='" + dir.path().string()
                               + "/cache' env -u DISPLAY -u WAYLAND_DISPLAY -u QT_QPA_PLATFORM '" STRATA_BINARY
                                 "' > out.txt 2>&1";
    REQUIRE(std::system(script.c_str()) == 0);
    std::ifstream out(dir / "out.txt");
    const std::string text{std::istreambuf_iterator<char>(out), {}};
    CHECK_THAT(text, Catch::Contains("rendered") && Catch::Contains("events"));
    bool png = false;
    for (const auto& entry : std::filesystem::directory_iterator(dir.path()))
        png = png || (entry.path().extension() == ".png" && std::filesystem::file_size(entry.path()) > 10000);
    CHECK(png);
}

TEST_CASE("real Kineto traces ingest with the counts their README gives", "[cli][real]")
{
    const auto oneGpu = test::realTrace("h100/kineto_gpt_train_1gpu.json.gz");
    if (oneGpu.empty())
        return;  // the shared real-trace folder is not here
    test::TempDir dir;
    const auto store = (dir / "1gpu.strata").string();
    REQUIRE(test::runStrata({"ingest", oneGpu.string(), "-o", store}).exitCode == 0);
    const std::string info = test::runStrata({"info", "--json", store}).out;
    CHECK(field(info, "interval") == "32148");
    CHECK(field(info, "instant") == "4698");
    CHECK(field(info, "flow") == "3490");  // s/f pairs with both ends (README: 3,493 s / 3,806 f)
    CHECK_THAT(info, Catch::Contains("\"cpu_op\":{\"count\":14916,"));
    CHECK_THAT(info, Catch::Contains("\"python_function\":{\"count\":12580,"));
    CHECK_THAT(info, Catch::Contains("\"kernel\":{\"count\":1820,\"total_ns\":41612003}"));

    // The four DDP ranks in one store: every rank's intervals, kernel time summed.
    std::vector<std::string> args = {"ingest"};
    for (int r = 0; r < 4; ++r)
        args.push_back(test::realTrace("h100/kineto_ddp_rank" + std::to_string(r) + ".json.gz").string());
    const auto ddp = (dir / "ddp.strata").string();
    args.insert(args.end(), {"-o", ddp});
    REQUIRE(test::runStrata(args).exitCode == 0);
    const std::string ddpInfo = test::runStrata({"info", "--json", ddp}).out;
    CHECK(field(ddpInfo, "interval") == std::to_string(10384 + 10411 + 10695 + 10719));
    CHECK_THAT(ddpInfo, Catch::Contains("\"kernel\":{\"count\":4139,\"total_ns\":38655643}"));
    // Aligned on the earliest baseTimeNanoseconds: the run spans a few hundred ms, not hours.
    CHECK(std::stoll(field(ddpInfo, "span_ns")) < 1'000'000'000);
}

TEST_CASE("render writes the timeline as PNG of the asked size and as SVG with text", "[cli][render]")
{
    test::TempDir dir;
    const auto store = (dir / "r.strata").string();
    REQUIRE(test::runStrata({"synth", "-o", store, "--events", "20000", "--ranks", "2"}).exitCode == 0);
    const auto png = (dir / "t.png").string();
    const auto r = test::runStrata({"render", store, "-o", png, "--size", "900x500", "--window", "1ms:3ms"});
    REQUIRE(r.exitCode == 0);
    std::ifstream in(png, std::ios::binary);
    const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    REQUIRE(bytes.size() > 1000);
    CHECK(bytes.substr(1, 3) == "PNG");
    auto be32 = [&](std::size_t at) {
        return (std::uint32_t(std::uint8_t(bytes[at])) << 24) | (std::uint32_t(std::uint8_t(bytes[at + 1])) << 16)
               | (std::uint32_t(std::uint8_t(bytes[at + 2])) << 8) | std::uint32_t(std::uint8_t(bytes[at + 3]));
    };
    CHECK(be32(16) == 900);  // IHDR width, height
    CHECK(be32(20) == 500);

    const auto svg = (dir / "t.svg").string();
    REQUIRE(test::runStrata({"render", store, "-o", svg, "--tracks", "rank 1", "--color-by", "role"}).exitCode == 0);
    std::ifstream svgIn(svg);
    const std::string text((std::istreambuf_iterator<char>(svgIn)), std::istreambuf_iterator<char>());
    CHECK_THAT(text, Catch::Contains("<svg") && Catch::Contains("</svg>") && Catch::Contains("<text"));
    CHECK_THAT(text, Catch::Contains("rank 1"));
    CHECK_THAT(text, !Catch::Contains(">rank 0<"));

    const auto flame = (dir / "f.png").string();
    REQUIRE(test::runStrata({"render", store, "-o", flame, "--view", "flame", "--tracks", "rank 0"}).exitCode == 0);
    CHECK(std::filesystem::file_size(flame) > 5000);
    CHECK(test::runStrata({"render", store, "-o", flame, "--view", "flame", "--tracks", "no such"}).exitCode == 2);

    CHECK(test::runStrata({"render", store, "-o", png, "--size", "12"}).exitCode == 2);
    CHECK(test::runStrata({"render", store, "-o", png, "--view", "nope"}).exitCode == 2);
    CHECK(test::runStrata({"render", store, "-o", png, "--tracks", "("}).exitCode == 2);
    CHECK(test::runStrata({"render", store, "-o", (dir / "t.bmp").string()}).exitCode == 1);
    const auto window = (dir / "w.png").string();
    CHECK(test::runStrata({"render", store, "-o", window, "--view", "window", "--size", "1200x800"}).exitCode == 0);
    CHECK(std::filesystem::file_size(window) > 10000);
}

TEST_CASE("a full disk fails the ingest with one line and leaves the existing store untouched", "[cli][disk]")
{
    // RLIMIT_FSIZE stands in for a full disk: writes past the limit fail with EFBIG
    // (SIGXFSZ ignored, as the shell passes an ignored signal on through exec).
    test::TempDir dir;
    const auto json = (dir / "t.json").string();
    const auto store = (dir / "t.strata").string();
    REQUIRE(test::runStrata({"synth", "-o", json, "--events", "100000"}).exitCode == 0);
    REQUIRE(test::runStrata({"synth", "-o", store, "--events", "1000"}).exitCode == 0);
    const auto before = std::filesystem::file_size(store);
    const auto err = (dir / "err.txt").string();
    const std::string command = "sh -c \"trap '' XFSZ; ulimit -f 200; '" + std::string(STRATA_BINARY) + "' ingest '"
                                + json + "' -o '" + store + "' 2>'" + err + "'\"";
    const int status = std::system(command.c_str());
    REQUIRE(WIFEXITED(status));
    CHECK(WEXITSTATUS(status) == 1);
    std::ifstream in(err);
    const std::string message((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    CHECK(lineCount(message) == 1);
    CHECK_THAT(message, Catch::Contains(store) && Catch::Contains("disk full"));
    CHECK(std::filesystem::file_size(store) == before);
    CHECK(test::runStrata({"info", store}).exitCode == 0);
    // No temporary file left beside it.
    int files = 0;
    for (const auto& entry : std::filesystem::directory_iterator(dir.path()))
        files += entry.path().filename().string().find(".tmp") != std::string::npos;
    CHECK(files == 0);
}

TEST_CASE("bench --store measures an existing store's queries and frames, and rejects a bad one", "[cli][bench]")
{
    test::TempDir dir;
    const auto store = (dir / "s.strata").string();
    REQUIRE(test::runStrata({"synth", "-o", store, "--events", "20000", "--ranks", "2"}).exitCode == 0);
    const auto run = test::runStrata({"bench", "--store", store, "--queries", "20", "--json"});
    INFO(run.err);
    REQUIRE(run.exitCode == 0);
    for (const char* metric : {"\"query_p99_ms\"", "\"frame_p99_ms\"", "\"open_first_frame_ms\""})
        CHECK_THAT(run.out, Catch::Contains(metric));
    CHECK_THAT(run.out, !Catch::Contains("build_events_per_s") && !Catch::Contains("ingest_chrome"));

    std::ofstream(dir / "junk.strata") << "not a store";
    const auto bad = test::runStrata({"bench", "--store", (dir / "junk.strata").string()});
    CHECK(bad.exitCode == 1);
    CHECK(lineCount(bad.err) == 1);
    CHECK_THAT(bad.err, Catch::Contains("junk.strata"));
}
