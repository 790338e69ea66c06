// Variability (issue 18): the statistics against a brute-force computation, the partials
// merging to the single computation whatever the grouping, stragglers and their causes on
// a hand-made multi-rank fixture, coincidence with memcpy, and the real DDP ranks.

#include "storage/analysis/variability.h"

#include "storage/import/chrome/chrome_json_importer.h"
#include "storage/import/ncu/ncu_importer.h"
#include "storage/store/byte_io.h"
#include "storage/store/input_error.h"
#include "storage/store/store_builder.h"

#include "tests/support/random_trace.h"
#include "tests/support/temp_dir.h"
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <map>

using namespace strata;
using model::TimeNs;

namespace {

std::filesystem::path buildStore(const storage::MemoryTrace& trace,
    const std::filesystem::path& path, const std::vector<std::string>& internFirst = {})
{
    storage::StoreBuilder builder(path, {});
    // Strings interned here but unused by the trace give this store other string ids than
    // another built from the same trace (ids follow text order, so they must sort before
    // the trace's names), as two shards of one run have.
    for (const std::string& s : internFirst)
        builder.intern(s);
    trace.replayInto(builder);
    builder.finish();
    return path;
}

/// Chrome files into one store, aligned on their earliest event (as `strata ingest` does).
std::filesystem::path importChrome(
    const std::vector<std::filesystem::path>& files, const std::filesystem::path& path)
{
    std::optional<TimeNs> origin;
    for (const auto& f : files) {
        if (const auto o = storage::chromeTraceOriginNs(f))
            origin = origin ? std::min(*origin, *o) : *o;
    }
    storage::StoreBuilder builder(path, {});
    for (const auto& f : files) {
        storage::ChromeImportOptions options;
        options.originNs = origin;
        storage::importChromeJson(f, builder, options);
    }
    builder.finish();
    return path;
}

std::vector<model::TrackId> allTracks(const storage::StoreReader& store)
{
    std::vector<model::TrackId> out;
    for (const model::TrackInfo& t : store.resources().tracks())
        out.push_back(t.id);
    return out;
}

const storage::NameVariability* findName(
    const storage::VariabilityReport& r, const std::string& name)
{
    for (const auto& n : r.names) {
        if (n.name == name)
            return &n;
    }
    return nullptr;
}

/// By definition: the smallest duration with at least p n durations at or below it.
TimeNs bruteQuantile(const std::vector<TimeNs>& durations, double p)
{
    TimeNs best = -1;
    for (TimeNs candidate : durations) {
        std::size_t atOrBelow = 0;
        for (TimeNs d : durations)
            atOrBelow += d <= candidate ? 1 : 0;
        if (static_cast<double>(atOrBelow) >= p * static_cast<double>(durations.size())
            && (best < 0 || candidate < best))
            best = candidate;
    }
    return best;
}

}  // namespace

TEST_CASE(
    "duration statistics use nearest-rank quantiles and the Q3 + 1.5 IQR fence", "[variability]") {
    // 1..10 and 100: n = 11; p50 is the 6th (6), p95 the 11th (100), Q1 the 3rd (3), Q3 the
    // 9th (9): the fence is 9 + 1.5 * 6 = 18, so only 100 is an outlier.
    std::vector<TimeNs> d { 100, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10 };
    const storage::DurationStats s = storage::durationStats(d);
    CHECK(s.count == 11);
    CHECK(s.totalNs == 155);
    CHECK(s.p50Ns == 6);
    CHECK(s.p95Ns == 100);
    CHECK(s.p99Ns == 100);
    CHECK(s.maxNs == 100);
    CHECK(s.outliers == 1);
    CHECK(s.costNs == (7 - 6) + (8 - 6) + (9 - 6) + (10 - 6) + (100 - 6));
    CHECK(s.meanNs == Approx(155.0 / 11));
    // An instance exactly on the fence is not an outlier: 9 + 1.5 * 6 = 18.
    std::vector<TimeNs> onFence { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 18 };
    CHECK(storage::durationStats(onFence).outliers == 0);
}

TEST_CASE(
    "variability statistics equal a brute-force computation on random traces", "[variability]") {
    for (std::uint64_t seed : { 1, 2, 3 }) {
        INFO("seed " << seed);
        test::TempDir dir;
        storage::MemoryTrace trace;
        test::makeRandomTrace({ seed, 3, 1500, 100, 20'000'000 }, trace);
        storage::StoreReader store(buildStore(trace, dir / "r.strata"));
        storage::VariabilityRequest request;
        request.level = model::WorkerLevel::Thread;
        request.top = 1000;
        const storage::VariabilityReport report = storage::computeVariability(store, request);

        std::map<std::string, std::vector<TimeNs>> byName;
        for (const model::TrackInfo& t : trace.resources().tracks()) {
            for (const model::Interval& e : trace.track(t.id).intervals)
                byName[std::string(trace.strings().text(e.name))].push_back(e.durationNs());
        }
        REQUIRE(report.names.size() == byName.size());
        for (const auto& [name, durations] : byName) {
            INFO("name " << name);
            const storage::NameVariability* got = findName(report, name);
            REQUIRE(got);
            double total = 0;
            TimeNs longest = 0;
            for (TimeNs d : durations) {
                total += static_cast<double>(d);
                longest = std::max(longest, d);
            }
            const double mean = total / static_cast<double>(durations.size());
            double squares = 0;
            for (TimeNs d : durations)
                squares += (static_cast<double>(d) - mean) * (static_cast<double>(d) - mean);
            const TimeNs p50 = bruteQuantile(durations, 0.5);
            const TimeNs q1 = bruteQuantile(durations, 0.25);
            const TimeNs q3 = bruteQuantile(durations, 0.75);
            std::int64_t outliers = 0;
            TimeNs cost = 0;
            for (TimeNs d : durations) {
                outliers += static_cast<double>(d) > static_cast<double>(q3) + 1.5 * (q3 - q1);
                cost += std::max<TimeNs>(0, d - p50);
            }
            CHECK(got->stats.count == static_cast<std::int64_t>(durations.size()));
            CHECK(got->stats.totalNs == static_cast<TimeNs>(total));
            CHECK(got->stats.meanNs == Approx(mean));
            CHECK(got->stats.stddevNs
                == Approx(std::sqrt(squares / static_cast<double>(durations.size()))));
            CHECK(got->stats.p50Ns == p50);
            CHECK(got->stats.p95Ns == bruteQuantile(durations, 0.95));
            CHECK(got->stats.p99Ns == bruteQuantile(durations, 0.99));
            CHECK(got->stats.maxNs == longest);
            CHECK(got->stats.outliers == outliers);
            CHECK(got->stats.costNs == cost);
        }
        // Ranked by the time variability costs.
        CHECK(std::is_sorted(report.names.begin(), report.names.end(),
            [](const auto& a, const auto& b) { return a.stats.costNs > b.stats.costNs; }));
    }
}

TEST_CASE("variability partials merge to the single-store computation whatever the grouping "
          "of tracks, string ids and windows (issue 18)",
    "[variability]") {
    test::TempDir dir;
    storage::MemoryTrace trace;
    test::makeRandomTrace({ 7, 4, 1200, 300, 20'000'000 }, trace);
    storage::StoreReader a(buildStore(trace, dir / "a.strata"));
    // The same run with other string ids: a shard interns its own strings.
    storage::StoreReader b(
        buildStore(trace, dir / "b.strata", { "aaa", "wait", "zzz", "softmax", "gemm" }));
    model::StringId gemmA = 0, gemmB = 0;
    REQUIRE(a.strings().find("gemm", gemmA));
    REQUIRE(b.strings().find("gemm", gemmB));
    REQUIRE(gemmA != gemmB);

    const model::TimeRange all { 0, 30'000'000 };
    const std::vector<model::TrackId> tracks = allTracks(a);
    storage::VariabilityPartial whole;
    whole.collect(a, tracks, all);

    // Odd tracks from one store, even from the other; then one of them in two windows.
    std::vector<model::TrackId> odd, even;
    for (model::TrackId t : tracks)
        (t % 2 ? odd : even).push_back(t);
    storage::VariabilityPartial split, firstHalf, secondHalf;
    split.collect(a, odd, all);
    firstHalf.collect(b, even, { 0, 9'000'000 });
    secondHalf.collect(b, even, { 9'000'000, 30'000'000 });
    firstHalf.merge(std::move(secondHalf));
    split.merge(std::move(firstHalf));

    REQUIRE(!whole.names.empty());
    REQUIRE(!whole.counters.empty());
    storage::VariabilityPartial wholeSorted = whole, splitSorted = split;
    wholeSorted.normalize();
    splitSorted.normalize();
    CHECK(wholeSorted == splitSorted);

    // Sent as bytes (to the rank that reduces) they come back equal; damaged bytes throw.
    const std::string bytes = split.toBytes();
    CHECK(storage::VariabilityPartial::fromBytes(bytes) == split);
    CHECK_THROWS_AS(storage::VariabilityPartial::fromBytes(bytes.substr(0, bytes.size() / 2)),
        storage::CorruptTile);
    CHECK_THROWS_AS(storage::VariabilityPartial::fromBytes(bytes + "x"), storage::CorruptTile);

    storage::VariabilityRequest request;
    request.window = all;
    request.level = model::WorkerLevel::Thread;
    request.top = 100;
    const auto one = storage::finishVariability(std::move(whole), a.resources(), request);
    const auto merged = storage::finishVariability(std::move(split), b.resources(), request);
    CHECK(one == merged);
}

TEST_CASE("a rank sleeping in dataloader_wait is the first straggler, dataloader_wait its "
          "first cause (issue 18)",
    "[variability]") {
    // ddp_straggler.json: 4 ranks x 5 ProfilerSteps; each step a dataloader_wait (1 ms,
    // 1.1, 30 on rank 2, 1.3), a 10 ms forward, then nccl:all_reduce until rank 2 arrives.
    test::TempDir dir;
    const auto path =
        importChrome({ std::filesystem::path(STRATA_TEST_DATA_DIR) / "chrome/ddp_straggler.json" },
            dir / "s.strata");
    storage::StoreReader store(path);
    const storage::VariabilityReport r = storage::computeVariability(store, {});
    CHECK(r.stepSource == "ProfilerStep");
    CHECK(r.stepsCompared == 5);
    REQUIRE(r.stragglers.size() == 1);
    const storage::Straggler& s = r.stragglers.front();
    CHECK(s.worker == "rank 2");
    // Work 40 ms against the others' median of 11.1 ms, in each of 5 steps.
    CHECK(s.excessNs == 5 * 28'900'000);
    CHECK(s.steps.size() == 5);
    REQUIRE(!s.causes.empty());
    CHECK(s.causes.front().name == "dataloader_wait");
    CHECK(s.causes.front().excessNs == 5 * 28'900'000);
    for (const auto& c : s.causes)
        CHECK(c.name != "forward");  // the same on every rank

    const storage::NameVariability* wait = findName(r, "dataloader_wait");
    REQUIRE(wait);
    CHECK(r.names.front().name == "dataloader_wait");  // the largest variability cost
    for (const auto& w : wait->workers)
        CHECK(w.systematicallySlower == (w.worker == "rank 2" || w.worker == "rank 3"));

    // Progress counts tracks; declining it stops the read (the dock's newer request).
    std::uint64_t calls = 0, total = 0;
    storage::computeVariability(store, {}, [&](std::uint64_t, std::uint64_t t) {
        ++calls;
        total = t;
        return true;
    });
    CHECK(calls == total);
    CHECK(total > 4);
    CHECK_THROWS_AS(storage::computeVariability(
                        store, {}, [](std::uint64_t done, std::uint64_t) { return done < 2; }),
        storage::Cancelled);
}

TEST_CASE("without ProfilerStep ranges the collectives delimit the steps", "[variability]") {
    // 3 MPI ranks, 6 iterations of compute then MPI_Allreduce until the slowest arrives;
    // rank 1 computes 3 ms in "halo" where the others compute 1 ms in "solve".
    test::TempDir dir;
    const auto path = dir / "mpi.strata";
    {
        storage::StoreBuilder b(path);
        std::vector<model::TrackId> threads;
        for (int r = 0; r < 3; ++r) {
            const auto p = b.addTrack(
                model::kNoTrack, model::ResourceKind::Process, "rank " + std::to_string(r));
            threads.push_back(b.addTrack(p, model::ResourceKind::Thread, "main"));
        }
        TimeNs t = 0;
        for (int k = 0; k < 6; ++k) {
            for (int r = 0; r < 3; ++r) {
                const TimeNs work = r == 1 ? 3'000'000 : 1'000'000;
                const model::Interval compute { t, t + work, b.intern(r == 1 ? "halo" : "solve"),
                    {}, 0 };
                const model::Interval allreduce { t + work, t + 3'100'000,
                    b.intern("MPI_Allreduce"), {}, 0, model::Role::Comm };
                b.addInterval(threads[static_cast<std::size_t>(r)], compute);
                b.addInterval(threads[static_cast<std::size_t>(r)], allreduce);
            }
            t += 3'100'000;
        }
        b.finish();
    }
    storage::StoreReader store(path);
    const storage::VariabilityReport r = storage::computeVariability(store, {});
    CHECK(r.stepSource == "collectives");
    CHECK(r.stepsCompared == 5);  // between the ends of the 6 all-reduces
    REQUIRE(r.stragglers.size() == 1);
    CHECK(r.stragglers.front().worker == "rank 1");
    CHECK(r.stragglers.front().steps.size() == 5);
    CHECK(r.stragglers.front().excessNs == 5 * 2'000'000);  // 3 ms of work against 1 ms
    REQUIRE(!r.stragglers.front().causes.empty());
    CHECK(r.stragglers.front().causes.front().name == "halo");
}

TEST_CASE(
    "the slow instances of a kernel are those overlapping a memcpy on their GPU", "[variability]") {
    // In the same fixture one sm90_gemm in ten shares its GPU with a memcpy and takes
    // 300 us instead of about 100.
    test::TempDir dir;
    const auto path =
        importChrome({ std::filesystem::path(STRATA_TEST_DATA_DIR) / "chrome/ddp_straggler.json" },
            dir / "s.strata");
    storage::StoreReader store(path);
    storage::VariabilityRequest request;
    request.level = model::WorkerLevel::Gpu;
    request.namesRegex = "gemm";
    const storage::VariabilityReport r = storage::computeVariability(store, request);
    REQUIRE(r.names.size() == 1);
    CHECK(r.names.front().stats.count == 200);
    CHECK(r.names.front().slowest.front().durationNs == 300'000);
    const storage::Coincidence* memcpy = nullptr;
    for (const auto& c : r.coincidence) {
        if (c.name == "sm90_gemm" && c.with == "memcpy")
            memcpy = &c;
    }
    REQUIRE(memcpy);
    CHECK(memcpy->slow == 1.0);
    CHECK(memcpy->fast == 0.0);
}

TEST_CASE("the slow instances of a kernel run at the clock a counter of their GPU reads",
    "[variability]") {
    // 20 instances of "k" on GPU 0's stream: the two slow ones (300 us) while the GPU's
    // clock counter reads 2, the fast ones (100 us) while it reads 1.
    test::TempDir dir;
    const auto json = dir / "clock.json";
    {
        std::ofstream out(json);
        out << R"({"traceEvents":[)";
        out << R"({"ph":"C","name":"clock","pid":0,"ts":0,"args":{"value":1}})";
        for (int i = 0; i < 20; ++i) {
            const bool slow = i == 5 || i == 15;
            const int ts = 1000 * i + 10;
            if (slow)
                out << R"(,{"ph":"C","name":"clock","pid":0,"ts":)" << ts - 5
                    << R"(,"args":{"value":2}})";
            out << R"(,{"ph":"X","cat":"kernel","name":"k","pid":0,"tid":7,"ts":)" << ts
                << R"(,"dur":)" << (slow ? 300 : 100) << R"(,"args":{"device":0,"stream":7}})";
            if (slow)
                out << R"(,{"ph":"C","name":"clock","pid":0,"ts":)" << ts + 305
                    << R"(,"args":{"value":1}})";
        }
        out << "]}";
    }
    storage::StoreReader store(importChrome({ json }, dir / "c.strata"));
    storage::VariabilityRequest request;
    request.level = model::WorkerLevel::Gpu;
    request.namesRegex = "^k$";
    const storage::VariabilityReport r = storage::computeVariability(store, request);
    const storage::Coincidence* clock = nullptr;
    for (const auto& c : r.coincidence) {
        if (c.name == "k" && c.with.starts_with("counter:"))
            clock = &c;
    }
    REQUIRE(clock);
    CHECK(clock->with == "counter:clock");
    CHECK(clock->slow == 2.0);
    CHECK(clock->fast == 1.0);
}

TEST_CASE("an Nsight Compute CSV alone gets each metric's variability across the instances "
          "of each kernel (issue 18)",
    "[variability]") {
    // raw_small.csv: three gemm instances (1.5, 2 and 1.75 us; 61.25, 70.5 and 65 % SM
    // throughput) and one axpy (a single instance: nothing varies).
    test::TempDir dir;
    const auto path = dir / "ncu.strata";
    {
        storage::StoreBuilder builder(path, {});
        storage::importNcuCsv(
            std::filesystem::path(STRATA_TEST_DATA_DIR) / "ncu/raw_small.csv", builder);
        builder.finish();
    }
    storage::StoreReader store(path);
    const storage::VariabilityReport r = storage::computeVariability(store, {});
    const storage::KernelMetricVariability* time = nullptr;
    for (const auto& k : r.kernelMetrics) {
        CHECK(k.kernel.starts_with("void gemm<float, 128>"));
        if (k.metric == "gpu__time_duration.sum")
            time = &k;
    }
    REQUIRE(time);
    CHECK(time->count == 3);
    CHECK(time->unit == "usecond");
    CHECK(time->mean == Approx(1.75));
    CHECK(time->stddev == Approx(std::sqrt((0.25 * 0.25 * 2) / 3)));
    CHECK(time->min == 1.5);
    CHECK(time->max == 2.0);
    CHECK(std::is_sorted(r.kernelMetrics.begin(), r.kernelMetrics.end(),
        [](const auto& a, const auto& b) { return a.cv > b.cv; }));
}

TEST_CASE("the four even DDP ranks of the real H100 run name no straggler (issue 18)",
    "[variability][real]") {
    std::vector<std::filesystem::path> ranks;
    for (int r = 0; r < 4; ++r) {
        const auto f = test::realTrace("h100/kineto_ddp_rank" + std::to_string(r) + ".json.gz");
        if (f.empty())
            return;  // the shared real traces are absent: nothing to check
        ranks.push_back(f);
    }
    test::TempDir dir;
    storage::StoreReader store(importChrome(ranks, dir / "ddp.strata"));
    storage::VariabilityRequest request;
    request.top = 100'000;
    const storage::VariabilityReport r = storage::computeVariability(store, request);
    CHECK(r.stepSource == "ProfilerStep");
    CHECK(r.stepsCompared == 3);  // ProfilerStep#2..4 on all four ranks
    CHECK(r.stragglers.empty());
    // A sane report: the ranks are the workers, the all-reduce varies most.
    REQUIRE(!r.names.empty());
    CHECK(r.names.front().name == "gloo:all_reduce");
    const storage::NameVariability* linear = findName(r, "aten::linear");
    REQUIRE(linear);
    REQUIRE(linear->workers.size() == 4);
    CHECK(linear->workers[0].worker == "rank 0");
    CHECK(linear->stats.count == 408);
    // Kineto mirrors each step on the GPU (gpu_user_annotation): host and device apart.
    int steps = 0;
    for (const auto& n : r.names) {
        if (n.name != "ProfilerStep#3")
            continue;
        ++steps;
        CHECK(n.stats.count == 4);
        if (!n.device)
            CHECK(n.stats.minNs > 60'000'000);  // the host steps, not the GPU's ~10 ms
    }
    CHECK(steps == 2);
}
