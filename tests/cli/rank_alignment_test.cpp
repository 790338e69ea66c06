// Rank files read once each, with their own time 0, then moved to the earliest one's
// (app::RankAlignment), give the store of the same files prescanned first and imported
// with the common time 0 (the way `strata-mpi` and ingests with join files still go).

#include "app/ingest_plan.h"
#include "storage/import/chrome/chrome_json_importer.h"
#include "storage/store/store_builder.h"

#include "tests/support/run_command.h"
#include "tests/support/temp_dir.h"
#include <catch2/catch.hpp>

#include <fstream>

using namespace strata;

namespace {

std::string alignedAfter(const std::vector<std::string>& files, const std::filesystem::path& store)
{
    storage::StoreBuildOptions buildOptions;
    buildOptions.memoryBudgetBytes = 64 << 10;  // spills: the move reaches spilled events
    storage::StoreBuilder builder(store, buildOptions);
    app::RankAlignment alignment;
    for (std::size_t i = 0; i < files.size(); ++i) {
        storage::ChromeImportOptions options;
        options.rank = static_cast<int>(i);
        const auto first = static_cast<model::TrackId>(builder.resources().size());
        const storage::ImportStats stats = storage::importChromeJson(files[i], builder, options);
        alignment.imported(builder, first, static_cast<model::TrackId>(builder.resources().size()),
            stats.originNs);
    }
    alignment.align();
    builder.finish();
    return test::readFile(store);
}

std::string prescannedFirst(
    const std::vector<std::string>& files, const std::filesystem::path& store)
{
    std::vector<storage::ChromePrescan> prescans;
    std::optional<model::TimeNs> origin;
    for (const std::string& file : files) {
        prescans.push_back(storage::prescanChromeJson(file));
        if (prescans.back().originNs)
            origin =
                std::min(origin.value_or(*prescans.back().originNs), *prescans.back().originNs);
    }
    storage::StoreBuilder builder(store);
    for (std::size_t i = 0; i < files.size(); ++i) {
        storage::ChromeImportOptions options;
        options.rank = static_cast<int>(i);
        options.originNs = origin;
        options.prescan = prescans[i];
        storage::importChromeJson(files[i], builder, options);
    }
    builder.finish();
    return test::readFile(store);
}

}  // namespace

TEST_CASE("ingest: rank files aligned after their import equal rank files prescanned first",
    "[cli][shards]") {
    test::TempDir dir;
    // Different clocks: one with baseTimeNanoseconds, its earliest event after the
    // other's; one whose earliest event is not its first; one read in two passes (an X
    // without dur).
    std::ofstream(dir / "r0.json") << R"({"baseTimeNanoseconds":1000000,"traceEvents":[
        {"ph":"X","name":"a","cat":"cpu_op","pid":1,"tid":1,"ts":50,"dur":10},
        {"ph":"C","name":"mem","pid":1,"ts":55,"args":{"used":3,"free":4}},
        {"ph":"s","cat":"ac2g","name":"f","id":1,"pid":1,"tid":1,"ts":51},
        {"ph":"X","name":"k","cat":"kernel","pid":0,"tid":7,"ts":58,"dur":3,"args":{"device":0,"stream":7}},
        {"ph":"f","bp":"e","cat":"ac2g","name":"f","id":1,"pid":0,"tid":7,"ts":58}]})";
    std::ofstream(dir / "r1.json") << R"({"traceEvents":[
        {"ph":"X","name":"b","cat":"cpu_op","pid":2,"tid":1,"ts":900,"dur":10},
        {"ph":"B","name":"c","pid":2,"tid":1,"ts":800},
        {"ph":"M","name":"process_name","pid":2,"args":{"name":"trainer"}}]})";
    std::ofstream(dir / "r2.json") << R"({"traceEvents":[
        {"ph":"X","name":"d","pid":3,"tid":1,"ts":700},
        {"ph":"X","name":"e","pid":3,"tid":1,"ts":705,"dur":2}]})";
    const std::vector<std::string> files { (dir / "r0.json").string(), (dir / "r1.json").string(),
        (dir / "r2.json").string() };
    const std::string after = alignedAfter(files, dir / "after.strata");
    CHECK(after.size() > 1000);
    CHECK((after == prescannedFirst(files, dir / "first.strata")));

    const std::vector<std::string> ddp = test::realDdpRankFiles();
    if (ddp.empty())
        return;  // the shared real-trace folder is not here
    CHECK((alignedAfter(ddp, dir / "ddp_after.strata")
        == prescannedFirst(ddp, dir / "ddp_first.strata")));
}
