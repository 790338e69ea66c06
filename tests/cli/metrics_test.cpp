// `strata metrics` on hand-written traces whose metrics were computed by hand, and on
// the real 4-rank DDP traces (issue 6).

#include "tests/support/run_command.h"
#include "tests/support/temp_dir.h"
#include <catch2/catch.hpp>

#include <regex>

using namespace strata;

namespace {

/// Every `"key":number` of a JSON text, in order.
std::vector<double> numbers(const std::string& json, const std::string& key)
{
    std::vector<double> out;
    const std::regex re("\"" + key + "\":(-?[0-9.eE+-]+)");
    for (auto it = std::sregex_iterator(json.begin(), json.end(), re); it != std::sregex_iterator();
         ++it)
        out.push_back(std::stod((*it)[1].str()));
    return out;
}

/// The top-level "workers" list (the host section has its own, earlier one).
std::string workers(const std::string& json)
{
    const auto at = json.rfind(",\"workers\":[");
    REQUIRE(at != std::string::npos);
    return json.substr(at, json.find(']', at) - at);
}

double number(const std::string& json, const std::string& key)
{
    const auto all = numbers(json, key);
    REQUIRE(!all.empty());
    return all.front();
}

std::string ingest(const test::TempDir& dir, const std::vector<std::string>& inputs)
{
    const std::string store = (dir / "m.strata").string();
    std::vector<std::string> args { "ingest" };
    args.insert(args.end(), inputs.begin(), inputs.end());
    args.insert(args.end(), { "-o", store });
    REQUIRE(test::runStrata(args).exitCode == 0);
    return store;
}

std::string metrics(std::vector<std::string> args)
{
    args.insert(args.begin(), "metrics");
    const auto r = test::runStrata(args);
    INFO(r.err);
    REQUIRE(r.exitCode == 0);
    return r.out;
}

}  // namespace

TEST_CASE("metrics of a hand-written 2-rank Paraver trace", "[cli][metrics]") {
    test::TempDir dir;
    const auto store =
        ingest(dir, { std::string(STRATA_TEST_DATA_DIR) + "/paraver/metrics_2ranks.prv" });
    // Rank 1 runs 800 of 1000 ns, rank 2 400: LB = 600/800, CommE = 800/1000, PE = 600/1000.
    const auto json = metrics({ store, "--json" });
    CHECK(number(json, "runtime_ns") == 1000);
    CHECK(number(json, "parallel_efficiency") == Approx(0.6));
    CHECK(number(json, "load_balance") == Approx(0.75));
    CHECK(number(json, "communication_efficiency") == Approx(0.8));
    CHECK(numbers(workers(json), "useful_ns") == std::vector<double> { 800, 400 });
    CHECK(numbers(workers(json), "comm_ns") == std::vector<double> { 200, 0 });
    CHECK(numbers(workers(json), "sync_ns") == std::vector<double> { 0, 600 });
    CHECK(json.find("\"serialization_efficiency\":null") != std::string::npos);
    CHECK(metrics({ store }).find("Load balance               0.7500") != std::string::npos);
}

TEST_CASE("GPU metrics of a hand-written 2-GPU Kineto-like trace", "[cli][metrics]") {
    test::TempDir dir;
    const auto store =
        ingest(dir, { std::string(STRATA_TEST_DATA_DIR) + "/chrome/metrics_2gpu.json" });
    // GPU 0: gemm 0-40, NCCL 30-60 (20 not under compute), memcpy 70-80: B 40, C 30.
    // GPU 1: kernels 0-30, NCCL 40-100: B 30, C 60. The ProfilerStep annotation on the
    // stream is ignored. PE = 70/200, LB = 70/80, CommE = 40/90, Orch = 90/100.
    const auto json = metrics({ store, "--json" });
    CHECK(number(json, "runtime_ns") == 100000);
    CHECK(number(json, "parallel_efficiency") == Approx(0.35));
    CHECK(number(json, "load_balance") == Approx(0.875));
    CHECK(number(json, "communication_efficiency") == Approx(0.4444).epsilon(1e-3));
    CHECK(number(json, "orchestration_efficiency") == Approx(0.9));
    CHECK(number(json, "device_offload_efficiency")
        == Approx(0.95));  // 5 of 100 us in cudaLaunchKernel
    // Window 20-70 us: B 20 and 10, C 20 and 30, T 50.
    const auto window = metrics({ store, "--json", "--window", "20us:70us" });
    CHECK(number(window, "parallel_efficiency") == Approx(0.3));
    CHECK(number(window, "load_balance") == Approx(0.75));
    CHECK(number(window, "communication_efficiency") == Approx(0.5));
    CHECK(number(window, "orchestration_efficiency") == Approx(0.8));
    // A rules file can make the NCCL kernels useful (then there is no comm time at all).
    const auto rules = (dir / "r.rules").string();
    FILE* f = std::fopen(rules.c_str(), "w");
    std::fputs("useful category=^kernel$ name=nccl\n", f);
    std::fclose(f);
    const auto ruled = metrics({ store, "--json", "--rules", rules });
    CHECK(numbers(workers(ruled), "comm_ns") == std::vector<double> { 0, 0 });
    CHECK(ruled.find("r.rules:1 useful") != std::string::npos);
    CHECK(test::runStrata({ "metrics", store, "--level", "galaxy" }).exitCode == 2);
}

TEST_CASE("metrics on the 4-rank DDP traces: imbalanced GPUs, window from the pyramid",
    "[cli][metrics][real]") {
    const auto r0 = test::realTrace("h100/kineto_ddp_rank0.json.gz");
    if (r0.empty())
        return;  // the shared real-trace folder is not here
    test::TempDir dir;
    std::vector<std::string> inputs;
    for (int r = 0; r < 4; ++r)
        inputs.push_back(
            test::realTrace("h100/kineto_ddp_rank" + std::to_string(r) + ".json.gz").string());
    const auto store = ingest(dir, inputs);
    const auto json = metrics({ store, "--json", "--level", "gpu" });
    // Batches of 8, 12, 16, 24 sequences: the kernel time per rank follows (README sums).
    const auto useful = numbers(workers(json), "useful_ns");
    REQUIRE(useful.size() == 4);
    CHECK(useful[0] == 6460044);
    CHECK(useful[3] == 13769843);
    CHECK(std::max_element(useful.begin(), useful.end()) - useful.begin() == 3);
    CHECK(number(json, "load_balance") < 0.8);
    // The same window from the pyramid (16 slots) and from exact events (default).
    const auto exact = metrics({ store, "--json", "--window", "40ms:190ms" });
    const auto coarse = metrics({ store, "--json", "--window", "40ms:190ms", "--slots", "16" });
    CHECK(exact.find("\"exact\":true") != std::string::npos);
    CHECK(coarse.find("\"exact\":false") != std::string::npos);
    const auto u0 = numbers(workers(exact), "useful_ns"),
               u1 = numbers(workers(coarse), "useful_ns");
    const auto e1 = numbers(workers(coarse), "error_ns");
    REQUIRE(u0.size() == u1.size());
    for (std::size_t i = 0; i < u0.size(); ++i)
        CHECK(std::abs(u0[i] - u1[i]) <= e1[i]);
}

TEST_CASE("an NVML log sampled around the trace does not dilute the run's metrics",
    "[cli][metrics][real]") {
    const auto kineto = test::realTrace("h100/kineto_gpt_train_1gpu.json.gz");
    if (kineto.empty())
        return;  // the shared real-trace folder is not here
    test::TempDir alone, withLog;
    const auto plain = metrics({ ingest(alone, { kineto.string() }), "--json" });
    const auto store = ingest(withLog,
        { kineto.string(), test::realTrace("h100/nvml_counters_1gpu.csv").string() });
    const auto logged = metrics({ store, "--json" });
    // The log starts 1.96 s before the profiler (README): the store's span grows, T does not.
    CHECK(number(logged, "runtime_ns") == number(plain, "runtime_ns"));
    CHECK(number(logged, "parallel_efficiency") == number(plain, "parallel_efficiency"));
    CHECK(number(logged, "start_ns") == 0);
    // An explicit window reaching into the log alone is clipped to the run as well.
    const auto early = metrics({ store, "--json", "--window", "-1s:100ms" });
    CHECK(number(early, "start_ns") == 0);
    CHECK(number(early, "runtime_ns") == 100'000'000);
    // A window wholly in the log's lead-in stays what was asked: nothing ran there.
    const auto before = metrics({ store, "--json", "--window", "-1s:-500ms" });
    CHECK(number(before, "runtime_ns") == 500'000'000);
    CHECK(number(before, "parallel_efficiency") == 0);
}

TEST_CASE("metrics --level gpu on TraceLens' H100 BERT trace: GPU 0 shares its pid with a "
          "python thread (issue 14)",
    "[cli][metrics][real]") {
    const auto trace = test::realTrace(
        "public/kineto-tracelens/h100/gaunernst_bert-small-uncased__1016001.json.gz");
    if (trace.empty())
        return;  // the shared real-trace folder is not here
    test::TempDir dir;
    const auto store = ingest(dir, { trace.string() });
    const auto json = metrics({ store, "--json", "--level", "gpu" });
    CHECK(number(json, "gpus") == 1);
    const auto gpus = workers(json);
    CHECK(gpus.find("\"name\":\"GPU 0\"") != std::string::npos);
    // The union of its 60 kernels, from the file's decimal ts and dur (Python's Decimal).
    CHECK(numbers(gpus, "useful_ns") == std::vector<double> { 307197 });
    CHECK(number(json, "sum_compute_ns") == 307197);
    CHECK(metrics({ store, "--level", "gpu" }).find("\nGPU 0 ") != std::string::npos);
}
