#include "app/arg_parser.h"
#include "app/commands.h"
#include "app/ingest_job.h"
#include "model/json_text.h"
#include "storage/store/store_reader.h"

#include "bench/flame_bench.h"
#include "bench/replay_bench.h"
#include "bench/store_bench.h"
#include "bench/variability_bench.h"

#include <algorithm>
#include <cstdio>

namespace strata::app {

namespace {

void printJsonLine(const bench::Metric& m)
{
    std::string line = "{\"metric\": " + model::jsonString(m.name) + ", \"value\": ";
    char value[64];
    std::snprintf(value, sizeof value, "%.6g", m.value);
    line += value;
    line += ", \"unit\": " + model::jsonString(m.unit);
    if (!m.caseName.empty())
        line += ", \"case\": " + model::jsonString(m.caseName);
    line += "}\n";
    std::fputs(line.c_str(), stdout);
    std::fflush(stdout);
}

void printProgress(const bench::Metric& m)
{
    std::fprintf(stderr, "  %-24s %-6s %14.4g %s\n", m.name.c_str(), m.caseName.c_str(), m.value,
        m.unit.c_str());
}

}  // namespace

int benchCommand(const Args& args)
{
    ArgParser p(args, { "--events", "--queries", "--store", "--runs" },
        { "--quick", "--json", "--no-ingest", "--flame", "--replay", "--variability" });
    bench::BenchOptions options;
    options.quick = p.flag("--quick");
    if (p.value("--events"))
        options.eventCounts = { p.integer("--events", 0, 1000, 1'000'000'000) };
    options.queries = static_cast<int>(p.integer("--queries", 400, 10, 100000));
    options.ingest = !p.flag("--no-ingest");
    options.ingestRuns = static_cast<int>(p.integer("--runs", options.quick ? 1 : 3, 1, 99));
    if (const auto store = p.value("--store")) {
        storage::StoreReader validate(*store);  // a bad store is one error line, here
        options.store = *store;
    }
    options.ingestFiles = [](const std::vector<std::filesystem::path>& inputs, const std::filesystem::path& store,
                             int workers) {
        IngestRequest request;
        request.inputs = inputs;
        request.output = store;
        request.threads = workers;
        request.shards = static_cast<int>(inputs.size());
        ingestTraces(request);
    };
    const bool json = p.flag("--json");
    const long long events =
        options.eventCounts.empty() ? 10'000'000 : options.eventCounts.front();
    const auto report = json ? printJsonLine : printProgress;
    std::vector<bench::Metric> metrics;
    if (p.flag("--replay"))
        metrics = bench::runReplayBench(events, report);
    else if (p.flag("--variability"))
        metrics = bench::runVariabilityBench({ events, 3, options.store }, report);
    else if (p.flag("--flame"))
        metrics = bench::runFlameBench({ events, p.value("--queries") ? options.queries : 40 }, report);
    else
        metrics = bench::runStoreBench(options, report);
    if (json)
        return kExitOk;
    // The readable table: one row per metric, one column per case.
    std::vector<std::string> cases;
    std::vector<std::string> names;
    for (const auto& m : metrics) {
        if (!m.caseName.empty() && std::find(cases.begin(), cases.end(), m.caseName) == cases.end())
            cases.push_back(m.caseName);
        if (std::find(names.begin(), names.end(), m.name) == names.end())
            names.push_back(m.name);
    }
    std::printf("\n| metric | unit |");
    for (const auto& c : cases)
        std::printf(" %s |", c.c_str());
    std::printf(" headline |\n|---|---|");
    for (std::size_t i = 0; i <= cases.size(); ++i)
        std::printf("---|");
    std::printf("\n");
    for (const auto& name : names) {
        std::string unit;
        std::vector<std::string> cells(cases.size() + 1, "");
        for (const auto& m : metrics) {
            if (m.name != name)
                continue;
            unit = m.unit;
            char v[64];
            std::snprintf(v, sizeof v, "%.4g", m.value);
            const auto it = std::find(cases.begin(), cases.end(), m.caseName);
            cells[m.caseName.empty() ? cases.size()
                                     : static_cast<std::size_t>(it - cases.begin())] = v;
        }
        std::printf("| %s | %s |", name.c_str(), unit.c_str());
        for (const auto& c : cells)
            std::printf(" %s |", c.c_str());
        std::printf("\n");
    }
    return kExitOk;
}

}  // namespace strata::app
