// Tests of the parallel scan of the traceEvents array (chrome_event_batch.h): whatever the
// thread count, a batch holds exactly the events a sequential reader reads, in order, and
// an import sends the sink the same calls, in the same order, with the same errors, whether
// it reads the file in place (mapped) or streams it (a .json.gz).

#include "storage/import/chrome/chrome_event_batch.h"

#include "storage/import/chrome/chrome_json_importer.h"
#include "storage/store/input_error.h"
#include "storage/store/trace_sink.h"

#include "tests/support/gzip_file.h"
#include "tests/support/temp_dir.h"
#include "tests/support/transcript_sink.h"
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <string>

using namespace strata;

namespace {

/// Events that trip a guessed cut: "}," then "{" inside strings, objects in arrays of
/// args, odd white space between events.
std::string eventText(std::mt19937& rng, int i)
{
    const std::string ts = std::to_string(1000 + i * 3) + "." + std::to_string(i % 1000);
    switch (rng() % 5) {
    case 0:
        return R"({"ph":"X","name":"op )" + std::to_string(i) + R"(","pid":1,"tid":2,"ts":)" + ts
            + R"(,"dur":2})";
    case 1:
        return R"({"ph":"X","name":"x},{\"ph\":\"X\"}, {","cat":"},\n{","pid":1,"tid":3,"ts":)" + ts
            + R"(,"dur":1,"args":{"s":"}, {\"a\":1}"}})";
    case 2:
        return R"({"ph":"i","name":"mark","pid":2,"tid":1,"ts":)" + ts
            + R"(,"args":{"list":[{"a":1},{"b":[{"c":2}, {"d":3}]}],"n":null}})";
    case 3:
        return "{\n  \"ph\": \"C\",\n  \"name\": \"mem\",\n  \"pid\": 1,\n  \"ts\": " + ts
            + ",\n  \"args\": {\"bytes\": " + std::to_string(i) + "}\n}";
    default:
        return R"({"ph":"B","name":"\u00e9t\u00e9 \\ },{","pid":1,"tid":2,"ts":)" + ts
            + R"(},{"ph":"E","pid":1,"tid":2,"ts":)" + ts + "}";
    }
}

std::string separator(std::mt19937& rng)
{
    static const char* const kSeparators[] = { ",", ",\n", " , \t\r\n  " };
    return kSeparators[rng() % 3];
}

/// `count` events (some are two), each followed by a separator but the last.
std::string eventsText(unsigned seed, int count)
{
    std::mt19937 rng(seed);
    std::string text;
    for (int i = 0; i < count; ++i)
        text += (i ? separator(rng) : "") + eventText(rng, i);
    return text;
}

storage::EventBatch batchOf(std::string_view text, int threads)
{
    storage::EventBatch batch;
    storage::scanEventBatch(text, threads, batch);
    return batch;
}

/// Each event as "OFFSET:TEXT|member|member...", with offsets from `base`.
std::vector<std::string> eventsOf(
    const storage::EventBatch& batch, std::string_view text, std::size_t base = 0)
{
    std::vector<std::string> out;
    for (std::size_t r = 0; r < batch.rangeCount; ++r) {
        for (const storage::ScannedEvent& e : batch.ranges[r]) {
            const storage::ChromeEventFields& f = e.event;
            std::string line = std::to_string(base + e.offset) + ":"
                + std::string(text.substr(e.offset, e.length));
            for (std::string_view member :
                { f.ph, f.name, f.cat, f.pid, f.tid, f.ts, f.dur, f.id, f.id2, f.bp, f.args })
                line += "|" + std::string(member);
            out.push_back(std::move(line));
        }
    }
    return out;
}

/// The events of `text` as the reader takes them: batch after batch, each from where the
/// last one's final event ended (a wrong guess ends a batch early).
std::vector<std::string> scanAll(std::string_view text, int threads)
{
    std::vector<std::string> out;
    for (std::size_t pos = 0; pos < text.size();) {
        const std::string_view rest = text.substr(pos);
        const storage::EventBatch batch = batchOf(rest, threads);
        if (batch.empty())
            break;
        for (std::string& line : eventsOf(batch, rest, pos))
            out.push_back(std::move(line));
        const storage::ScannedEvent& last = batch.back();
        pos += last.offset + last.length;
        while (pos < text.size()
            && std::string_view(" \t\r\n,").find(text[pos]) != std::string_view::npos)
            ++pos;
    }
    return out;
}

/// The import's transcript and report, or its error; with `prescanAhead`, its pass 1 is
/// made first on its own (prescanChromeJson) and given to the import.
std::string importTranscript(
    const std::filesystem::path& path, int threads, bool prescanAhead = false)
{
    test::TranscriptSink sink;
    storage::ChromeImportOptions options;
    options.threads = threads;
    try {
        if (prescanAhead)
            options.prescan = storage::prescanChromeJson(path, options);
        const storage::ImportStats stats = storage::importChromeJson(path, sink, options);
        for (const storage::ImportStatRow& row : stats.rows())
            sink.out << row.name << '=' << row.value << '\n';
        for (const std::string& w : stats.warnings)
            sink.out << w << '\n';
    } catch (const storage::InputError& e) {
        sink.out << "error: " << e.what() << '\n';
    }
    return sink.out.str();
}

}  // namespace

TEST_CASE("scanEventBatch holds exactly the events a sequential reader reads", "[chrome]") {
    for (unsigned seed = 1; seed <= 20; ++seed) {
        const std::string text = eventsText(seed, 40 + static_cast<int>(seed) * 7) + "]}";
        const std::vector<std::string> sequential = scanAll(text, 1);
        INFO("seed " << seed);
        // Every event (the B/E pairs are two) in one batch, none beyond the array's end.
        CHECK(sequential.size() >= static_cast<std::size_t>(40 + seed * 7));
        CHECK(sequential.size() == batchOf(text, 1).size());
        CHECK(sequential.back().find("\"ts\":") != std::string::npos);
        for (int threads : { 2, 3, 4, 7, 16 })
            CHECK(scanAll(text, threads) == sequential);
    }
}

TEST_CASE("scanEventBatch splits plain events over its threads in one batch", "[chrome]") {
    std::string text;
    for (int i = 0; i < 1000; ++i)
        text += std::string(i ? ",\n" : "") + R"({"ph":"X","name":"k","pid":1,"tid":1,"ts":)"
            + std::to_string(i) + "}";
    for (int threads : { 2, 4, 8 })
        CHECK(batchOf(text, threads).size() == 1000);
}

TEST_CASE("scanEventBatch stops before a malformed or an incomplete event", "[chrome]") {
    const std::string good = eventsText(5, 60);
    const std::size_t cut = good.size() * 2 / 3;
    const std::size_t before = batchOf(good.substr(0, cut), 1).size();
    REQUIRE(before > 10);
    // Cut inside an event: the events before it, whatever the thread count.
    for (int threads : { 1, 2, 4 })
        CHECK(scanAll(good.substr(0, cut), threads).size() == before);
    // A bad byte in an event: the events before it.
    std::string bad = good;
    const std::size_t at = bad.find("\"ph\"", cut);
    REQUIRE(at != std::string::npos);
    bad[at] = '#';
    const std::size_t valid = batchOf(bad, 1).size();
    CHECK(valid > before);
    for (int threads : { 2, 3, 5 })
        CHECK(scanAll(bad, threads).size() == valid);
}

TEST_CASE("guessEventStart finds a brace after '},' only", "[chrome]") {
    const std::string text = R"({"a":{"b":1}} ,
  {"c":[{"d":2},{"e":3}]})";
    const std::size_t first = storage::guessEventStart(text, 1);
    CHECK(first == text.find("{\"c\""));
    // The object inside the array also follows "},": a guess the chain check must catch.
    CHECK(storage::guessEventStart(text, first + 1) == text.find("{\"e\""));
    CHECK(storage::guessEventStart(text, text.find("{\"e\"") + 1) == std::string::npos);
}

TEST_CASE("Chrome import with several scan threads sends the same calls and errors", "[chrome]") {
    test::TempDir dir;
    // Batches of several megabytes: this file spans a few, so windows move between them.
    const std::filesystem::path big = dir.path() / "big.json";
    {
        std::ofstream out(big, std::ios::binary);
        out << R"({"displayTimeUnit":"ns","traceEvents":[)" << eventsText(7, 200000)
            << R"(],"otherData":{"x":"}, {"}})";
    }
    REQUIRE(std::filesystem::file_size(big) > (std::size_t(20) << 20));
    std::vector<std::filesystem::path> files { big };
    for (const auto& entry :
        std::filesystem::directory_iterator(std::filesystem::path(STRATA_TEST_DATA_DIR) / "chrome"))
        files.push_back(entry.path());
    // The big file cut at places inside and between batches.
    const std::string bytes = test::readFile(big);
    for (std::size_t cut : { bytes.size() / 3, bytes.size() - 100, (std::size_t(8) << 20) + 17 }) {
        files.push_back(dir.path() / ("cut" + std::to_string(cut) + ".json"));
        std::ofstream(files.back(), std::ios::binary) << bytes.substr(0, cut);
    }
    std::string broken = bytes;
    broken[broken.find("\"ph\"", bytes.size() / 2)] = '%';
    files.push_back(dir.path() / "broken.json");
    std::ofstream(files.back(), std::ios::binary) << broken;
    // An event larger than a batch's window (8 MB on 2 threads), between batches.
    const std::size_t middle = bytes.find("\n{", bytes.size() / 2) + 1;
    files.push_back(dir.path() / "huge_event.json");
    std::ofstream(files.back(), std::ios::binary)
        << bytes.substr(0, middle)
        << R"({"ph":"i","name":"big","pid":1,"tid":1,"ts":5,"args":{"s":")"
        << std::string(std::size_t(9) << 20, 'x') << "\"}},\n"
        << bytes.substr(middle);

    for (const std::filesystem::path& file : files) {
        INFO(file.filename().string());
        const std::string one = importTranscript(file, 1);
        CHECK(importTranscript(file, 2) == one);
        CHECK(importTranscript(file, 3) == one);
        // Pass 1 made ahead (as an ingest of several rank files does) changes nothing.
        CHECK(importTranscript(file, 1, true) == one);
        CHECK(importTranscript(file, 2, true) == one);
        // A plain file is read in place; the same bytes gzipped are streamed.
        if (file.extension() != ".gz") {
            const std::filesystem::path gz = dir.path() / "gz" / file.filename();
            std::filesystem::create_directories(gz.parent_path());
            test::writeGzip(gz, test::readFile(file));
            std::string streamed = importTranscript(gz, 2);
            for (std::size_t at; (at = streamed.find(gz.string())) != std::string::npos;)
                streamed.replace(at, gz.string().size(), file.string());
            CHECK(streamed == one);
        }
    }
}

TEST_CASE("A Chrome import given its pass 1 made ahead does not make it again", "[chrome]") {
    // The file changes between the pre-scan and the import: the names and time 0 that
    // pass 1 learns come from the pre-scan, the events from the file as it is now.
    test::TempDir dir;
    const std::filesystem::path file = dir.path() / "t.json";
    const auto write = [&](std::string_view thread, int firstTs) {
        std::ofstream(file, std::ios::binary)
            << R"({"traceEvents":[{"ph":"X","name":"a","pid":1,"tid":2,"ts":)" << firstTs
            << R"(,"dur":5},{"ph":"M","name":"thread_name","pid":1,"tid":2,"args":{"name":")"
            << thread << R"("}}]})";
    };
    write("before", 10);
    storage::ChromeImportOptions options;
    options.prescan = storage::prescanChromeJson(file);
    REQUIRE(options.prescan.originNs == 10'000);
    write("after", 30);

    const std::string ahead = [&] {
        test::TranscriptSink sink;
        storage::importChromeJson(file, sink, options);
        return sink.out.str();
    }();
    CHECK(ahead.find("before") != std::string::npos);
    CHECK(ahead.find("after") == std::string::npos);
    CHECK(ahead.find("X 1 20000 25000 a") != std::string::npos);  // ts 30 µs on time 0 = 10 µs
    // Without it, the import learns the file as it is now.
    const std::string own = importTranscript(file, 1);
    CHECK(own.find("after") != std::string::npos);
    CHECK(own.find("X 1 0 5000 a") != std::string::npos);
}
