// Tests of the stack importers: folded stacks and `perf script` text. Small hand-written
// inputs (tests/data/stacks) with exact tracks, frames and weights; bad inputs with the
// line they fail on; every perf file of shared/data/real/public/perf-{flamegraph,speedscope}
// with the counts of its README; and the stacks collapsed from our import of each
// FlameGraph test file, compared with stackcollapse-perf.pl's folded result.

#include "model/flame_tree.h"
#include "storage/analysis/flame_query.h"
#include "storage/import/common/line_reader.h"
#include "storage/import/stacks/folded_importer.h"
#include "storage/import/stacks/perf_script_importer.h"
#include "storage/import/stacks/perf_script_parser.h"
#include "storage/store/input_error.h"
#include "storage/store/memory_trace.h"
#include "storage/store/store_builder.h"
#include "storage/store/store_reader.h"

#include "tests/support/temp_dir.h"
#include <catch2/catch.hpp>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <string>
#include <vector>

using namespace strata;
using storage::InputError;
using storage::MemoryTrace;

namespace {

std::filesystem::path fixture(const std::string& name)
{
    return std::filesystem::path(STRATA_TEST_DATA_DIR) / "stacks" / name;
}

std::string str(const MemoryTrace& trace, model::StringId id)
{
    return std::string(trace.strings().text(id));
}

/// "root;...;leaf" of a stack id.
std::string foldedPath(const MemoryTrace& trace, model::StackId stack)
{
    std::vector<std::string> frames;
    for (; stack != 0; stack = trace.stacks()[stack].parent)
        frames.push_back(str(trace, trace.stacks()[stack].frame));
    std::string out;
    for (auto it = frames.rbegin(); it != frames.rend(); ++it)
        out += (out.empty() ? "" : ";") + *it;
    return out;
}

/// The message of the InputError `fn` throws ("" when it does not throw one).
template<typename Fn>
std::string inputError(Fn fn)
{
    try {
        fn();
    } catch (const InputError& e) {
        return e.what();
    }
    return {};
}

/// Every line's "stack count" of a folded file (plain or .gz), summed per stack.
std::map<std::string, std::uint64_t> readFolded(const std::filesystem::path& path)
{
    std::map<std::string, std::uint64_t> out;
    storage::LineReader reader(path);
    std::string_view line;
    while (reader.next(line)) {
        const std::size_t space = line.rfind(' ');
        if (space != std::string_view::npos)
            out[std::string(line.substr(0, space))] += std::stoull(std::string(line.substr(space + 1)));
    }
    return out;
}

model::StackTable stackTable(const MemoryTrace& trace)
{
    model::StackTable table;
    for (std::size_t i = 1; i < trace.stacks().size(); ++i)
        table.add(trace.stacks()[i].parent, trace.stacks()[i].frame);
    return table;
}

} // namespace

TEST_CASE("folded stacks: one weighted sample per line on a synthetic 1 ns per count axis", "[stacks]")
{
    MemoryTrace trace;
    const storage::FoldedImportStats stats = storage::importFolded(fixture("small.folded"), trace);
    CHECK(stats.lines == 6);
    CHECK(stats.stackLines == 4);
    CHECK(stats.totalCount == 11);
    CHECK(stats.maxDepth == 3);
    REQUIRE(trace.resources().size() == 2);
    CHECK(trace.resources().track(0).kind == model::ResourceKind::Process);
    CHECK(trace.resources().track(0).name == "small.folded");
    CHECK(trace.resources().track(1).unit == "count");
    const auto& samples = trace.track(1).samples;
    REQUIRE(samples.size() == 4);
    CHECK(foldedPath(trace, samples[0].stack) == "main;compute;matmul");
    CHECK(samples[0].timeNs == 0);
    CHECK(samples[0].weight == 5);
    CHECK(foldedPath(trace, samples[1].stack) == "main;compute");
    CHECK(samples[1].timeNs == 5);
    CHECK(foldedPath(trace, samples[2].stack) == "main;io;read");
    CHECK(samples[2].timeNs == 8);
    CHECK(samples[3].timeNs == 10);
    CHECK(samples[3].weight == 1);
    CHECK(trace.meta().at("origin_ns") == "0");
}

TEST_CASE("folded stacks: bad lines are reported with their line number", "[stacks]")
{
    MemoryTrace trace;
    const std::string badCount = inputError([&] { storage::importFolded(fixture("bad_count.folded"), trace); });
    CHECK(badCount.find("bad_count.folded: line 2: expected 'frame;frame;...;frame COUNT'") != std::string::npos);
    CHECK(badCount.find("'two'") != std::string::npos);
    MemoryTrace trace2;
    const std::string noCount = inputError([&] { storage::importFolded(fixture("no_count.folded"), trace2); });
    CHECK(noCount.find("no_count.folded: line 3: expected") != std::string::npos);
    MemoryTrace trace3;
    const std::string perfAsFolded = inputError([&] { storage::importFolded(fixture("small.perf"), trace3); });
    CHECK(perfAsFolded.find("small.perf: line 5: expected") != std::string::npos);  // lines 1-4: '#'

}

TEST_CASE("perf script: header fields, one track per process > thread, frames root first", "[stacks]")
{
    MemoryTrace trace;
    const storage::PerfImportStats stats = storage::importPerfScript(fixture("small.perf"), trace);
    CHECK(stats.headerLines == 4);
    CHECK(stats.samples == 4);
    CHECK(stats.frames == 10);
    CHECK(stats.processes == 1);
    CHECK(stats.threads == 3);
    CHECK(stats.unknownFrames == 1);
    CHECK(stats.periodPerEvent.at("cpu-clock") == 1250000);
    const model::ResourceTree& tree = trace.resources();
    REQUIRE(tree.size() == 4);
    CHECK(tree.track(0).name == "app [100]");
    CHECK(tree.track(1).name == "app [100]");
    CHECK(tree.track(1).unit == "cpu-clock");
    CHECK(tree.track(2).name == "app [101]");
    CHECK(tree.track(3).name == "V8 WorkerThread [102]");
    CHECK(trace.meta().at("origin_ns") == "10000000100");
    const auto& main = trace.track(1).samples;
    REQUIRE(main.size() == 2);
    CHECK(main[0].timeNs == 0);
    CHECK(main[0].weight == 250000);
    CHECK(foldedPath(trace, main[0].stack) == "__libc_start_main;main;compute");  // +0x10 dropped
    CHECK(main[1].timeNs == 300);
    CHECK(main[1].weight == 500000);
    REQUIRE(trace.track(2).samples.size() == 1);
    CHECK(foldedPath(trace, trace.track(2).samples[0].stack) == "[app];read_input");  // [unknown] in a known DSO
    CHECK(trace.track(3).samples[0].stack == main[0].stack);  // same path, same stack id
}

TEST_CASE("perf script: samples without call chains, two events on separate tracks", "[stacks]")
{
    MemoryTrace trace;
    const storage::PerfImportStats stats = storage::importPerfScript(fixture("no_callchain.perf"), trace);
    CHECK(stats.samples == 3);
    CHECK(stats.samplesPerEvent.at("cycles") == 2);
    CHECK(stats.samplesPerEvent.at("instructions") == 1);
    CHECK(trace.meta().at("perf_events") == "cycles,instructions");
    const model::ResourceTree& tree = trace.resources();
    REQUIRE(tree.size() == 3);  // process "app" (no pid: grouped by command), threads 100 and 101
    CHECK(tree.track(0).name == "app");
    CHECK(tree.track(1).name == "app [100] cycles");
    CHECK(tree.track(1).unit == "cycles samples");
    CHECK(tree.track(2).name == "app [101] instructions");
    REQUIRE(trace.track(1).samples.size() == 2);
    CHECK(foldedPath(trace, trace.track(1).samples[0].stack) == "compute");
    CHECK(trace.track(1).samples[1].timeNs == 1000);
}

TEST_CASE("perf script: samples are sent as the file is read, not held to its end", "[stacks]") {
    // A 30 M-sample file took 1 GB held whole: its samples now go to the sink while the
    // second of the importer's two passes reads the file (progress is of that pass).
    test::TempDir dir;
    const auto path = dir / "long.perf";
    {
        std::ofstream out(path, std::ios::binary);
        for (int i = 0; i < 200'000; ++i) {
            // Threads met out of order, times not sorted: tracks by tid, time 0 the first.
            const int tid = i % 3 == 0 ? 12 : 11;
            char time[32];
            std::snprintf(time, sizeof time, "%d.%06d", 5000 + i / 1000, (i * 7919) % 1'000'000);
            out << "app 10/" << tid << " " << time << ": cpu-clock: \n\t 400 work (/bin/app)\n"
                << "\t 300 main (/bin/app)\n\n";
        }
    }
    struct Sink : MemoryTrace
    {
        std::uint64_t progress = 0;
        std::uint64_t progressAtFirstSample = 0;
        bool sampled = false;
        void addStackSample(model::TrackId track, const model::StackSample& sample) override
        {
            if (!sampled)
                progressAtFirstSample = progress;
            sampled = true;
            MemoryTrace::addStackSample(track, sample);
        }
    } trace;
    std::uint64_t total = 0;
    const storage::PerfImportStats stats =
        storage::importPerfScript(path, trace, [&](std::uint64_t done, std::uint64_t all) {
            trace.progress = done;
            total = all;
            return true;
        });
    CHECK(stats.samples == 200'000);
    CHECK(total == std::filesystem::file_size(path));
    CHECK(trace.progressAtFirstSample < total / 2);
    const model::ResourceTree& tree = trace.resources();
    REQUIRE(tree.size() == 3);
    CHECK(tree.track(1).name == "app [11]");
    CHECK(tree.track(2).name == "app [12]");
    CHECK(trace.track(1).samples.size() + trace.track(2).samples.size() == 200'000);
    CHECK(trace.track(2).samples.front().timeNs == 0);  // sample 0 (tid 12) is the first
    CHECK(stats.firstNs == 5'000'000'000'000);
}

TEST_CASE("perf script: bad inputs are reported with their line number", "[stacks]")
{
    MemoryTrace trace;
    const std::string header = inputError([&] { storage::importPerfScript(fixture("bad_header.perf"), trace); });
    CHECK(header.find("bad_header.perf: line 4: expected a perf sample header") != std::string::npos);
    CHECK(header.find("'this is not a sample header'") != std::string::npos);
    MemoryTrace trace2;
    const std::string mixed = inputError([&] { storage::importPerfScript(fixture("mixed_time.perf"), trace2); });
    CHECK(mixed.find("mixed_time.perf: line 4: expected a TIME field") != std::string::npos);
    MemoryTrace trace3;
    const std::string folded = inputError([&] { storage::importPerfScript(fixture("small.folded"), trace3); });
    CHECK(folded.find("small.folded: line 1: expected a perf sample header") != std::string::npos);
}

TEST_CASE("perf script header parser: the variants perf prints", "[stacks]")
{
    auto h = storage::parsePerfSampleHeader("V8 WorkerThread 24636/25607 [000] 94564.109216: 100 cycles:u: ");
    REQUIRE(h);
    CHECK(h->comm == "V8 WorkerThread");
    CHECK(h->pid == 24636);
    CHECK(h->tid == 25607);
    CHECK(h->cpu == 0);
    CHECK(h->timeNs == 94564109216000);
    CHECK(h->period == 100u);
    CHECK(h->event == "cycles:u");
    h = storage::parsePerfSampleHeader("java 12688 cycles: ");
    REQUIRE(h);
    CHECK(h->pid == -1);
    CHECK(h->tid == 12688);
    CHECK(!h->timeNs);
    h = storage::parsePerfSampleHeader("kworker/0:1 7 [000] 1.5: sched:sched_switch: prev_comm=x");
    REQUIRE(h);
    CHECK(h->comm == "kworker/0:1");
    CHECK(h->event == "sched:sched_switch");
    CHECK(h->rest == "prev_comm=x");
    CHECK(!storage::parsePerfSampleHeader("\t    4005d0 main (/usr/bin/app)"));
    CHECK(!storage::parsePerfSampleHeader("7f12 Lorg/foo;.bar (/tmp/perf-1.map)"));
    const storage::PerfFrame f = storage::parsePerfFrame("  ffff Foo::bar(int, char) const+0x1f (/lib/x.so)");
    CHECK(f.symbol == "Foo::bar(int, char) const");
    CHECK(f.dso == "/lib/x.so");
    CHECK(storage::perfFrameName(storage::parsePerfFrame("0 [unknown] ([unknown])")) == "[unknown]");
    CHECK(storage::perfFrameName(storage::parsePerfFrame("   inlined_fn (inlined)")) == "inlined_fn");
}

namespace {

struct PerfExpected
{
    const char* path;
    std::uint64_t samples;
    std::map<std::string, std::uint64_t> perEvent;
    std::map<std::string, std::uint64_t> periodSum;
    std::uint64_t withPeriod, frames, maxDepth, unknown, threads;
    const char* first;  ///< "" when the file has no TIME fields
    const char* last;
};

// From the READMEs of perf-flamegraph and perf-speedscope (count_perf_folded.py). Their
// "pid" column is our thread count when the header shows one number (perf's tid).
const std::vector<PerfExpected> kPerfFiles = {
    {"perf-flamegraph/test/perf-cycles-instructions-01.txt", 444, {{"cycles", 111}, {"instructions", 333}}, {}, 0, 705, 13, 3, 5, "1410597.984841", "1410598.977322"},
    {"perf-flamegraph/test/perf-dd-stacks-01.txt", 11, {{"cpu-clock", 11}}, {{"cpu-clock", 111111110}}, 11, 52, 7, 10, 1, "666709.771979", "666709.872987"},
    {"perf-flamegraph/test/perf-funcab-cmd-01.txt", 169, {{"cpu-clock", 169}}, {}, 0, 507, 3, 0, 1, "28075374.517811", "28075376.570905"},
    {"perf-flamegraph/test/perf-funcab-pid-01.txt", 228, {{"cpu-clock", 228}}, {}, 0, 684, 3, 0, 1, "", ""},
    {"perf-flamegraph/test/perf-iperf-stacks-pidtid-01.txt.gz", 201, {{"cpu-clock", 201}}, {}, 0, 3207, 36, 332, 10, "441995.133575", "441995.638625"},
    {"perf-flamegraph/test/perf-java-faults-01.txt", 23, {{"page-faults", 23}}, {{"page-faults", 200}}, 23, 143, 22, 1, 4, "51499.088689", "51499.134798"},
    {"perf-flamegraph/test/perf-java-stacks-01.txt.gz", 46, {{"cycles", 46}}, {}, 0, 1233, 69, 26, 7, "184694.229089", "184694.435091"},
    {"perf-flamegraph/test/perf-java-stacks-02.txt", 2, {{"cycles", 2}}, {}, 0, 48, 24, 0, 1, "", ""},
    {"perf-flamegraph/test/perf-js-stacks-01.txt", 2, {{"cpu-clock", 2}}, {}, 0, 34, 18, 0, 1, "", ""},
    {"perf-flamegraph/test/perf-mirageos-stacks-01.txt", 53, {{"cpu-clock", 53}}, {}, 0, 228, 6, 7, 2, "1333.768765", "1333.900077"},
    {"perf-flamegraph/test/perf-numa-stacks-01.txt.gz", 200, {{"cpu-clock", 200}}, {}, 0, 2345, 23, 204, 21, "30143.481555", "30143.542288"},
    {"perf-flamegraph/test/perf-rust-Yamakaky-dcpu.txt.gz", 58, {{"cycles:u", 58}}, {{"cycles:u", 6850637}}, 58, 938, 36, 6, 1, "75695.008865", "75695.019356"},
    {"perf-flamegraph/test/perf-vertx-stacks-01.txt.gz", 286, {{"cpu-clock", 286}}, {}, 0, 9397, 68, 3, 15, "", ""},
    {"perf-flamegraph/example-perf-stacks.txt.gz", 1315, {{"cycles", 1315}}, {}, 0, 34510, 73, 463, 15, "7628263.042515", "7628273.032857"},
    {"perf-speedscope/forks.linux-perf.txt.gz", 561, {{"cpu-clock", 561}}, {{"cpu-clock", 561561561}}, 561, 2659, 35, 1906, 4, "203265.377019", "203265.517098"},
    {"perf-speedscope/system-wide.linux-perf.txt.gz", 556, {{"cpu-clock", 556}}, {{"cpu-clock", 556556556}}, 556, 2319, 21, 1856, 2, "202513.231785", "202513.370040"},
    {"perf-speedscope/simple-with-header.linux-perf.txt", 136, {{"cpu-clock", 136}}, {{"cpu-clock", 136136136}}, 136, 590, 5, 136, 1, "198789.478194", "198789.613576"},
    {"perf-speedscope/simple-with-pid.linux-perf.txt", 137, {{"cpu-clock", 137}}, {}, 0, 603, 13, 149, 1, "198791.127353", "198791.263815"},
    {"perf-speedscope/rust-mangled.linux-perf.txt", 96, {{"task-clock:ppp", 96}}, {{"task-clock:ppp", 1627118592}}, 96, 388, 5, 0, 1, "150520.991529", "150522.601749"},
};

} // namespace

TEST_CASE("perf script: every real perf file ingests with its README's counts", "[stacks][real]")
{
    for (const PerfExpected& e : kPerfFiles) {
        const std::filesystem::path path = test::realTrace(std::string("public/") + e.path);
        if (path.empty() || !std::filesystem::exists(path))
            continue;
        INFO(e.path);
        MemoryTrace trace;
        const storage::PerfImportStats stats = storage::importPerfScript(path, trace);
        CHECK(stats.samples == e.samples);
        CHECK(stats.samplesPerEvent == e.perEvent);
        CHECK(stats.periodPerEvent == e.periodSum);
        CHECK(stats.samplesWithPeriod == e.withPeriod);
        CHECK(stats.frames == e.frames);
        CHECK(stats.maxDepth == e.maxDepth);
        CHECK(stats.emptyStacks == 0);
        CHECK(stats.unknownFrames == e.unknown);
        CHECK(stats.threadIds == e.threads);
        CHECK(stats.timed == (std::string(e.first) != ""));
        if (stats.timed) {
            CHECK(stats.firstNs == model::parseDecimalScaled(e.first, model::kNsPerS));
            CHECK(stats.lastNs == model::parseDecimalScaled(e.last, model::kNsPerS));
            CHECK(trace.meta().at("origin_ns") == std::to_string(stats.firstNs));
        }
        // Every sample landed on a track, with a weight of its period (or 1).
        std::uint64_t samples = 0, weight = 0, expectedWeight = 0;
        for (std::size_t t = 0; t < trace.resources().size(); ++t) {
            for (const model::StackSample& s : trace.track(static_cast<model::TrackId>(t)).samples) {
                ++samples;
                weight += s.weight;
            }
        }
        for (const auto& [event, n] : e.perEvent)
            expectedWeight += e.periodSum.count(event) ? e.periodSum.at(event) : n;
        CHECK(samples == e.samples);
        CHECK(weight == expectedWeight);
    }
}

namespace {

/// stackcollapse-perf.pl's function-name tidying (default options): ';' -> ':', the text
/// from the first '(' dropped unless it is "(anonymous namespace)" or a Go method
/// "pkg.(*T).M", quotes removed.
std::string tidyLikeStackcollapse(std::string f)
{
    for (char& c : f) {
        if (c == ';')
            c = ':';
    }
    const bool goMethod = [&] {
        const std::size_t open = f.find(".(");
        return open != std::string::npos && f.find(").", open) != std::string::npos;
    }();
    if (!goMethod) {
        std::size_t from = 0;
        for (;;) {
            const std::size_t open = f.find('(', from);
            if (open == std::string::npos)
                break;
            if (f.compare(open, 21, "(anonymous namespace)") == 0) {
                from = open + 1;
                continue;
            }
            f.erase(open);
            break;
        }
    }
    std::string out;
    for (char c : f) {
        if (c != '"' && c != '\'')
            out += c;
    }
    return out;
}

/// Our import collapsed like `stackcollapse-perf.pl --pid`: "COMM-PID" ("COMM-?" without a
/// PID) then the tidied frames, only the first event, weights summed per path.
std::map<std::string, std::uint64_t> collapseLikeStackcollapse(const MemoryTrace& trace, model::StackSample* latest,
                                                               std::string* latestPath)
{
    std::map<std::string, std::uint64_t> out;
    const std::string events = trace.meta().at("perf_events");
    const std::string firstEvent = events.substr(0, events.find(','));
    const model::ResourceTree& tree = trace.resources();
    latest->timeNs = -1;
    for (const model::TrackInfo& info : tree.tracks()) {
        if (info.kind != model::ResourceKind::Thread)
            continue;
        if (info.unit != firstEvent && info.unit != firstEvent + " samples")
            continue;
        const std::string& process = tree.track(info.parent).name;
        const std::size_t bracket = process.rfind(" [");
        const std::string pid = bracket == std::string::npos ? "?" : process.substr(bracket + 2, process.size() - bracket - 3);
        std::string comm = info.name.substr(0, info.name.rfind(" ["));
        for (char& c : comm) {
            if (c == ' ')
                c = '_';
        }
        for (const model::StackSample& s : trace.track(info.id).samples) {
            std::string path = comm + "-" + pid;
            std::vector<std::string> frames;
            for (model::StackId id = s.stack; id != 0; id = trace.stacks()[id].parent)
                frames.push_back(tidyLikeStackcollapse(str(trace, trace.stacks()[id].frame)));
            for (auto it = frames.rbegin(); it != frames.rend(); ++it)
                path += ";" + *it;
            out[path] += s.weight;
            if (s.timeNs >= latest->timeNs) {
                *latest = s;
                *latestPath = path;
            }
        }
    }
    return out;
}

/// Frames that perf could not symbolise but whose DSO it knew are "[libc.so]" in our
/// import; stackcollapse-perf.pl names them so when perf printed "[unknown]", but keeps a
/// blank " " when perf printed an empty symbol ("7f1e2215d058  (/lib/libc.so)"). Both
/// become "[dso]" here, so the comparison is exact everywhere else.
std::map<std::string, std::uint64_t> withDsoFramesMerged(const std::map<std::string, std::uint64_t>& folded)
{
    std::map<std::string, std::uint64_t> out;
    for (const auto& [stack, n] : folded) {
        std::string merged;
        std::size_t start = 0;
        for (;;) {
            const std::size_t semi = stack.find(';', start);
            std::string frame = stack.substr(start, semi == std::string::npos ? std::string::npos : semi - start);
            if (frame == " " || (frame.size() > 2 && frame.front() == '[' && frame.back() == ']' && frame != "[unknown]"))
                frame = "[dso]";
            merged += (start == 0 ? "" : ";") + frame;
            if (semi == std::string::npos)
                break;
            start = semi + 1;
        }
        out[merged] += n;
    }
    return out;
}

/// The first few stacks whose counts differ, as text ("" when equal).
std::string differences(const std::map<std::string, std::uint64_t>& ours,
                        const std::map<std::string, std::uint64_t>& reference)
{
    std::string out;
    int shown = 0;
    auto note = [&](const std::string& stack, std::uint64_t a, std::uint64_t b) {
        if (shown++ < 4)
            out += "\n  ours " + std::to_string(a) + " vs folded " + std::to_string(b) + ": " + stack;
    };
    for (const auto& [stack, n] : ours) {
        const auto it = reference.find(stack);
        if (it == reference.end() || it->second != n)
            note(stack, n, it == reference.end() ? 0 : it->second);
    }
    for (const auto& [stack, n] : reference) {
        if (!ours.count(stack))
            note(stack, 0, n);
    }
    return out;
}

bool endsWithBlankLine(const std::filesystem::path& path)
{
    storage::LineReader reader(path);
    std::string_view line;
    bool blank = false;
    while (reader.next(line))
        blank = line.empty();
    return blank;
}

} // namespace

TEST_CASE("perf script: our stacks collapse to stackcollapse-perf.pl's folded results", "[stacks][real]")
{
    // The README: stackcollapse-perf.pl keeps only the first event, counts periods when
    // present, and drops the last sample when the file does not end with a blank line. We
    // keep that sample, so the two must differ by exactly that one sample then.
    const std::vector<std::string> names = {"perf-cycles-instructions-01", "perf-dd-stacks-01", "perf-funcab-cmd-01",
        "perf-funcab-pid-01", "perf-iperf-stacks-pidtid-01", "perf-java-faults-01", "perf-java-stacks-01",
        "perf-java-stacks-02", "perf-js-stacks-01", "perf-mirageos-stacks-01", "perf-numa-stacks-01",
        "perf-rust-Yamakaky-dcpu", "perf-vertx-stacks-01"};
    const std::filesystem::path dir = test::realTrace("public/perf-flamegraph/test");
    if (dir.empty() || !std::filesystem::exists(dir))
        return;
    for (const std::string& name : names) {
        INFO(name);
        std::filesystem::path input = dir / (name + ".txt");
        if (!std::filesystem::exists(input))
            input += ".gz";
        std::filesystem::path folded = dir / "results" / (name + "-collapsed-pid.txt");
        if (!std::filesystem::exists(folded))
            folded += ".gz";
        MemoryTrace trace;
        storage::importPerfScript(input, trace);
        model::StackSample latest;
        std::string latestPath;
        std::map<std::string, std::uint64_t> ours = collapseLikeStackcollapse(trace, &latest, &latestPath);
        const std::map<std::string, std::uint64_t> reference = withDsoFramesMerged(readFolded(folded));
        if (!endsWithBlankLine(input)) {
            // perf script output is sorted by time, and untimed files get sample k at k
            // ns: either way the file's last sample is the latest.
            REQUIRE(ours.count(latestPath) == 1);
            ours[latestPath] -= latest.weight;
            if (ours[latestPath] == 0)
                ours.erase(latestPath);
        }
        CHECK(differences(withDsoFramesMerged(ours), reference) == "");
    }
}

TEST_CASE("folded stacks: the real folded files ingest with their README's counts and flame totals", "[stacks][real]")
{
    struct Expected
    {
        const char* name;
        std::uint64_t lines, total, frames, depth;
    };
    const std::vector<Expected> expected = {
        {"perf-cycles-instructions-01-collapsed-pid.txt", 6, 333, 15, 10},
        {"perf-dd-stacks-01-collapsed-pid.txt", 9, 101010100, 16, 8},
        {"perf-funcab-cmd-01-collapsed-pid.txt", 2, 169, 5, 4},
        {"perf-funcab-pid-01-collapsed-pid.txt", 2, 228, 5, 4},
        {"perf-iperf-stacks-pidtid-01-collapsed-pid.txt", 106, 200, 166, 37},
        {"perf-java-faults-01-collapsed-pid.txt", 12, 200, 58, 23},
        {"perf-java-stacks-01-collapsed-pid.txt", 33, 45, 164, 70},
        {"perf-java-stacks-02-collapsed-pid.txt", 1, 2, 25, 25},
        {"perf-js-stacks-01-collapsed-pid.txt", 2, 2, 19, 19},
        {"perf-mirageos-stacks-01-collapsed-pid.txt", 9, 52, 17, 7},
        {"perf-numa-stacks-01-collapsed-pid.txt", 17, 199, 50, 24},
        {"perf-rust-Yamakaky-dcpu-collapsed-pid.txt", 45, 6850637, 154, 37},
        {"perf-vertx-stacks-01-collapsed-pid.txt.gz", 199, 285, 229, 69},
    };
    const std::filesystem::path dir = test::realTrace("public/perf-flamegraph/test/results");
    if (dir.empty() || !std::filesystem::exists(dir))
        return;
    test::TempDir tmp;
    for (const Expected& e : expected) {
        INFO(e.name);
        MemoryTrace trace;
        const storage::FoldedImportStats stats = storage::importFolded(dir / e.name, trace);
        CHECK(stats.stackLines == e.lines);
        CHECK(stats.totalCount == e.total);
        CHECK(stats.maxDepth == e.depth);
        std::set<model::StringId> frames;
        for (std::size_t i = 1; i < trace.stacks().size(); ++i)
            frames.insert(trace.stacks()[i].frame);
        CHECK(frames.size() == e.frames);
        // Through a store and back: the flame graph's total is the sum of the counts.
        const std::filesystem::path store = tmp / (std::string(e.name) + ".strata");
        {
            storage::StoreBuilder builder(store);
            trace.replayInto(builder);
            builder.finish();
        }
        storage::StoreReader reader(store);
        const model::FlameTree flame = storage::buildFlameTree(reader, {});
        CHECK(flame.total() == static_cast<std::int64_t>(e.total));
        CHECK(flame.sampleCount == static_cast<std::int64_t>(e.lines));
        CHECK(flame.unit == "count");
        // ...and so is the tree built straight from the imported samples.
        model::StackTable table = stackTable(trace);
        model::FlameTreeBuilder direct(trace.strings(), table);
        for (const model::StackSample& s : trace.track(1).samples)
            direct.addSample(s);
        CHECK(direct.take().total() == static_cast<std::int64_t>(e.total));
    }
}
