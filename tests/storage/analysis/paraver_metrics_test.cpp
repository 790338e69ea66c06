// POP metrics of Paraver stores as BSC's modelfactors computes them (issue 14, item 4):
// useful time = time in state Running (value 1) only, runtime = the header's end time.
// The real EPOCH runs (1 to 16 ranks) and ImageMagick's OpenMP run are checked against a
// computation made here straight from their state records, independent of the importer.
// Issue 19 adds their hardware counters, scaling table and ideal replay.

#include "model/scaling.h"
#include "storage/analysis/efficiency_report.h"
#include "storage/export/trace_cut.h"
#include "storage/import/paraver/paraver_importer.h"
#include "storage/store/store_builder.h"
#include "storage/store/store_reader.h"

#include "tests/support/temp_dir.h"
#include <catch2/catch.hpp>
#include <zlib.h>

#include <algorithm>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

using namespace strata;
using model::TimeNs;

namespace {

/// The POP figures of a run from its .prv alone: per task (appl, task) the union of its
/// threads' Running states, T the header's end time.
struct DirectPop
{
    TimeNs runtimeNs = 0;
    std::vector<TimeNs> usefulNs;  ///< per task, in header order
    double pe = 0, lb = 0, commE = 0;
};

std::vector<std::string> split(const std::string& line, char sep)
{
    std::vector<std::string> out;
    std::stringstream in(line);
    for (std::string field; std::getline(in, field, sep);)
        out.push_back(field);
    return out;
}

TimeNs unionLength(std::vector<std::pair<TimeNs, TimeNs>> ranges)
{
    std::sort(ranges.begin(), ranges.end());
    TimeNs total = 0, start = 0, end = -1;
    for (const auto& [s, e] : ranges) {
        if (s > end) {
            total += std::max<TimeNs>(0, end - start);
            start = s;
            end = e;
        } else {
            end = std::max(end, e);
        }
    }
    return total + std::max<TimeNs>(0, end - start);
}

DirectPop directPop(const std::filesystem::path& prv)
{
    gzFile in = gzopen(prv.string().c_str(), "rb");  // reads plain files as they are
    REQUIRE(in != nullptr);
    std::vector<char> buffer(1 << 16);
    std::string header;
    std::map<std::pair<int, int>, std::vector<std::pair<TimeNs, TimeNs>>> running;
    while (gzgets(in, buffer.data(), static_cast<int>(buffer.size()))) {
        std::string line(buffer.data());
        REQUIRE(line.back() == '\n');  // no line of these traces is longer than the buffer
        line.pop_back();
        if (header.empty()) {
            header = line;
            continue;
        }
        if (line.rfind("1:", 0) != 0)
            continue;
        const auto f = split(line, ':');  // 1:cpu:appl:task:thread:begin:end:state
        REQUIRE(f.size() == 8);
        if (f[7] == "1")
            running[{ std::stoi(f[2]), std::stoi(f[3]) }].emplace_back(
                std::stoll(f[5]), std::stoll(f[6]));
    }
    gzclose(in);
    // #Paraver (dd/mm/yyyy at hh:mm):END_ns:...
    const auto afterDate = header.find("):");
    REQUIRE(afterDate != std::string::npos);
    const std::string end = split(header.substr(afterDate + 2), ':').front();
    REQUIRE(end.size() > 3);
    REQUIRE(end.substr(end.size() - 3) == "_ns");
    DirectPop d;
    d.runtimeNs = std::stoll(end.substr(0, end.size() - 3));
    for (auto& [task, ranges] : running)
        d.usefulNs.push_back(unionLength(std::move(ranges)));
    REQUIRE(!d.usefulNs.empty());
    double sum = 0;
    for (TimeNs u : d.usefulNs)
        sum += static_cast<double>(u);
    const double mean = sum / static_cast<double>(d.usefulNs.size());
    const auto max = static_cast<double>(*std::max_element(d.usefulNs.begin(), d.usefulNs.end()));
    const auto T = static_cast<double>(d.runtimeNs);
    d.pe = mean / T;
    d.lb = mean / max;
    d.commE = max / T;
    return d;
}

std::filesystem::path ingest(const std::filesystem::path& prv, const std::filesystem::path& store)
{
    storage::StoreBuilder builder(store);
    storage::importParaver(prv, builder);
    builder.finish();
    return store;
}

storage::EfficiencyReport processMetrics(storage::StoreReader& store, int maxSlots = 4096)
{
    storage::EfficiencyRequest request;
    request.level = model::WorkerLevel::Process;
    request.maxSlots = maxSlots;
    return storage::computeEfficiency(store, request);
}

void writeFile(const std::filesystem::path& path, const std::string& text)
{
    std::ofstream(path, std::ios::binary) << text;
}

}  // namespace

TEST_CASE("Paraver process metrics equal modelfactors' (useful = Running, T = header end) on "
          "the EPOCH and OpenMP runs",
    "[paraver][metrics][real]") {
    const std::vector<std::string> runs = {
        "public/paraver-pypop/epoch_example_traces/epoch_1proc.prv.gz",
        "public/paraver-pypop/epoch_example_traces/epoch_2proc.prv.gz",
        "public/paraver-pypop/epoch_example_traces/epoch_4proc.prv.gz",
        "public/paraver-pypop/epoch_example_traces/epoch_8proc.prv.gz",
        "public/paraver-pypop/epoch_example_traces/epoch_16proc.prv.gz",
        "public/paraver-pypop/imagemagick_example_traces/omp4.prv.gz",
    };
    for (const std::string& run : runs) {
        const std::filesystem::path prv = test::realTrace(run);
        if (prv.empty())
            continue;  // the shared real-trace folder is not here
        INFO(run);
        const DirectPop direct = directPop(prv);
        test::TempDir dir;
        storage::StoreReader store(ingest(prv, dir / "run.strata"));
        storage::EfficiencyReport report = processMetrics(store);
        CHECK(report.pop.runtimeNs == direct.runtimeNs);
        REQUIRE(report.workers.size() == direct.usefulNs.size());
        if (!report.exact) {
            // The pyramid's estimate (omp4: four threads mixed per bucket) lies within its
            // bound; enough slots to read every event make it exact.
            CHECK(std::abs(report.pop.parallelEfficiency - direct.pe) <= report.pop.errorBound);
            report = processMetrics(store, 1 << 20);
            REQUIRE(report.exact);
        }
        for (std::size_t i = 0; i < direct.usefulNs.size(); ++i)
            CHECK(report.workers[i].times.at(model::Role::Useful) == direct.usefulNs[i]);
        CHECK(report.pop.parallelEfficiency == Approx(direct.pe).epsilon(0).margin(1e-6));
        CHECK(report.pop.loadBalance == Approx(direct.lb).epsilon(0).margin(1e-6));
        CHECK(report.pop.communicationEfficiency == Approx(direct.commE).epsilon(0).margin(1e-6));
    }
}

TEST_CASE("a Paraver store's runtime is its header's end time, from 0", "[paraver][metrics]") {
    test::TempDir dir;
    // Records from 100 to 800 ns; the header says the run lasted 1000 ns.
    writeFile(dir / "t.prv",
        "#Paraver (01/02/2023 at 10:00):1000_ns:1(2):1:2(1:1,1:1)\n"
        "1:1:1:1:1:100:600:1\n1:1:1:1:1:600:800:13\n1:2:1:2:1:100:400:1\n");
    storage::StoreReader store(ingest(dir / "t.prv", dir / "t.strata"));
    const storage::EfficiencyReport report = processMetrics(store);
    CHECK(report.window.startNs == 0);
    CHECK(report.window.endNs == 1000);
    CHECK(report.pop.runtimeNs == 1000);
    CHECK(report.pop.parallelEfficiency == Approx(400.0 / 1000));
    CHECK(report.pop.communicationEfficiency == Approx(500.0 / 1000));

    // A cut keeps its source's meta; its run is its own span, not the source's header.
    {
        storage::StoreBuilder builder(dir / "cut.strata");
        storage::CutOptions options;
        options.window = model::TimeRange { 200, 500 };
        storage::cutTrace(store, builder, options);
        builder.finish();
    }
    storage::StoreReader cut(dir / "cut.strata");
    REQUIRE(cut.meta("paraver_end_ns") == std::optional<std::string>("1000"));
    CHECK(processMetrics(cut).pop.runtimeNs == 300);
}

namespace {

/// Useful instructions and cycles of a run straight from its records: per thread, the
/// PAPI_TOT_INS / PAPI_TOT_CYC readings (increments since the previous one) that close a
/// Running state (s < t <= e), the first reading of a timestamp only.
struct DirectCounters
{
    double instructions = 0, cycles = 0;
};

DirectCounters directCounters(const std::filesystem::path& prv)
{
    gzFile in = gzopen(prv.string().c_str(), "rb");
    REQUIRE(in != nullptr);
    std::vector<char> buffer(1 << 16);
    using Thread = std::tuple<int, int, int>;
    std::map<Thread, std::vector<std::pair<TimeNs, TimeNs>>> running;
    struct Reading
    {
        TimeNs t;
        double ins, cyc;
    };
    std::map<Thread, std::vector<Reading>> readings;
    bool header = true;
    while (gzgets(in, buffer.data(), static_cast<int>(buffer.size()))) {
        std::string line(buffer.data());
        REQUIRE(line.back() == '\n');
        line.pop_back();
        if (std::exchange(header, false))
            continue;
        const auto f = split(line, ':');
        if (f.size() < 8 || (f[0] != "1" && f[0] != "2"))
            continue;
        const Thread thread { std::stoi(f[2]), std::stoi(f[3]), std::stoi(f[4]) };
        if (f[0] == "1") {
            if (f[7] == "1")
                running[thread].emplace_back(std::stoll(f[5]), std::stoll(f[6]));
            continue;
        }
        Reading r { std::stoll(f[5]), -1, -1 };
        for (std::size_t i = 6; i + 1 < f.size(); i += 2) {
            if (f[i] == "42000050")
                r.ins = std::stod(f[i + 1]);
            else if (f[i] == "42000059")
                r.cyc = std::stod(f[i + 1]);
        }
        if (r.ins >= 0 || r.cyc >= 0)
            readings[thread].push_back(r);
    }
    gzclose(in);
    DirectCounters d;
    for (auto& [thread, list] : readings) {
        auto& states = running[thread];
        std::sort(states.begin(), states.end());
        std::stable_sort(
            list.begin(), list.end(), [](const Reading& a, const Reading& b) { return a.t < b.t; });
        TimeNs previous = -1;
        for (const Reading& r : list) {
            if (std::exchange(previous, r.t) == r.t)
                continue;
            auto after = std::lower_bound(states.begin(), states.end(), std::pair { r.t, r.t });
            if (after == states.begin())
                continue;
            const auto& [s, e] = *std::prev(after);
            if (s < r.t && r.t <= e) {
                d.instructions += std::max(0.0, r.ins);
                d.cycles += std::max(0.0, r.cyc);
            }
        }
    }
    return d;
}

}  // namespace

TEST_CASE("EPOCH 1 to 16 ranks: useful IPC and frequency from the PAPI records, the scaling "
          "table's identities, and the ideal replay against Dimemas (issue 19)",
    "[paraver][metrics][real][replay]") {
    struct Run
    {
        int ranks;
        double usefulInstructions;  ///< modelfactors.csv of pypop's examples (paramedir)
        double idealRuntimeUs;  ///< the same file's "Runtime (ideal)" (Dimemas)
    };
    const std::vector<Run> runs = { { 1, 84790848422.0, 21884758.97 },
        { 2, 87640358419.0, 11504370.09 }, { 4, 88518412143.0, 6051059.08 },
        { 8, 90063308642.0, 3486349.43 }, { 16, 93158874793.0, 2310335.96 } };
    std::vector<model::RunFactors> factors;
    test::TempDir dir;
    for (const Run& run : runs) {
        const std::string name = "epoch_" + std::to_string(run.ranks) + "proc";
        const std::filesystem::path prv =
            test::realTrace("public/paraver-pypop/epoch_example_traces/" + name + ".prv.gz");
        if (prv.empty())
            return;  // the shared real-trace folder is not here
        INFO(name);
        const DirectCounters direct = directCounters(prv);
        storage::StoreReader store(ingest(prv, dir / (name + ".strata")));
        storage::EfficiencyRequest request;
        request.level = model::WorkerLevel::Process;
        request.counters = true;
        request.idealReplay = true;
        const storage::EfficiencyReport r = storage::computeEfficiency(store, request);
        CHECK(r.exact);
        REQUIRE(r.counters);
        CHECK(r.counters->complete());
        CHECK(r.counters->instructions() == direct.instructions);
        CHECK(r.counters->cycles() == direct.cycles);
        CHECK(r.counters->instructions() == run.usefulInstructions);
        INFO(r.replayUnavailable);
        REQUIRE(r.idealRuntimeNs);
        // Dimemas models MPI calls a little differently (equal at 1 and 2 ranks).
        CHECK(static_cast<double>(*r.idealRuntimeNs)
            == Approx(run.idealRuntimeUs * 1000).epsilon(1e-3));
        CHECK(*r.pop.serializationEfficiency * *r.pop.transferEfficiency
            == Approx(r.pop.communicationEfficiency).epsilon(0).margin(1e-12));
        model::RunFactors f;
        f.store = name;
        f.processes = run.ranks;
        f.runtimeNs = r.pop.runtimeNs;
        f.parallelEfficiency = r.pop.parallelEfficiency;
        f.usefulNs = r.counters->usefulNs();
        f.instructions = r.counters->instructions();
        f.cycles = r.counters->cycles();
        factors.push_back(f);
    }
    std::reverse(factors.begin(), factors.end());  // the table orders them itself
    const model::ScalingTable table = model::scalingTable(factors);
    CHECK(table.detected == model::Scaling::Strong);
    CHECK(table.detectedFromInstructions);
    REQUIRE(table.columns.size() == 5);
    CHECK(table.columns.front().run.processes == 1);
    for (const model::ScalingColumn& c : table.columns) {
        INFO(c.run.store);
        CHECK(c.computationScalability * c.run.parallelEfficiency
            == Approx(c.globalEfficiency).epsilon(0).margin(1e-9));
        REQUIRE(c.instructionScalability);
        CHECK(*c.instructionScalability * *c.ipcScalability * *c.frequencyScalability
            == Approx(c.computationScalability).epsilon(0).margin(1e-9));
    }
    // modelfactors.csv: 16 ranks, computation scalability 61.436394 %, IPC 1.539955.
    CHECK(table.columns.back().computationScalability == Approx(0.61436394).margin(1e-6));
    CHECK(*table.columns.back().averageIpc == Approx(1.539955).margin(1e-6));
}
