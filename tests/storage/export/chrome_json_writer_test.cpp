#include "storage/export/chrome_json_writer.h"

#include "storage/store/memory_trace.h"
#include "storage/synth/synthetic_trace.h"

#include "tests/support/temp_dir.h"
#include <catch2/catch.hpp>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <optional>
#include <sstream>
#include <string>

using namespace strata;
using model::ResourceKind;
using model::TrackId;
namespace fs = std::filesystem;

namespace {

std::string readFile(const fs::path& path)
{
    std::ifstream in(path, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

bool contains(const std::string& haystack, const std::string& needle)
{
    return haystack.find(needle) != std::string::npos;
}

std::size_t occurrences(const std::string& haystack, const std::string& needle)
{
    std::size_t n = 0;
    for (std::size_t at = haystack.find(needle); at != std::string::npos;
         at = haystack.find(needle, at + needle.size()))
        ++n;
    return n;
}

bool havePython()
{
    static const bool available =
        std::system("python3 -c 'import json, gzip' >/dev/null 2>&1") == 0;
    return available;
}

// Parses a written trace with Python's json module (an independent, strict parser) and
// summarises it: "X=.. i=.. C=.. s=.. f=.. M=..", whether flow ids pair up, the base
// time, then (with `names`) one JSON-encoded name per X/i event.
constexpr const char* kSummaryScript = R"PY(
import collections, gzip, json, sys
path, out = sys.argv[1], sys.argv[2]
opener = gzip.open if path.endswith('.gz') else open
with opener(path, 'rt', encoding='utf-8') as f:
    trace = json.load(f)
events = trace['traceEvents']
count = collections.Counter(e['ph'] for e in events)
lines = [' '.join('%s=%d' % (ph, count.get(ph, 0)) for ph in 'XiCsfM')]
starts = sorted(e['id'] for e in events if e['ph'] == 's')
ends = sorted(e['id'] for e in events if e['ph'] == 'f' and e.get('bp') == 'e')
paired = starts == ends and len(set(starts)) == len(starts)
lines.append('flows paired' if paired else 'flows unpaired')
lines.append('base=%s' % trace.get('baseTimeNanoseconds'))
if len(sys.argv) > 3:
    lines += ['name=' + json.dumps(e['name']) for e in events if e['ph'] in 'Xi']
with open(out, 'w') as f:
    f.write('\n'.join(lines) + '\n')
)PY";

/// The summary's lines, or nullopt when Python is missing; FAILs when Python rejects the
/// file.
std::optional<std::vector<std::string>> pythonSummary(
    const test::TempDir& dir, const fs::path& trace, bool names = false)
{
    if (!havePython()) {
        WARN("python3 not found: JSON validity not cross-checked");
        return std::nullopt;
    }
    const fs::path script = dir / "summary.py";
    const fs::path out = dir / "summary.txt";
    std::ofstream(script) << kSummaryScript;
    const std::string command = "python3 '" + script.string() + "' '" + trace.string() + "' '"
        + out.string() + "'" + (names ? " names" : "") + " 2>&1";
    const int status = std::system(command.c_str());
    INFO("python3 could not parse " << trace);
    REQUIRE(status == 0);
    std::vector<std::string> lines;
    std::istringstream in(readFile(out));
    for (std::string line; std::getline(in, line);)
        lines.push_back(line);
    return lines;
}

storage::SynthOptions synth(std::uint64_t seed)
{
    storage::SynthOptions options;
    options.events = 20000;
    options.ranks = 4;
    options.seed = seed;
    return options;
}

void writeSynthetic(const fs::path& path, std::uint64_t seed)
{
    storage::ChromeJsonWriter writer(path);
    storage::generateSyntheticTrace(synth(seed), writer);
    writer.finish();
}

}  // namespace

TEST_CASE("chrome writer: timestamps are exact decimal microseconds", "[chrome_writer]") {
    test::TempDir dir;
    const fs::path path = dir / "times.json";
    storage::ChromeJsonWriter writer(path);
    const TrackId process = writer.addTrack(model::kNoTrack, ResourceKind::Process, "rank 0");
    const TrackId thread = writer.addTrack(process, ResourceKind::Thread, "python main");
    const model::StringId name = writer.intern("op");
    writer.addInterval(thread, { 4501783126066206, 4501783126067706, name });
    writer.addInterval(thread, { 12345678, 12345678 + 2000, name });
    writer.addInterval(thread, { 5, 5 + 120, name });
    writer.addInstant(thread, { 0, name });
    writer.finish();

    const std::string json = readFile(path);
    CHECK(contains(json, "\"ts\":4501783126066.206,\"dur\":1.5}"));
    CHECK(contains(json, "\"ts\":12345.678,\"dur\":2}"));
    CHECK(contains(json, "\"ts\":0.005,\"dur\":0.12}"));
    CHECK(contains(json,
        "{\"ph\":\"i\",\"s\":\"t\",\"cat\":\"\",\"name\":\"op\",\"pid\":1000,"
        "\"tid\":1,\"ts\":0}"));
    if (const auto summary = pythonSummary(dir, path))
        CHECK(summary->at(0) == "X=3 i=1 C=0 s=0 f=0 M=4");
}

TEST_CASE("chrome writer: tracks map to Kineto pids and tids", "[chrome_writer]") {
    test::TempDir dir;
    const fs::path path = dir / "tracks.json";
    storage::ChromeJsonWriter writer(path);
    writer.setMeta("origin_ns", "1700000000000000000");
    const TrackId node = writer.addTrack(model::kNoTrack, ResourceKind::Node, "node 0");
    const TrackId process = writer.addTrack(node, ResourceKind::Process, "rank 3", 6);
    const TrackId main = writer.addTrack(process, ResourceKind::Thread, "python main", 0);
    const TrackId gpu = writer.addTrack(node, ResourceKind::Gpu, "GPU 3", 7);
    const TrackId stream = writer.addTrack(gpu, ResourceKind::Stream, "stream 7", 7);
    const TrackId counter =
        writer.addTrack(gpu, ResourceKind::Counter, "GPU utilization", 100, "%");
    const model::StringId launch = writer.intern("cudaLaunchKernel");
    const model::StringId runtime = writer.intern("cuda_runtime");
    const model::StringId kernel = writer.intern("gemm");
    const model::StringId kernelCat = writer.intern("kernel");
    writer.addInterval(main, { 1000, 5000, launch, runtime }, "{\"correlation\":12}");
    writer.addInterval(stream, { 6000, 9000, kernel, kernelCat }, "{\"grid\":[1,1,1]}");
    writer.addFlow(main, { 1000, stream, 6000, writer.intern("ac2g") });
    writer.addCounterSample(counter, { 7000, 87.5 });
    writer.finish();

    const std::string json = readFile(path);
    CHECK(contains(json,
        "{\"schemaVersion\":1,\"deviceProperties\":[],"
        "\"baseTimeNanoseconds\":1700000000000000000,\"displayTimeUnit\":\"ms\","
        "\"traceEvents\":["));
    CHECK(contains(json,
        "{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":1000,\"tid\":0,\"ts\":0,"
        "\"args\":{\"name\":\"rank 3\"}}"));
    CHECK(contains(json,
        "{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":1000,\"tid\":1,\"ts\":0,"
        "\"args\":{\"name\":\"python main\"}}"));
    CHECK(contains(json,
        "{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":3,\"tid\":0,\"ts\":0,"
        "\"args\":{\"name\":\"GPU 3\"}}"));
    CHECK(contains(json,
        "{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":3,\"tid\":7,\"ts\":0,"
        "\"args\":{\"name\":\"stream 7\"}}"));
    CHECK(contains(json,
        "{\"ph\":\"M\",\"name\":\"thread_sort_index\",\"pid\":3,\"tid\":7,"
        "\"ts\":0,\"args\":{\"sort_index\":7}}"));
    CHECK_FALSE(contains(json, "node 0"));
    CHECK(contains(json,
        "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\","
        "\"pid\":1000,\"tid\":1,\"ts\":1,\"dur\":4,"
        "\"args\":{\"correlation\":12}}"));
    CHECK(contains(json,
        "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"gemm\",\"pid\":3,\"tid\":7,"
        "\"ts\":6,\"dur\":3,\"args\":{\"grid\":[1,1,1]}}"));
    CHECK(contains(json,
        "{\"ph\":\"s\",\"id\":1,\"pid\":1000,\"tid\":1,\"ts\":1,\"cat\":\"ac2g\","
        "\"name\":\"ac2g\"}"));
    CHECK(contains(json,
        "{\"ph\":\"f\",\"id\":1,\"pid\":3,\"tid\":7,\"ts\":6,\"cat\":\"ac2g\","
        "\"name\":\"ac2g\",\"bp\":\"e\"}"));
    CHECK(contains(json,
        "{\"ph\":\"C\",\"name\":\"GPU utilization\",\"pid\":3,\"ts\":7,"
        "\"args\":{\"GPU utilization\":87.5}}"));
    CHECK(contains(json, "\"otherData\":{\"origin_ns\":\"1700000000000000000\"}"));
    if (const auto summary = pythonSummary(dir, path)) {
        CHECK(summary->at(0) == "X=2 i=0 C=1 s=1 f=1 M=8");
        CHECK(summary->at(1) == "flows paired");
        CHECK(summary->at(2) == "base=1700000000000000000");
    }
}

TEST_CASE("chrome writer: strings are escaped and invalid UTF-8 replaced", "[chrome_writer]") {
    test::TempDir dir;
    const fs::path path = dir / "escape.json";
    storage::ChromeJsonWriter writer(path);
    const TrackId thread = writer.addTrack(model::kNoTrack, ResourceKind::Thread, "t \"1\"");
    const char* names[] = { "quote \" and backslash \\", "line\nbreak\ttab\r\x01\x1f",
        "micro \xc2\xb5s", "bad \xff byte", "cut \xe2\x82" };
    for (const char* name : names)
        writer.addInterval(thread, { 10, 20, writer.intern(name) });
    writer.addInstant(thread, { 15, writer.intern("plain") }, "not an object");
    writer.finish();

    const std::string json = readFile(path);
    CHECK(contains(json, "\"name\":\"quote \\\" and backslash \\\\\""));
    CHECK(contains(json, "\"name\":\"line\\nbreak\\ttab\\r\\u0001\\u001f\""));
    CHECK(contains(json, "\"args\":{\"value\":\"not an object\"}"));
    if (const auto summary = pythonSummary(dir, path, true)) {
        REQUIRE(summary->size() == 3 + 6);
        CHECK(summary->at(3) == R"(name="quote \" and backslash \\")");
        CHECK(summary->at(4) == R"(name="line\nbreak\ttab\r\u0001\u001f")");
        CHECK(summary->at(5) == R"(name="micro \u00b5s")");
        CHECK(summary->at(6) == R"(name="bad \ufffd byte")");
        CHECK(summary->at(7) == R"(name="cut \ufffd\ufffd")");
        CHECK(summary->at(8) == R"(name="plain")");
    }
}

TEST_CASE("chrome writer: a synthetic trace is valid JSON with the expected event counts",
    "[chrome_writer]") {
    storage::MemoryTrace reference;
    storage::generateSyntheticTrace(synth(5), reference);
    std::size_t intervals = 0, instants = 0, counters = 0, flows = 0, named = 0;
    for (const model::TrackInfo& info : reference.resources().tracks()) {
        intervals += reference.track(info.id).intervals.size();
        instants += reference.track(info.id).instants.size();
        counters += reference.track(info.id).counters.size();
        flows += reference.track(info.id).flows.size();
        const bool mapped = info.kind == ResourceKind::Process || info.kind == ResourceKind::Gpu
            || info.kind == ResourceKind::Thread || info.kind == ResourceKind::Stream;
        named += mapped ? 1 : 0;
    }
    std::ostringstream expected;
    expected << "X=" << intervals << " i=" << instants << " C=" << counters << " s=" << flows
             << " f=" << flows << " M=" << 2 * named;

    test::TempDir dir;
    for (const char* name : { "synth.json", "synth.json.gz" }) {
        const fs::path path = dir / name;
        writeSynthetic(path, 5);
        REQUIRE(fs::exists(path));
        CHECK_FALSE(fs::exists(dir / (std::string(name) + ".tmp")));
        if (const auto summary = pythonSummary(dir, path)) {
            INFO(name);
            CHECK(summary->at(0) == expected.str());
            CHECK(summary->at(1) == "flows paired");
            CHECK(summary->at(2) == "base=1700000000000000000");
        }
    }
    const std::string plain = readFile(dir / "synth.json");
    CHECK(occurrences(plain, "{\"ph\":\"X\"") == intervals);
    CHECK(occurrences(plain, "{\"ph\":\"C\"") == counters);
    CHECK(occurrences(plain, "{\"ph\":\"f\"") == flows);
    CHECK(fs::file_size(dir / "synth.json.gz") * 5 < plain.size());
}

TEST_CASE("chrome writer: the same trace gives the same bytes, plain and gzip", "[chrome_writer]") {
    test::TempDir dir;
    for (const std::string suffix : { ".json", ".json.gz" }) {
        writeSynthetic(dir / ("a" + suffix), 9);
        writeSynthetic(dir / ("b" + suffix), 9);
        writeSynthetic(dir / ("c" + suffix), 10);
        const std::string a = readFile(dir / ("a" + suffix));
        const std::string b = readFile(dir / ("b" + suffix));
        const std::string c = readFile(dir / ("c" + suffix));
        INFO(suffix);
        REQUIRE(a.size() > 1000);
        CHECK(a == b);
        CHECK(a != c);
        if (suffix == ".json.gz") {
            CHECK(static_cast<unsigned char>(a[0]) == 0x1f);
            CHECK(static_cast<unsigned char>(a[1]) == 0x8b);
            CHECK(a.substr(4, 4) == std::string(4, '\0'));  // mtime 0
        }
    }
}

TEST_CASE("chrome writer: nothing is left at the path without finish", "[chrome_writer]") {
    test::TempDir dir;
    const fs::path path = dir / "partial.json.gz";
    {
        storage::ChromeJsonWriter writer(path);
        storage::generateSyntheticTrace(synth(1), writer);
        CHECK(fs::exists(dir / "partial.json.gz.tmp"));
        CHECK_FALSE(fs::exists(path));
    }
    CHECK_FALSE(fs::exists(path));
    CHECK_FALSE(fs::exists(dir / "partial.json.gz.tmp"));
}

TEST_CASE("chrome writer: I/O errors are reported", "[chrome_writer]") {
    test::TempDir dir;
    CHECK_THROWS_AS(storage::ChromeJsonWriter(dir / "missing" / "trace.json"), std::runtime_error);

    // A non-empty folder where the file should go: the final rename fails in finish().
    const fs::path blocked = dir / "blocked.json";
    fs::create_directories(blocked / "inside");
    storage::ChromeJsonWriter writer(blocked);
    writer.addTrack(model::kNoTrack, ResourceKind::Process, "rank 0");
    CHECK_THROWS_AS(writer.finish(), std::runtime_error);
    CHECK_FALSE(fs::exists(dir / "blocked.json.tmp"));
    CHECK(fs::is_directory(blocked / "inside"));
}

TEST_CASE("chrome writer: stack samples are skipped and counted", "[chrome_writer]") {
    test::TempDir dir;
    storage::ChromeJsonWriter writer(dir / "stacks.json");
    const TrackId thread = writer.addTrack(model::kNoTrack, ResourceKind::Thread, "worker");
    const model::StackId root = writer.internStack(0, writer.intern("main"));
    const model::StackId leaf = writer.internStack(root, writer.intern("compute"));
    CHECK(writer.internStack(0, writer.intern("main")) == root);
    CHECK(leaf != root);
    writer.addStackSample(thread, { 10, leaf });
    writer.addStackSample(thread, { 20, root });
    writer.finish();
    CHECK(writer.skippedSamples() == 2);
    CHECK(writer.eventsWritten() == 4);  // the thread's own pid and tid announcements
}

TEST_CASE("chrome writer: an origin set after the first event still reaches the file",
    "[chrome_writer]") {
    test::TempDir dir;
    const fs::path path = dir / "late.json";
    storage::ChromeJsonWriter writer(path);
    const TrackId thread = writer.addTrack(model::kNoTrack, ResourceKind::Thread, "worker");
    writer.addInterval(thread, { 0, 10, writer.intern("x") });
    writer.setMeta("origin_ns", "42");
    writer.setMeta("source", "not a number");
    writer.finish();
    const std::string json = readFile(path);
    CHECK(occurrences(json, "\"baseTimeNanoseconds\"") == 1);
    CHECK(contains(json, "],\"baseTimeNanoseconds\":42,\"otherData\":{"));
    if (const auto summary = pythonSummary(dir, path))
        CHECK(summary->at(2) == "base=42");
}
