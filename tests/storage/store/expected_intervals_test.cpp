// An importer that read a trace once before (the Chrome importer's pass 1) tells the store
// builder how many intervals each thread's track will get, and how many bytes of args:
// the builder makes room for them at once instead of growing its columns by doubling,
// which copies them and touches twice the memory. The hint never changes the store, and
// never reserves beyond a quarter of the builder's memory budget.

#include "storage/import/chrome/chrome_json_importer.h"
#include "storage/store/store_builder.h"

#include "tests/support/counting_sink.h"
#include "tests/support/temp_dir.h"
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <string>

using namespace strata;

namespace {

std::string fileBytes(const std::filesystem::path& path)
{
    std::ifstream in(path, std::ios::binary);
    return { std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>() };
}

/// A store of one thread's `n` intervals, every other one with args; with the hint first
/// when `hint`.
std::string buildStore(const std::filesystem::path& path, int n, bool hint)
{
    storage::StoreBuilder builder(path);
    const model::TrackId process =
        builder.addTrack(model::kNoTrack, model::ResourceKind::Process, "p");
    const model::TrackId thread = builder.addTrack(process, model::ResourceKind::Thread, "t");
    if (hint)
        builder.expectIntervals(
            thread, static_cast<std::size_t>(n), static_cast<std::size_t>(n) * 8);
    const model::StringId name = builder.intern("work");
    for (int i = 0; i < n; ++i) {
        const model::TimeNs start = i * 100;
        builder.addInterval(thread,
            { start, start + 60, name, model::kEmptyString, model::kAutoDepth },
            i % 2 == 0 ? "{\"i\":" + std::to_string(i) + "}" : std::string());
    }
    builder.finish();
    return fileBytes(path);
}

/// Records the hints an importer gives.
class HintSink : public test::CountingSink
{
public:
    void expectIntervals(model::TrackId track, std::size_t count, std::size_t argBytes) override
    {
        hints[track] = { count, argBytes };
    }
    std::map<model::TrackId, std::pair<std::size_t, std::size_t>> hints;
};

}  // namespace

TEST_CASE("the builder reserves what an importer expects, within a quarter of its budget",
    "[store][builder]") {
    test::TempDir dir;
    storage::StoreBuildOptions options;
    options.memoryBudgetBytes = std::size_t(64) << 20;
    storage::StoreBuilder builder(dir / "x.strata", options);
    const model::TrackId process =
        builder.addTrack(model::kNoTrack, model::ResourceKind::Process, "p");
    const model::TrackId a = builder.addTrack(process, model::ResourceKind::Thread, "a");
    const model::TrackId b = builder.addTrack(process, model::ResourceKind::Thread, "b");
    const std::size_t empty = builder.heldBytes();

    builder.expectIntervals(a, 10000, 200000);
    const std::size_t reserved = builder.heldBytes();
    CHECK(reserved - empty >= 10000 * sizeof(model::Interval) + 200000);
    // The intervals and args expected fit in what was reserved: nothing grows.
    for (int i = 0; i < 10000; ++i)
        builder.addInterval(a, { i * 10, i * 10 + 5, model::kEmptyString, model::kEmptyString, 0 },
            std::string(20, 'x'));
    CHECK(builder.heldBytes() == reserved);

    // 16 MB is a quarter of the budget: a hint beyond what is left of it reserves nothing.
    builder.expectIntervals(b, std::size_t(16) << 20, 0);
    CHECK(builder.heldBytes() == reserved);
}

TEST_CASE("a store built with the hint is the store built without it", "[store][builder]") {
    test::TempDir dir;
    const std::string with = buildStore(dir / "with.strata", 5000, true);
    const std::string without = buildStore(dir / "without.strata", 5000, false);
    REQUIRE(!with.empty());
    CHECK(with == without);
}

TEST_CASE("the Chrome importer expects each thread's X and B events with their args",
    "[store][builder][chrome]") {
    test::TempDir dir;
    const std::filesystem::path trace = dir / "t.json";
    std::ofstream(trace) << R"({"traceEvents":[
{"ph":"X","name":"a","pid":1,"tid":1,"ts":0,"dur":5,"args":{"k":1}},
{"ph":"X","name":"b","pid":1,"tid":1,"ts":6,"dur":2},
{"ph":"B","name":"c","pid":1,"tid":2,"ts":1,"args":{"n":"xyz"}},
{"ph":"i","name":"d","pid":1,"tid":2,"ts":2},
{"ph":"E","pid":1,"tid":2,"ts":3},
{"ph":"X","name":"e","pid":1,"tid":1,"ts":9,"dur":1}
]})";
    HintSink sink;
    storage::importChromeJson(trace, sink);
    // Tracks: the process (0), then its threads in the order they are met: tid 1, tid 2.
    REQUIRE(sink.hints.size() == 2);
    CHECK(sink.hints.at(1)
        == std::pair<std::size_t, std::size_t>(3, std::string(R"({"k":1})").size()));
    CHECK(sink.hints.at(2)
        == std::pair<std::size_t, std::size_t>(1, std::string(R"({"n":"xyz"})").size()));
}
