// `strata render --view flame` (issue 14, item 5): the SVG is vector, frames as
// rectangles and their names as text (searchable, as in FlameGraph's SVG); the PNG
// follows --scale as the other views do.

#include "tests/support/run_command.h"
#include "tests/support/temp_dir.h"
#include <catch2/catch.hpp>

#include <fstream>

using namespace strata;

namespace {

std::string fileText(const std::filesystem::path& path)
{
    std::ifstream in(path, std::ios::binary);
    return { std::istreambuf_iterator<char>(in), {} };
}

int count(const std::string& text, const std::string& what)
{
    int n = 0;
    for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + what.size()))
        ++n;
    return n;
}

/// Width and height from a PNG's IHDR chunk.
std::pair<int, int> pngSize(const std::string& bytes)
{
    REQUIRE(bytes.size() > 24);
    REQUIRE(bytes.substr(1, 3) == "PNG");
    auto be32 = [&](std::size_t at) {
        int v = 0;
        for (std::size_t i = 0; i < 4; ++i)
            v = (v << 8) | static_cast<unsigned char>(bytes[at + i]);
        return v;
    };
    return { be32(16), be32(20) };
}

}  // namespace

TEST_CASE("render --view flame writes a vector SVG: a rectangle and a text per frame (issue 14)",
    "[cli][render][flame][real]") {
    const auto perf = test::realTrace("public/perf-flamegraph/example-perf-stacks.txt.gz");
    if (perf.empty() || !std::filesystem::exists(perf))
        return;
    test::TempDir dir;
    const auto store = (dir / "perf.strata").string();
    REQUIRE(test::runStrata({ "ingest", perf.string(), "-o", store }).exitCode == 0);

    const auto svg = dir / "flame.svg";
    REQUIRE(
        test::runStrata({ "render", store, "--view", "flame", "-o", svg.string() }).exitCode == 0);
    const std::string text = fileText(svg);
    CHECK_THAT(text, Catch::Contains("<svg") && Catch::Contains("</svg>"));
    CHECK(count(text, "<image") == 0);  // today: the whole graph is one embedded PNG
    CHECK(count(text, "<rect") > 1000);  // 1315 samples, over a thousand frames drawn
    CHECK(count(text, "<text") > 100);
    // Names of frames, whole where they fit (FlameGraph's own example, its widest frames).
    for (const char* name : { ">start_thread<", ">java_start(Thread*)<", ">JavaThread::run()<",
             ">thread_main<", ">tcp_sendmsg<", ">total 1,315 cycles samples<" })
        CHECK_THAT(text, Catch::Contains(name));

    // PNG at --scale 2 is twice the size, as for the other views.
    const auto png = dir / "flame.png";
    REQUIRE(test::runStrata({ "render", store, "--view", "flame", "-o", png.string(), "--size",
                                "800x500", "--scale", "2" })
                .exitCode
        == 0);
    CHECK(pngSize(fileText(png)) == std::pair(1600, 1000));
}
