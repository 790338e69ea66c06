// POP's serialization and transfer efficiencies from the ideal-network replay, the hybrid
// MPI x threads split, and useful IPC / frequency from Extrae's counters (issue 19), on
// hand-made Paraver traces whose answers are worked out below, and the replay's rules on
// hand-built inputs.

#include "storage/analysis/ideal_replay.h"

#include "storage/analysis/efficiency_report.h"
#include "storage/analysis/replay_input.h"
#include "storage/import/otf2/otf2_importer.h"
#include "storage/import/paraver/paraver_importer.h"
#include "storage/store/store_builder.h"
#include "storage/store/store_reader.h"

#include "tests/support/temp_dir.h"
#include <catch2/catch.hpp>

#include <fstream>

using namespace strata;
using storage::ReplayCall;
using storage::ReplayInput;
using storage::ReplayProcess;

namespace {

std::filesystem::path fixture(const std::string& name)
{
    return std::filesystem::path(STRATA_TEST_DATA_DIR) / "paraver" / name;
}

std::filesystem::path ingest(const std::filesystem::path& prv, const std::filesystem::path& store)
{
    storage::StoreBuilder builder(store);
    storage::importParaver(prv, builder);
    builder.finish();
    return store;
}

storage::EfficiencyReport fullReport(storage::StoreReader& store, model::TimeRange window = {})
{
    storage::EfficiencyRequest request;
    request.level = model::WorkerLevel::Process;
    request.window = window;
    request.idealReplay = true;
    request.counters = true;
    return storage::computeEfficiency(store, request);
}

}  // namespace

TEST_CASE("a ping-pong's waiting disappears on the ideal network: TE < 1, SerE = 1",
    "[replay][paraver]") {
    // Both ranks compute 400 ns, then rank 1 sends (400-410) and receives (410-700), rank 2
    // receives (400-600: the message travels 185 ns) and answers (600-610); then rank 1
    // computes 300 ns and rank 2 390 ns, to T = 1000. Ideally every call ends at 400, so
    // rank 1 ends at 700 and rank 2 at 790 = T_ideal = its useful time.
    test::TempDir dir;
    storage::StoreReader store(ingest(fixture("pingpong.prv"), dir / "pp.strata"));
    const storage::EfficiencyReport r = fullReport(store);
    INFO(r.replayUnavailable);
    REQUIRE(r.idealRuntimeNs == 790);
    REQUIRE(r.pop.serializationEfficiency);
    REQUIRE(r.pop.transferEfficiency);
    CHECK(*r.pop.serializationEfficiency == Approx(1.0).epsilon(0).margin(1e-12));
    CHECK(*r.pop.transferEfficiency == Approx(0.79).epsilon(0).margin(1e-12));
    CHECK(*r.pop.serializationEfficiency * *r.pop.transferEfficiency
        == Approx(r.pop.communicationEfficiency).epsilon(0).margin(1e-12));

    // Counters: rank 1 reads 800 instructions / 1000 cycles at 400 and 600 / 600 at 1000
    // (useful bursts), 5 / 10 and 3 / 290 at the ends of its calls; rank 2 400 / 800,
    // 390 / 390 useful and 1 / 200, 2 / 10 in its calls. Useful time 700 + 790.
    REQUIRE(r.counters);
    CHECK(r.counters->complete());
    CHECK(r.counters->instructions() == 2190);
    CHECK(r.counters->cycles() == 2790);
    CHECK(r.counters->usefulNs() == 1490);
    REQUIRE(r.counters->threads.size() == 2);
    CHECK(r.counters->threads[0].instructions == 1400);
    CHECK(r.counters->threads[1].cycles == 1190);

    // A window is not the run: no split, and the reason says so.
    const storage::EfficiencyReport window = fullReport(store, { 0, 500 });
    CHECK_FALSE(window.pop.serializationEfficiency);
    CHECK(window.replayUnavailable.find("whole run") != std::string::npos);
}

TEST_CASE(
    "a serialization chain keeps its waiting on the ideal network: SerE < 1", "[replay][paraver]") {
    // Rank 1 computes 100 ns and sends to rank 2, which then computes 100 ns and sends to
    // rank 3, which computes 100 ns; all meet in a barrier that ends at T = 303. Zero
    // latency changes nothing but the barrier's last ns: T_ideal = 300, max useful 100.
    test::TempDir dir;
    storage::StoreReader store(ingest(fixture("serial_chain.prv"), dir / "sc.strata"));
    const storage::EfficiencyReport r = fullReport(store);
    INFO(r.replayUnavailable);
    REQUIRE(r.idealRuntimeNs == 300);
    CHECK(*r.pop.serializationEfficiency == Approx(1.0 / 3.0).epsilon(0).margin(1e-12));
    CHECK(*r.pop.transferEfficiency == Approx(300.0 / 303.0).epsilon(0).margin(1e-12));
    // No PAPI counters in this trace: the counters are not complete.
    REQUIRE(r.counters);
    CHECK_FALSE(r.counters->complete());
}

TEST_CASE("the replay's input from a store: calls, collectives and matched messages",
    "[replay][paraver]") {
    test::TempDir dir;
    storage::StoreReader store(ingest(fixture("serial_chain.prv"), dir / "sc.strata"));
    auto built = storage::buildReplayInput(store, { 0, 303 });
    REQUIRE(std::holds_alternative<ReplayInput>(built));
    const ReplayInput& in = std::get<ReplayInput>(built);
    REQUIRE(in.processes.size() == 3);
    // Rank 2: MPI_Recv at 0 (receives rank 1's send), MPI_Send after 100 ns, barrier.
    const ReplayProcess& p = in.processes[1];
    REQUIRE(p.calls.size() == 3);
    CHECK(p.calls[0].gapNs == 0);
    CHECK(p.calls[0].messageCount == 1);
    CHECK(in.messages[p.calls[0].firstMessage].process == 0);
    CHECK(in.messages[p.calls[0].firstMessage].call == 0);
    CHECK(p.calls[1].gapNs == 100);
    CHECK(p.calls[1].collective == -1);
    CHECK(p.calls[2].collective == 0);
    CHECK(p.tailNs == 0);
    CHECK(in.records() == 7 + 2);  // calls + messages

    // A trace without MPI calls says so.
    storage::StoreReader plain(ingest(fixture("metrics_2ranks.prv"), dir / "plain.strata"));
    auto none = storage::buildReplayInput(plain, { 0, 1000 });
    REQUIRE(std::holds_alternative<std::string>(none));
    CHECK(std::get<std::string>(none).find("no MPI calls") != std::string::npos);
}

TEST_CASE(
    "MPI calls without message records: the split is not available, and why", "[replay][paraver]") {
    test::TempDir dir;
    // The ping-pong without its two type-3 records.
    std::ifstream in(fixture("pingpong.prv"));
    std::ofstream out(dir / "nomsg.prv");
    for (std::string line; std::getline(in, line);) {
        if (!line.starts_with("3:"))
            out << line << '\n';
    }
    out.close();
    std::filesystem::copy_file(fixture("pingpong.pcf"), dir / "nomsg.pcf");
    storage::StoreReader store(ingest(dir / "nomsg.prv", dir / "nomsg.strata"));
    const storage::EfficiencyReport r = fullReport(store);
    CHECK_FALSE(r.pop.serializationEfficiency);
    CHECK(r.replayUnavailable.find("no message records") != std::string::npos);
}

TEST_CASE("ideal replay: collectives end at the last arrival; gaps keep their length", "[replay]") {
    ReplayInput in;
    // Process 0: 10 ns, barrier, 5 ns. Process 1: 30 ns, barrier, 1 ns, receive from
    // process 0's second call (after its barrier), 2 ns.
    in.processes.push_back({ "p0", { { 10, 0, 0, 0 }, { 0, -1, 0, 0 } }, 5 });
    in.processes.push_back({ "p1", { { 30, 0, 0, 0 }, { 1, -1, 0, 1 } }, 2 });
    in.messages.push_back({ 0, 1 });
    const storage::ReplayResult r = storage::replayIdeal(in);
    REQUIRE_FALSE(r.error);
    // Barrier ends at 30 for both; p0's send starts at 30, ends at 35; p1 receives at
    // 31 (the send started at 30), ends at 33.
    CHECK(r.idealEndNs == std::vector<model::TimeNs> { 35, 33 });
    CHECK(r.idealRuntimeNs == 35);
}

TEST_CASE("ideal replay: a receive whose send comes after it on a peer that waits for it "
          "stops the replay with a reason",
    "[replay]") {
    ReplayInput in;
    // Each process's only call receives the other's only call: fine (both start at 0).
    in.processes.push_back({ "p0", { { 0, -1, 0, 1 } }, 0 });
    in.processes.push_back({ "p1", { { 0, -1, 1, 1 } }, 0 });
    in.messages = { { 1, 0 }, { 0, 0 } };
    CHECK_FALSE(storage::replayIdeal(in).error);
    // p0's first call needs p1's second call, which comes after p1's first call, which
    // needs p0's second call: a cycle.
    ReplayInput cycle;
    cycle.processes.push_back({ "p0", { { 0, -1, 0, 1 }, { 0, -1, 0, 0 } }, 0 });
    cycle.processes.push_back({ "p1", { { 0, -1, 1, 1 }, { 0, -1, 0, 0 } }, 0 });
    cycle.messages = { { 1, 1 }, { 0, 1 } };
    const storage::ReplayResult r = storage::replayIdeal(cycle);
    REQUIRE(r.error);
    CHECK(r.error->find("p0") != std::string::npos);
    CHECK(r.idealRuntimeNs == 0);
}

TEST_CASE("hybrid MPI + threads at the thread level: MPI PE from the main threads' time "
          "outside MPI, times the threads' PE",
    "[replay][hybrid][paraver]") {
    // Two processes of two threads, T = 1000. Main threads: 600 and 900 ns outside MPI (a
    // barrier to the end). Useful per thread: 600, 300, 900, 900.
    //   MPI LB = 750 / 900, MPI CommE = 0.9, MPI PE = 0.75; hybrid PE = 2700 / 4000;
    //   thread PE = 0.675 / 0.75 = 0.9.
    test::TempDir dir;
    storage::StoreReader store(ingest(fixture("hybrid.prv"), dir / "h.strata"));
    storage::EfficiencyRequest request;
    request.level = model::WorkerLevel::Thread;
    request.idealReplay = true;
    const storage::EfficiencyReport r = storage::computeEfficiency(store, request);
    REQUIRE(r.hybrid);
    CHECK(r.hybrid->parallelEfficiency == Approx(0.675));
    CHECK(r.hybrid->mpiLoadBalance == Approx(750.0 / 900.0));
    CHECK(r.hybrid->mpiCommunicationEfficiency == Approx(0.9));
    CHECK(r.hybrid->mpiParallelEfficiency == Approx(0.75));
    CHECK(r.hybrid->threadParallelEfficiency == Approx(0.9));
    CHECK(r.hybrid->mpiParallelEfficiency * r.hybrid->threadParallelEfficiency
        == Approx(r.hybrid->parallelEfficiency));
    // Outside MPI in a window: 200-700 holds 100 ns of process 1's barrier.
    CHECK(storage::outsideMpiNs(store, { 200, 700 }) == std::vector<model::TimeNs> { 400, 500 });

    // One thread per process, or the process level: no hybrid split.
    request.level = model::WorkerLevel::Process;
    CHECK_FALSE(storage::computeEfficiency(store, request).hybrid);
    storage::StoreReader pp(ingest(fixture("pingpong.prv"), dir / "pp.strata"));
    request.level = model::WorkerLevel::Thread;
    CHECK_FALSE(storage::computeEfficiency(pp, request).hybrid);
}

TEST_CASE("ImageMagick's OpenMP run (1 process x 4 threads, no MPI): MPI PE 1, the thread PE "
          "is the hybrid PE",
    "[replay][hybrid][paraver][real]") {
    const auto prv = test::realTrace("public/paraver-pypop/imagemagick_example_traces/omp4.prv.gz");
    if (prv.empty())
        return;  // the shared real-trace folder is not here
    test::TempDir dir;
    storage::StoreReader store(ingest(prv, dir / "omp4.strata"));
    storage::EfficiencyRequest request;
    request.level = model::WorkerLevel::Thread;
    request.idealReplay = true;
    const storage::EfficiencyReport r = storage::computeEfficiency(store, request);
    REQUIRE(r.hybrid);
    CHECK(r.hybrid->mpiParallelEfficiency == 1.0);
    CHECK(r.hybrid->threadParallelEfficiency == r.pop.parallelEfficiency);
    CHECK(r.replayUnavailable.find("no MPI calls") != std::string::npos);
}

TEST_CASE("OTF2 messages feed the replay: Score-P's MPI ping-pong", "[replay][otf2][real]") {
    const auto archive = test::realTrace("public/otf2-pipit/ping-pong-otf2/traces.otf2");
    if (archive.empty())
        return;  // the shared real-trace folder is not here
    test::TempDir dir;
    {
        storage::StoreBuilder builder(dir / "pp.strata");
        storage::importOtf2(archive, builder);
        builder.finish();
    }
    storage::StoreReader store(dir / "pp.strata");
    const storage::EfficiencyReport r = fullReport(store);
    auto built = storage::buildReplayInput(store, r.window);
    REQUIRE(std::holds_alternative<ReplayInput>(built));
    // 8 messages each way (README), each received by an MPI_Recv.
    CHECK(std::get<ReplayInput>(built).messages.size() == 16);
    INFO(r.replayUnavailable);
    REQUIRE(r.pop.serializationEfficiency);
    CHECK(*r.pop.serializationEfficiency <= 1.0);
    CHECK(*r.pop.serializationEfficiency * *r.pop.transferEfficiency
        == Approx(r.pop.communicationEfficiency).epsilon(0).margin(1e-12));
}
