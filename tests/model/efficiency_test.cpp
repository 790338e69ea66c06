#include "model/efficiency.h"

#include "model/workers.h"

#include <catch2/catch.hpp>

using namespace strata::model;

namespace {

WorkerTimes worker(TimeNs useful, TimeNs comm, TimeNs transfer, TimeNs window)
{
    WorkerTimes w;
    w.times.windowNs = window;
    w.times.ns[static_cast<std::size_t>(Role::Useful)] = useful;
    w.times.ns[static_cast<std::size_t>(Role::Comm)] = comm;
    w.times.ns[static_cast<std::size_t>(Role::Transfer)] = transfer;
    return w;
}

}  // namespace

TEST_CASE("POP metrics: the example of the issue's ranks", "[efficiency]") {
    // U = 30, 60, 90 of T = 100: LB = 60/90, CommE = 0.9, PE = 0.6.
    const auto m =
        popMetrics({ worker(30, 0, 0, 100), worker(60, 0, 0, 100), worker(90, 0, 0, 100) }, 100);
    CHECK(m.loadBalance == Approx(60.0 / 90.0));
    CHECK(m.communicationEfficiency == Approx(0.9));
    CHECK(m.parallelEfficiency == Approx(0.6));
    CHECK(m.parallelEfficiency == Approx(m.loadBalance * m.communicationEfficiency));
    CHECK_FALSE(m.serializationEfficiency.has_value());
    CHECK(popMetrics({}, 100).parallelEfficiency == 0);
}

TEST_CASE("GPU metrics multiply to the parallel efficiency", "[efficiency]") {
    const auto m = gpuMetrics({ worker(40, 20, 10, 100), worker(30, 60, 0, 100) }, 100);
    CHECK(m.parallelEfficiency == Approx(0.35));
    CHECK(m.loadBalance == Approx(0.875));
    CHECK(m.communicationEfficiency == Approx(40.0 / 90.0));
    CHECK(m.orchestrationEfficiency == Approx(0.9));
    CHECK(m.loadBalance * m.communicationEfficiency * m.orchestrationEfficiency
        == Approx(m.parallelEfficiency));
}

TEST_CASE("the sweep counts each instant once, for its highest role", "[efficiency][roletime]") {
    // aten op 0-100 with a launch 10-20 inside and a comm call 50-90 holding a sync 60-70.
    const std::vector<RoleSpan> spans { { 0, 100, Role::Useful }, { 10, 20, Role::Runtime },
        { 50, 90, Role::Comm }, { 60, 70, Role::Sync } };
    const auto host = sweepRoleTimes(spans, { 0, 200 }, kHostPriority);
    CHECK(host.at(Role::Useful) == 50);
    CHECK(host.at(Role::Runtime) == 10);
    CHECK(host.at(Role::Comm) == 40);
    CHECK(host.at(Role::Sync) == 0);
    CHECK(host.uncoveredNs() == 100);
    const auto device = sweepRoleTimes(spans, { 0, 200 }, kDevicePriority);
    CHECK(device.at(Role::Useful) == 100);
    CHECK(device.coveredNs() == 100);
}

TEST_CASE(
    "the bucket mixer is exact for one partial layer and bounds two", "[efficiency][roletime]") {
    BucketRoleMixer mixer(kDevicePriority);
    std::array<TimeNs, kRoleCount> a {}, b {};
    a[static_cast<std::size_t>(Role::Useful)] = 30;
    mixer.addLayer(a);
    const RoleTimes one = mixer.closeBucket(100);
    CHECK(one.at(Role::Useful) == 30);
    CHECK(one.exact());
    b[static_cast<std::size_t>(Role::Useful)] = 50;
    mixer.addLayer(a);
    mixer.addLayer(b);
    const RoleTimes two = mixer.closeBucket(100);
    // The union of 30 and 50 in 100 lies in [50, 80]; independence gives 65.
    CHECK(two.at(Role::Useful) == 65);
    CHECK(two.error(Role::Useful) == 30);
}

TEST_CASE("worker levels parse and name", "[efficiency]") {
    CHECK(parseWorkerLevel("gpu") == WorkerLevel::Gpu);
    CHECK_FALSE(parseWorkerLevel("rank").has_value());
    CHECK(workerLevelName(WorkerLevel::Stream) == "stream");
    ResourceTree tree;
    const auto p = tree.add(kNoTrack, ResourceKind::Process, "rank 0");
    const auto t1 = tree.add(p, ResourceKind::Thread, "main");
    tree.add(p, ResourceKind::Counter, "mem");
    const auto ws = workersAt(tree, WorkerLevel::Process, [&](TrackId t) { return t == t1; });
    REQUIRE(ws.size() == 1);
    CHECK(ws[0].tracks == std::vector<TrackId> { t1 });
}

TEST_CASE("hybrid metrics: MPI PE from the time outside MPI, thread PE the rest", "[efficiency]") {
    PopMetrics threads;
    threads.parallelEfficiency = 0.675;
    const HybridMetrics h = hybridMetrics({ 600, 900 }, threads, 1000);
    CHECK(h.mpiLoadBalance == Approx(750.0 / 900.0));
    CHECK(h.mpiCommunicationEfficiency == Approx(0.9));
    CHECK(h.mpiParallelEfficiency == Approx(0.75));
    CHECK(h.threadParallelEfficiency == Approx(0.9));
    CHECK(hybridMetrics({}, threads, 1000).mpiParallelEfficiency == 0);
}
