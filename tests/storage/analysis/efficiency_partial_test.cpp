// computeEfficiency in parts (efficiency_partial.h): workers dealt to two simulated
// processes in any way (a GPU and its host on different ones, the ranks of a ping-pong or
// of a serialization chain apart) give, after the category exchange, collect, bytes and
// merge, the report of one process, bit for bit; and a partial's bytes cut short are
// refused.

#include "storage/analysis/efficiency_partial.h"

#include "model/role_rules.h"
#include "storage/import/chrome/chrome_json_importer.h"
#include "storage/import/paraver/paraver_importer.h"
#include "storage/store/byte_io.h"
#include "storage/store/store_builder.h"
#include "storage/store/store_reader.h"

#include "tests/support/temp_dir.h"
#include <catch2/catch.hpp>

#include <cstdio>
#include <functional>

using namespace strata;

namespace {

std::string hex(double v)
{
    char buf[64];
    std::snprintf(buf, sizeof buf, "%a", v);
    return buf;
}

std::string times(const model::RoleTimes& t)
{
    std::string out = std::to_string(t.windowNs);
    for (std::size_t r = 0; r < model::kRoleCount; ++r)
        out += " " + std::to_string(t.ns[r]) + "+-" + std::to_string(t.errorNs[r]);
    return out;
}

std::string pop(const model::PopMetrics& p)
{
    return hex(p.parallelEfficiency) + " " + hex(p.loadBalance) + " "
        + hex(p.communicationEfficiency) + " " + hex(p.errorBound) + " "
        + hex(p.serializationEfficiency.value_or(-1)) + " "
        + hex(p.transferEfficiency.value_or(-1));
}

/// Every figure of a report, doubles in hex: equal text, equal reports.
std::string describe(const storage::EfficiencyReport& r)
{
    std::string out = std::to_string(r.window.startNs) + ".." + std::to_string(r.window.endNs)
        + " exact " + std::to_string(r.exact) + " pop " + pop(r.pop) + "\n";
    for (const auto& w : r.workers)
        out += w.name + ": " + times(w.times) + "\n";
    for (const auto& w : r.hostProcesses)
        out += "host " + w.name + ": " + times(w.times) + "\n";
    if (r.hostPop)
        out += "host pop " + pop(*r.hostPop) + " offload " + hex(*r.deviceOffloadEfficiency) + "\n";
    if (r.gpu)
        out += "gpu " + hex(r.gpu->communicationEfficiency) + " "
            + hex(r.gpu->orchestrationEfficiency) + "\n";
    for (const auto& c : r.gpuIdle) {
        out += "idle " + c.gpu + " " + c.process + " " + std::to_string(c.gpuIdleNs);
        for (model::TimeNs ns : c.hostRoleNs)
            out += " " + std::to_string(ns);
        out += " " + std::to_string(c.hostInactiveNs) + "\n";
    }
    for (const auto& [key, ns] : r.attribution.byRule)
        out += "rule " + std::to_string(int(key.first)) + "/" + std::to_string(key.second) + " "
            + std::to_string(ns) + "\n";
    for (const auto& [key, ns] : r.attribution.byName)
        out += "name " + std::to_string(int(key.first)) + "/" + std::to_string(key.second) + " "
            + std::to_string(ns) + "\n";
    if (r.counters) {
        for (const auto& t : r.counters->threads)
            out += "thread " + t.thread + " " + t.process + " " + std::to_string(t.usefulNs) + " "
                + hex(t.instructions) + " " + hex(t.cycles) + "\n";
    }
    if (r.hybrid)
        out += "hybrid " + hex(r.hybrid->parallelEfficiency) + " "
            + hex(r.hybrid->mpiParallelEfficiency) + "\n";
    out +=
        "ideal " + std::to_string(r.idealRuntimeNs.value_or(-1)) + " " + r.replayUnavailable + "\n";
    return out;
}

/// The report of two simulated processes, process 1 owning the workers `second` picks.
storage::EfficiencyReport inTwo(storage::StoreReader& store,
    const storage::EfficiencyRequest& request,
    const std::function<bool(const model::Worker&)>& second)
{
    const storage::EfficiencyPlan plan = storage::planEfficiency(store, request);
    storage::EfficiencyCollector a(store, plan, [&](const model::Worker& w) { return !second(w); });
    storage::EfficiencyCollector b(store, plan, second);
    storage::CategoryLearning everyone = storage::CategoryLearning::fromBytes(a.learn().toBytes());
    everyone.merge(storage::CategoryLearning::fromBytes(b.learn().toBytes()));
    storage::EfficiencyPartial merged =
        storage::EfficiencyPartial::fromBytes(a.collect(&everyone).toBytes());
    merged.merge(storage::EfficiencyPartial::fromBytes(b.collect(&everyone).toBytes()));
    return storage::finishEfficiency(plan, std::move(merged));
}

/// Whether a worker's name ends with one of `suffixes`.
std::function<bool(const model::Worker&)> namedLike(std::vector<std::string> suffixes)
{
    return [suffixes](const model::Worker& w) {
        for (const std::string& s : suffixes) {
            if (w.name.ends_with(s))
                return true;
        }
        return false;
    };
}

}  // namespace

TEST_CASE(
    "efficiency in parts equals one process: the real DDP ranks with GPUs and hosts owned apart",
    "[analysis][efficiency][mpi][real]") {
    std::vector<std::filesystem::path> files;
    for (int r = 0; r < 4; ++r) {
        files.push_back(test::realTrace("h100/kineto_ddp_rank" + std::to_string(r) + ".json.gz"));
        if (files.back().empty())
            return;
    }
    test::TempDir dir;
    {
        std::optional<model::TimeNs> origin;
        for (const auto& f : files) {
            if (const auto o = storage::chromeTraceOriginNs(f))
                origin = origin ? std::min(*origin, *o) : *o;
        }
        storage::StoreBuilder builder(dir / "ddp.strata", {});
        for (const auto& f : files) {
            storage::ChromeImportOptions options;
            options.originNs = origin;
            storage::importChromeJson(f, builder, options);
        }
        builder.finish();
    }
    storage::StoreReader store(dir / "ddp.strata");
    // GPU k's host "rank k" is owned by the other process for k = 1, 2; then the second
    // process owns two GPUs and no host, reading its GPUs' hosts where the first owns them.
    const auto mixed =
        namedLike({ "(rank 1)", "(rank 3)", "rank 2", "rank 3", "thread 547 (pt_autograd_0)" });
    const auto gpusOnly = namedLike({ "GPU 0 (rank 1)", "GPU 0 (rank 2)" });
    // ... or a later host first: the earlier host is read after it, from its own knowledge.
    const auto laterHost = namedLike({ "GPU 0 (rank 1)", "rank 3" });
    // A rule by category: summary cells of CUDA runtime calls turn sync once learned.
    const model::RoleRules rules = model::RoleRules::parse("sync category=^cuda_runtime$\n");
    for (const auto level :
        { model::WorkerLevel::Gpu, model::WorkerLevel::Process, model::WorkerLevel::Thread }) {
        for (const int slots : { 16, 64, 4096 }) {
            for (const model::RoleRules* ruleSet :
                { static_cast<const model::RoleRules*>(nullptr), &rules }) {
                storage::EfficiencyRequest request;
                request.level = level;
                request.maxSlots = slots;
                request.idealReplay = true;
                request.rules = ruleSet;
                INFO("level " << model::workerLevelName(level) << ", " << slots << " slots, rules "
                              << (ruleSet != nullptr));
                const std::string one = describe(storage::computeEfficiency(store, request));
                CHECK(describe(inTwo(store, request, mixed)) == one);
                CHECK(describe(inTwo(store, request, gpusOnly)) == one);
                CHECK(describe(inTwo(store, request, laterHost)) == one);
                // Each process alone, or one with nothing: the same again.
                CHECK(describe(inTwo(store, request, [](const model::Worker&) { return true; }))
                    == one);
            }
        }
    }
}

TEST_CASE("efficiency in parts equals one process: MPI ranks owned apart (replay and counters)",
    "[analysis][efficiency][mpi]") {
    test::TempDir dir;
    auto ingest = [&](const std::string& name) {
        const auto path = dir / (name + ".strata");
        storage::StoreBuilder builder(path);
        storage::importParaver(
            std::filesystem::path(STRATA_TEST_DATA_DIR) / "paraver" / (name + ".prv"), builder);
        builder.finish();
        return path;
    };
    storage::StoreReader store(ingest("pingpong"));
    storage::StoreReader chain(ingest("serial_chain"));  // its messages set T_ideal
    storage::EfficiencyRequest request;
    request.idealReplay = true;
    request.counters = true;
    const auto second = namedLike({ "task 1.2", "thread 1.2.1" });
    for (const auto level : { model::WorkerLevel::Process, model::WorkerLevel::Thread }) {
        request.level = level;
        for (storage::StoreReader* s : { &store, &chain }) {
            const storage::EfficiencyReport one = storage::computeEfficiency(*s, request);
            REQUIRE(one.idealRuntimeNs);
            CHECK(describe(inTwo(*s, request, second)) == describe(one));
        }
    }
    REQUIRE(storage::computeEfficiency(store, request).counters->complete());

    // A partial's bytes cut anywhere are refused, never read as a smaller partial.
    const storage::EfficiencyPlan plan = storage::planEfficiency(store, request);
    storage::EfficiencyCollector all(store, plan, [](const model::Worker&) { return true; });
    const std::string bytes = all.collect().toBytes();
    REQUIRE(storage::EfficiencyPartial::fromBytes(bytes).toBytes() == bytes);
    for (std::size_t n = 0; n < bytes.size(); ++n)
        CHECK_THROWS_AS(
            storage::EfficiencyPartial::fromBytes(bytes.substr(0, n)), storage::CorruptTile);
}
