// Which pids and tids of a Kineto trace are GPUs and streams (issue 14): a hand-written
// trace of each layout oddity, and every Kineto trace under shared/data/real, whose GPUs,
// streams, compute and busy times are compared with a direct reading of the file.

#include "model/time_units.h"
#include "model/workers.h"
#include "storage/analysis/efficiency_report.h"
#include "storage/import/chrome/chrome_event_reader.h"
#include "storage/import/chrome/chrome_json_importer.h"
#include "storage/import/common/format_detect.h"
#include "storage/import/common/gzip_reader.h"
#include "storage/store/memory_trace.h"
#include "storage/store/store_builder.h"
#include "storage/store/store_reader.h"

#include "tests/support/temp_dir.h"
#include <catch2/catch.hpp>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

using namespace strata;
using model::Role;
using model::TimeNs;

namespace {

using Spans = std::vector<std::pair<TimeNs, TimeNs>>;

/// Length of the union of [start, end) spans.
TimeNs unionNs(Spans spans)
{
    std::sort(spans.begin(), spans.end());
    TimeNs total = 0;
    TimeNs coveredTo = std::numeric_limits<TimeNs>::min();
    for (const auto& [start, end] : spans) {
        const TimeNs from = std::max(start, coveredTo);
        if (end > from)
            total += end - from;
        coveredTo = std::max(coveredTo, end);
    }
    return total;
}

std::string lowered(std::string_view s)
{
    std::string out(s);
    for (char& c : out)
        c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return out;
}

/// A JSON value's text: a string's contents, a number as written.
std::string valueText(std::string_view raw)
{
    std::string scratch;
    if (auto s = storage::jsonString(raw, scratch))
        return std::string(*s);
    return std::string(raw);
}

/// One GPU as the file describes it.
struct DirectGpu
{
    std::map<std::string, std::uint64_t> activitiesByStream;  ///< by stream id
    Spans compute;  ///< compute kernels
    Spans busy;  ///< every kernel, copy and set
};

/// What a Kineto file says about its GPUs, read straight from its events, without the
/// importer's classification:
///   - a GPU activity is an X event of Kineto's kernel, copy or set categories ("kernel",
///     "gpu_memcpy", "gpu_memset"; 2021's "Kernel", "Memcpy", "Memset");
///   - it runs on the GPU its `device` arg names, else the one its pid's "GPU N"
///     process_labels names, else the one numbered like its pid; on the stream its
///     `stream` arg names, else its tid;
///   - compute kernels are the kernels that are not collectives (NCCL's, all-reduce);
///   - times are integer ns: ts and dur are decimal microseconds, each turned into ns
///     exactly from its text (model::parseDecimalScaled: digits past the ns are rounded
///     to nearest), and end = start + dur, as the importer does. Kineto's
///     baseTimeNanoseconds and the store's origin shift every event alike, so the
///     lengths of unions do not depend on them.
struct DirectTrace
{
    bool kineto = false;  ///< a top-level "schemaVersion", which Kineto always writes
    std::map<std::string, DirectGpu> gpus;  ///< by GPU number
    int badTimes = 0;  ///< activities whose ts or dur is not a decimal number
};

DirectTrace readDirect(const std::filesystem::path& path)
{
    struct Activity
    {
        std::string pid, device, stream;
        TimeNs startNs = 0, endNs = 0;
        bool compute = false;
    };
    static const std::set<std::string, std::less<>> kKernel = { "kernel", "Kernel" };
    static const std::set<std::string, std::less<>> kCopyOrSet = { "gpu_memcpy", "gpu_memset",
        "Memcpy", "Memset" };
    static const char* const kCollective[] = { "nccl", "all_reduce", "allreduce", "all_gather",
        "allgather", "reduce_scatter", "reducescatter", "alltoall", "sendrecv" };

    storage::GzipReader input(path);
    storage::ChromeEventReader reader(input, path.string(), true);
    std::map<std::string, std::string> gpuOfPid;  // from "GPU N" labels
    std::vector<Activity> activities;
    std::vector<storage::JsonField> args;
    DirectTrace out;
    while (reader.next()) {
        const auto& e = reader.event();
        const std::string ph = valueText(e.ph);
        const std::string cat = valueText(e.cat);
        const std::string name = valueText(e.name);
        if (ph == "M" && name == "process_labels" && !e.args.empty()) {
            storage::scanJsonObject(e.args, args);
            const std::string label = valueText(storage::findJsonField(args, "labels"));
            if (label.starts_with("GPU "))
                gpuOfPid[valueText(e.pid)] = label.substr(4);
            continue;
        }
        if (ph != "X" || (!kKernel.contains(cat) && !kCopyOrSet.contains(cat)))
            continue;
        Activity a;
        a.pid = valueText(e.pid);
        a.stream = valueText(e.tid);
        if (!e.args.empty()) {
            storage::scanJsonObject(e.args, args);
            if (auto device = storage::findJsonField(args, "device"); !device.empty())
                a.device = valueText(device);
            if (auto stream = storage::findJsonField(args, "stream"); !stream.empty())
                a.stream = valueText(stream);
        }
        const auto ts = model::parseDecimalScaled(valueText(e.ts), model::kNsPerUs);
        const auto dur = model::parseDecimalScaled(valueText(e.dur), model::kNsPerUs);
        if (!ts || !dur) {
            ++out.badTimes;
            continue;
        }
        a.startNs = *ts;
        a.endNs = *ts + *dur;
        const std::string n = lowered(name);
        a.compute = kKernel.contains(cat)
            && std::none_of(std::begin(kCollective), std::end(kCollective),
                [&](const char* c) { return n.find(c) != std::string::npos; });
        activities.push_back(std::move(a));
    }
    for (const auto& [key, value] : reader.topLevel())
        out.kineto = out.kineto || key == "schemaVersion";
    for (const Activity& a : activities) {
        std::string gpu = a.device;
        if (gpu.empty())
            gpu = gpuOfPid.count(a.pid) ? gpuOfPid.at(a.pid) : a.pid;
        DirectGpu& g = out.gpus[gpu];
        ++g.activitiesByStream[a.stream];
        g.busy.emplace_back(a.startNs, a.endNs);
        if (a.compute)
            g.compute.emplace_back(a.startNs, a.endNs);
    }
    return out;
}

bool isActivityCategory(std::string_view cat)
{
    return cat == "kernel" || cat == "Kernel" || cat == "gpu_memcpy" || cat == "gpu_memset"
        || cat == "Memcpy" || cat == "Memset";
}

/// "GPU 3 (rank 1)" -> "3".
std::string gpuNumber(const std::string& name)
{
    std::string n = name.starts_with("GPU ") ? name.substr(4) : name;
    return n.substr(0, n.find(' '));
}

std::filesystem::path buildStore(const std::filesystem::path& trace, const test::TempDir& dir)
{
    const auto store = dir / "run.strata";
    storage::StoreBuilder builder(store, {});
    storage::importChromeJson(trace, builder);
    builder.finish();
    return store;
}

}  // namespace

TEST_CASE("Kineto GPU layout: a GPU's pid that also holds host threads, a GPU known by its args",
    "[chrome][kineto-gpu]") {
    const auto path =
        std::filesystem::path(STRATA_TEST_DATA_DIR) / "chrome/kineto_gpu_on_host_pid.json";
    auto find = [](const model::ResourceTree& tree, const std::string& wanted) {
        for (model::TrackId id = 0; id < tree.size(); ++id) {
            if (tree.path(id) == wanted)
                return std::optional<model::TrackId>(id);
        }
        return std::optional<model::TrackId>();
    };

    SECTION("pid 0 is GPU 0 and, for its python thread, a process") {
        storage::MemoryTrace trace;
        storage::importChromeJson(path, trace);
        const auto& tree = trace.resources();
        const auto stream = find(tree, "GPU 0/stream 7");
        REQUIRE(stream);
        CHECK(tree.track(*stream).kind == model::ResourceKind::Stream);
        CHECK(tree.track(tree.track(*stream).parent).kind == model::ResourceKind::Gpu);
        CHECK(tree.track(tree.track(*stream).parent).sortKey == 5'000'000);
        CHECK(trace.track(*stream).intervals.size() == 4);
        const auto tracer = find(tree, "python3/thread 0 (python3)");
        REQUIRE(tracer);
        CHECK(tree.track(*tracer).kind == model::ResourceKind::Thread);
        CHECK(tree.track(tree.track(*tracer).parent).kind == model::ResourceKind::Process);
        CHECK(trace.track(*tracer).intervals.size() == 1);
        // No label, a category Strata does not know, but `device` and `stream` args.
        const auto sync = find(tree, "GPU 1/stream -1");
        REQUIRE(sync);
        CHECK(tree.track(tree.track(*sync).parent).kind == model::ResourceKind::Gpu);
    }

    SECTION("with a rank, the host process is the rank; the tracer's thread is apart") {
        storage::ChromeImportOptions options;
        options.rank = 2;
        storage::MemoryTrace trace;
        storage::importChromeJson(path, trace, options);
        const auto& tree = trace.resources();
        CHECK(find(tree, "rank 2/thread 300"));
        CHECK(find(tree, "rank 2: python3 0/thread 0 (python3)"));
        CHECK(find(tree, "GPU 0 (rank 2)/stream 7"));
    }

    SECTION("metrics at the GPU level see GPU 0's kernels, copy and sync") {
        test::TempDir dir;
        storage::StoreReader store(buildStore(path, dir));
        storage::EfficiencyRequest request;
        request.level = model::WorkerLevel::Gpu;
        request.allWorkers = true;
        const auto report = storage::computeEfficiency(store, request);
        std::map<std::string, model::RoleTimes> byGpu;
        for (const model::WorkerTimes& w : report.workers)
            byGpu[w.name] = w.times;
        REQUIRE(byGpu.size() == 2);
        // Kernels 120-150 us; the copy 145-160 is transfer past 150; the sync 160-165.
        CHECK(byGpu["GPU 0"].at(Role::Useful) == 30'000);
        CHECK(byGpu["GPU 0"].at(Role::Transfer) == 10'000);
        CHECK(byGpu["GPU 0"].at(Role::Sync) == 5'000);
        CHECK(byGpu["GPU 1"].at(Role::Sync) == 10'000);
        CHECK(byGpu["GPU 1"].at(Role::Useful) == 0);
        REQUIRE(report.gpu);
        CHECK(report.gpu->gpus == 2);
    }
}

TEST_CASE("Kineto GPUs of every real trace: streams hold the kernels, compute and busy time "
          "equal the file's to the ns",
    "[chrome][kineto-gpu][real]") {
    const auto root = test::realTrace(".");
    if (root.empty()) {
        WARN("shared/data/real is absent: Kineto GPUs not checked");
        return;
    }
    std::vector<std::filesystem::path> files;
    for (const auto& entry : std::filesystem::recursive_directory_iterator(root)) {
        const std::string name = entry.path().filename().string();
        if (entry.is_regular_file() && (name.ends_with(".json") || name.ends_with(".json.gz"))
            && storage::detectFormat(entry.path()) == storage::TraceFormat::Chrome)
            files.push_back(entry.path());
    }
    std::sort(files.begin(), files.end());
    int kinetoFiles = 0;
    for (const auto& file : files) {
        const std::string relative = std::filesystem::relative(file, root).string();
        INFO(relative);
        const DirectTrace direct = readDirect(file);
        if (!direct.kineto)
            continue;
        ++kinetoFiles;
        CHECK(direct.badTimes == 0);

        test::TempDir dir;
        storage::StoreReader store(buildStore(file, dir));
        const auto& tree = store.resources();
        const model::TimeRange all { store.span().startNs, store.span().endNs + 1 };
        // Every kernel, copy and set lies on a stream of a GPU.
        std::map<std::string, std::map<std::string, std::uint64_t>> storedByGpu;
        std::vector<std::string> misplaced;
        for (const model::TrackInfo& t : tree.tracks()) {
            for (const model::Interval& i : store.intervals(t.id, all.startNs, all.endNs)) {
                if (!isActivityCategory(store.strings().text(i.category)))
                    continue;
                if (t.kind != model::ResourceKind::Stream
                    || tree.track(t.parent).kind != model::ResourceKind::Gpu) {
                    misplaced.push_back(tree.path(t.id));
                    continue;
                }
                std::string stream = t.name.starts_with("stream ") ? t.name.substr(7) : t.name;
                ++storedByGpu[gpuNumber(tree.track(t.parent).name)][stream];
            }
        }
        {
            INFO("kernels, copies or sets off a GPU's streams, e.g. on "
                << (misplaced.empty() ? "-" : misplaced.front()));
            CHECK(misplaced.size() == 0);
        }
        std::map<std::string, std::map<std::string, std::uint64_t>> expectedByGpu;
        for (const auto& [gpu, g] : direct.gpus)
            expectedByGpu[gpu] = g.activitiesByStream;
        CHECK(storedByGpu == expectedByGpu);

        // Compute time (useful, with the device priority: compute kernels win) and busy
        // time (useful + comm + transfer) of each GPU worker, exact.
        storage::RoleTimeReader roles(store, {});
        const auto workers = model::workersAt(tree, model::WorkerLevel::Gpu,
            [&](model::TrackId t) { return store.summary(t).intervals > 0; });
        std::set<std::string> seen;
        for (const model::Worker& w : workers) {
            const std::string gpu = gpuNumber(w.name);
            if (!direct.gpus.count(gpu))
                continue;  // a device without kernels (MTIA) or pseudo-rows: no reference
            seen.insert(gpu);
            INFO("GPU " << gpu);
            const auto times =
                roles.exactRoleTimes(w.tracks, store.activitySpan(), model::kDeviceWorker);
            const DirectGpu& g = direct.gpus.at(gpu);
            CHECK(times.at(Role::Useful) == unionNs(g.compute));
            CHECK(times.at(Role::Useful) + times.at(Role::Comm) + times.at(Role::Transfer)
                == unionNs(g.busy));
        }
        CHECK(seen.size() == direct.gpus.size());

        // `strata metrics --level gpu` lists the same GPUs with the same compute time.
        storage::EfficiencyRequest request;
        request.level = model::WorkerLevel::Gpu;
        request.allWorkers = true;
        const auto report = storage::computeEfficiency(store, request);
        for (const auto& [gpu, g] : direct.gpus) {
            const auto it = std::find_if(report.workers.begin(), report.workers.end(),
                [&](const model::WorkerTimes& w) { return gpuNumber(w.name) == gpu; });
            INFO("GPU " << gpu);
            REQUIRE(it != report.workers.end());
            const TimeNs compute = unionNs(g.compute);
            CHECK(std::abs(it->times.at(Role::Useful) - compute) <= it->times.error(Role::Useful));
        }
    }
    if (kinetoFiles == 0)
        WARN("no Kineto trace under shared/data/real");
}
