#include "storage/analysis/role_time_reader.h"

#include "storage/analysis/efficiency_report.h"
#include "storage/analysis/name_profile.h"
#include "storage/store/store_builder.h"
#include "storage/synth/portable_random.h"

#include "tests/support/random_trace.h"
#include "tests/support/temp_dir.h"
#include <catch2/catch.hpp>

#include <algorithm>

using namespace strata;
using model::Role;
using model::TimeNs;

namespace {

std::filesystem::path buildStore(
    const storage::MemoryTrace& trace, const std::filesystem::path& path)
{
    storage::StoreBuilder builder(path, {});
    trace.replayInto(builder);
    builder.finish();
    return path;
}

/// Brute force reference, independent of the sweep: per elementary segment between any
/// two interval borders, the winning role per track, then across tracks.
model::RoleTimes bruteForce(const storage::MemoryTrace& trace,
    const std::vector<model::TrackId>& tracks, model::TimeRange w,
    const model::WorkerPriority& priority)
{
    std::vector<TimeNs> borders { w.startNs, w.endNs };
    for (auto t : tracks) {
        for (const auto& e : trace.track(t).intervals) {
            if (e.startNs > w.startNs && e.startNs < w.endNs)
                borders.push_back(e.startNs);
            if (e.endNs > w.startNs && e.endNs < w.endNs)
                borders.push_back(e.endNs);
        }
    }
    std::sort(borders.begin(), borders.end());
    borders.erase(std::unique(borders.begin(), borders.end()), borders.end());
    auto rankIn = [](const model::RolePriority& p, Role r) {
        return static_cast<int>(std::find(p.begin(), p.end(), r) - p.begin());
    };
    model::RoleTimes out;
    out.windowNs = w.durationNs();
    for (std::size_t i = 0; i + 1 < borders.size(); ++i) {
        const TimeNs a = borders[i], b = borders[i + 1];
        int best = model::kRoleCount;  // across rank
        for (auto t : tracks) {
            int trackBest = model::kRoleCount;
            for (const auto& e : trace.track(t).intervals) {
                if (e.startNs <= a && e.endNs >= b && e.endNs > e.startNs)
                    trackBest = std::min(trackBest, rankIn(priority.within, e.role));
            }
            if (trackBest < model::kRoleCount)
                best = std::min(best,
                    rankIn(priority.across, priority.within[static_cast<std::size_t>(trackBest)]));
        }
        if (best < model::kRoleCount)
            out.ns[static_cast<std::size_t>(priority.across[static_cast<std::size_t>(best)])] +=
                b - a;
    }
    return out;
}

void checkWithin(const model::RoleTimes& got, const model::RoleTimes& exact)
{
    REQUIRE(got.windowNs == exact.windowNs);
    for (Role r : model::kAllRoles) {
        INFO("role " << model::roleName(r) << " got " << got.at(r) << " exact " << exact.at(r)
                     << " bound " << got.error(r));
        CHECK(std::llabs(got.at(r) - exact.at(r)) <= got.error(r));
    }
}

}  // namespace

TEST_CASE("role times from the pyramid lie within their bound of the exact ones", "[roletime]") {
    test::TempDir dir;
    storage::MemoryTrace trace;
    test::makeRandomTrace({ .seed = 5,
                              .threads = 3,
                              .intervalsPerThread = 1500,
                              .countersPerTrack = 10,
                              .spanNs = 20'000'000 },
        trace);
    storage::StoreReader store(buildStore(trace, dir / "r.strata"));
    std::vector<model::TrackId> threads;
    for (const auto& t : store.resources().tracks()) {
        if (t.kind == model::ResourceKind::Thread)
            threads.push_back(t.id);
    }
    const model::RoleRules none;  // no rules: stored roles, every cell entry resolved
    storage::portable::Random rng(11);
    for (int i = 0; i < 25; ++i) {
        const TimeNs a = rng.uniformInt(0, 20'000'000 - 1);
        const TimeNs b = rng.uniformInt(a + 1, 21'000'000);
        const model::TimeRange w { a, b };
        const int slots = i % 3 == 0 ? 16 : 256;
        storage::RoleTimeReader reader(store, { slots, &none });
        for (const auto& priority : { model::kHostWorker, model::kDeviceWorker }) {
            const std::vector<model::TrackId> one {
                threads[static_cast<std::size_t>(i) % threads.size()]
            };
            checkWithin(reader.roleTimes(one, w, priority), bruteForce(trace, one, w, priority));
            checkWithin(
                reader.roleTimes(threads, w, priority), bruteForce(trace, threads, w, priority));
            const auto exact = reader.exactRoleTimes(threads, w, priority);
            CHECK(exact.exact());
            CHECK(exact.ns == bruteForce(trace, threads, w, priority).ns);
        }
    }
}

TEST_CASE("one track without nesting (Paraver states) is exact at every level", "[roletime]") {
    test::TempDir dir;
    storage::MemoryTrace trace;
    const auto proc = trace.addTrack(model::kNoTrack, model::ResourceKind::Process, "rank 0");
    const auto thread = trace.addTrack(proc, model::ResourceKind::Thread, "thread 1");
    storage::portable::Random rng(3);
    TimeNs t = 0;
    for (std::uint32_t i = 0; i < 20000; ++i) {
        model::Interval e;
        e.startNs = t;
        e.endNs = t + rng.uniformInt(1, i % 97 == 0 ? 200'000 : 3000);
        e.role = static_cast<Role>(rng.uniformInt(0, model::kRoleCount - 1));
        e.name = trace.strings().intern("state " + std::to_string(static_cast<int>(e.role)));
        e.seq = i;
        trace.addInterval(thread, e);
        t = e.endNs + rng.uniformInt(0, 499);
    }
    storage::StoreReader store(buildStore(trace, dir / "s.strata"));
    storage::RoleTimeReader reader(store, { 64, nullptr });
    const std::vector<model::TrackId> tracks { thread };
    for (const model::TimeRange w :
        { model::TimeRange { 0, t }, model::TimeRange { 12345, t / 2 + 777 } }) {
        const auto got = reader.roleTimes(tracks, w, model::kHostWorker);
        CHECK(got.exact());
        CHECK(got.ns == bruteForce(trace, tracks, w, model::kHostWorker).ns);
    }
}

TEST_CASE("rules re-assign roles and ignore annotations", "[roletime]") {
    test::TempDir dir;
    storage::MemoryTrace trace;
    const auto gpu = trace.addTrack(model::kNoTrack, model::ResourceKind::Gpu, "GPU 0");
    const auto stream = trace.addTrack(gpu, model::ResourceKind::Stream, "stream 7");
    auto add = [&](TimeNs s, TimeNs e, const char* name, const char* cat, model::Depth depth) {
        model::Interval i { s, e, trace.strings().intern(name), trace.strings().intern(cat), depth,
            model::classifyRole(name, cat), 0 };
        trace.addInterval(stream, i);
    };
    add(0, 1000, "ProfilerStep#1", "gpu_user_annotation", 0);
    add(100, 400, "gemm", "kernel", 1);
    add(500, 600, "myCollectiveKernel", "kernel", 1);
    storage::StoreReader store(buildStore(trace, dir / "g.strata"));
    const std::vector<model::TrackId> tracks { stream };
    {
        storage::RoleTimeReader reader(store, {});  // default rules: the annotation is ignored
        const auto t = reader.roleTimes(tracks, { 0, 1000 }, model::kDeviceWorker);
        CHECK(t.at(Role::Useful) == 400);
        CHECK(t.uncoveredNs() == 600);
    }
    const auto rules = model::RoleRules::parse(
        "ignore category=annotation\ncomm name=Collective  # a library we cannot know\n");
    storage::RoleTimeReader reader(store, { 4096, &rules });
    const auto t = reader.roleTimes(tracks, { 0, 1000 }, model::kDeviceWorker);
    CHECK(t.at(Role::Useful) == 300);
    CHECK(t.at(Role::Comm) == 100);
    CHECK(reader.attribution().byRule.at({ Role::Comm, 1 }) == 100);
    CHECK_THROWS_WITH(
        model::RoleRules::parse("useful name=x\nbusy name=y\n"), Catch::Contains("line 2"));
}

TEST_CASE("the profile of a window counts exactly when it is small", "[roletime][profile]") {
    test::TempDir dir;
    storage::MemoryTrace trace;
    const auto proc = trace.addTrack(model::kNoTrack, model::ResourceKind::Process, "p");
    const auto thread = trace.addTrack(proc, model::ResourceKind::Thread, "t");
    const auto k = trace.strings().intern("k");
    for (std::uint32_t i = 0; i < 3; ++i)  // 100, 200, 300 ns long
        trace.addInterval(thread, { i * 1000, i * 1000 + (i + 1) * 100, k, 0, 0, Role::Useful, i });
    storage::StoreReader store(buildStore(trace, dir / "p.strata"));
    const std::vector<model::TrackId> tracks { thread };
    const auto p = storage::profileNames(store, tracks, { 0, 3000 });
    REQUIRE(p.rows.size() == 1);
    CHECK(p.rows[0].totalNs == 600);
    CHECK(*p.rows[0].count == 3);
    CHECK(*p.rows[0].meanNs == Approx(200));
    CHECK(*p.rows[0].stddevNs == Approx(81.6497));  // population stddev of 100, 200, 300
    CHECK(*p.rows[0].coefficientOfVariation == Approx(0.408248));
    CHECK(p.rows[0].windowShare == Approx(0.2));
    // A window cutting the last interval in half counts its clipped 150 ns.
    CHECK(storage::profileNames(store, tracks, { 0, 2150 }).rows[0].totalNs == 450);
}
