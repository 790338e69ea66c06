#include "app/ingest_job.h"

#include "app/file_import.h"
#include "app/ingest_plan.h"
#include "app/output_guard.h"
#include "storage/import/chrome/chrome_json_importer.h"
#include "storage/store/input_error.h"
#include "storage/store/run_builder.h"
#include "storage/store/run_manifest.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <exception>
#include <functional>
#include <mutex>
#include <thread>

namespace strata::app {

namespace {

using storage::TraceFormat;

TraceFormat formatOf(const IngestRequest& request, const std::filesystem::path& input)
{
    return request.format ? *request.format : storage::detectFormat(input);
}

storage::ProgressFn phase(const IngestProgress& progress, std::string name)
{
    if (!progress)
        return {};
    return [progress, name = std::move(name)](std::uint64_t done, std::uint64_t total) {
        return progress(name, done, total);
    };
}

} // namespace

std::string sourceSignature(const std::vector<std::filesystem::path>& inputs)
{
    std::string signature;
    for (const std::filesystem::path& input : inputs) {
        std::error_code ec;
        const auto size = std::filesystem::file_size(input, ec);
        const auto time = std::filesystem::last_write_time(input, ec).time_since_epoch().count();
        // Normalised, so "./x.json" and "x.json" are the same file.
        signature += std::filesystem::absolute(input).lexically_normal().string() + "|"
            + std::to_string(size) + "|" + std::to_string(time) + ";";
    }
    return signature;
}

void checkInputs(const IngestRequest& request)
{
    for (const std::filesystem::path& input : request.inputs) {
        std::error_code ec;
        // An OTF2 archive may be given as its folder.
        if (!std::filesystem::is_regular_file(input, ec) && !std::filesystem::is_directory(input, ec))
            throw storage::InputError(input.string() + ": no such file");
        const TraceFormat format = formatOf(request, input);
        if (format == TraceFormat::Strata)
            throw storage::InputError(input.string()
                + ": already a Strata store: open it as is (strata FILE), or cut it (strata cut)");
        if (format == TraceFormat::Unknown)
            throw storage::InputError::atByte(input.string(), 0,
                                              "expected a trace (Chrome/Kineto JSON, Paraver, nsys, ncu, counters "
                                              "CSV, folded stacks, perf script, OTF2): format not recognised");
        if (!isSupported(format))
            throw storage::InputError(input.string() + ": format '" + std::string(storage::formatName(format))
                                      + "' detected; it is not supported yet");
    }
}

int shardsFor(const IngestRequest& request, std::size_t traces, std::size_t joins, std::uint64_t traceBytes)
{
    // Files that join to the traces (Nsight Compute, counter logs) join across all of
    // them, so such an ingest stays one store; so does one file.
    if (joins > 0 || traces < 2)
        return 1;
    if (request.shards > 0)
        return static_cast<int>(std::min<std::size_t>(static_cast<std::size_t>(request.shards), traces));
    if (traceBytes < kShardFromBytes)
        return 1;
    const auto bySize = static_cast<std::size_t>((traceBytes + kBytesPerShard - 1) / kBytesPerShard);
    return static_cast<int>(std::min(traces, std::max<std::size_t>(bySize, static_cast<std::size_t>(request.threads))));
}

namespace {

/// Progress of parallel workers as one bar: bytes read of all inputs. Calls are
/// serialized, since the bar and the dialog are not thread-safe.
class SharedReadProgress
{
public:
    SharedReadProgress(const IngestProgress& progress, std::size_t files, std::uint64_t totalBytes)
        : m_progress(progress)
        , m_done(files, 0)
        , m_total(totalBytes)
        , m_phase("reading " + std::to_string(files) + " files")
    {
    }
    storage::ProgressFn forFile(std::size_t file)
    {
        if (!m_progress)
            return {};
        return [this, file](std::uint64_t done, std::uint64_t) {
            std::lock_guard lock(m_mutex);
            m_sum += done - m_done[file];
            m_done[file] = done;
            return !m_cancelled && (m_cancelled = !m_progress(m_phase, m_sum, m_total), !m_cancelled);
        };
    }

private:
    const IngestProgress& m_progress;
    std::mutex m_mutex;
    std::vector<std::uint64_t> m_done;
    std::uint64_t m_sum = 0;
    std::uint64_t m_total;
    std::string m_phase;
    bool m_cancelled = false;
};

/// Workers that take the groups of consecutive files (one group per shard) in turn and
/// run a job on each file of a group; the first error in input order is the one thrown,
/// and it stops the other workers.
class ShardWorkers
{
public:
    using Job = std::function<void(int shard, std::size_t file, const storage::ProgressFn&)>;

    ShardWorkers(int threads, int shards, std::vector<std::size_t> firstFiles,
        const IngestProgress& progress, std::uint64_t totalBytes)
        : m_threads(std::min(threads, shards))
        , m_shards(shards)
        , m_first(std::move(firstFiles))
        , m_reading(progress, m_first.back(), totalBytes)
    {}

    /// Runs `job` on every file, by m_threads workers; returns when all are done.
    void run(const Job& job)
    {
        std::atomic<int> nextShard { 0 };
        std::atomic<bool> failed { false };
        std::vector<std::exception_ptr> errors(m_first.back());
        auto worker = [&] {
            for (int k = nextShard++; k < m_shards && !failed; k = nextShard++) {
                for (std::size_t i = m_first[k]; i < m_first[k + 1] && !failed; ++i) {
                    try {
                        storage::ProgressFn fileProgress = m_reading.forFile(i);
                        job(k, i, [&, fileProgress](std::uint64_t done, std::uint64_t total) {
                            return !failed && (!fileProgress || fileProgress(done, total));
                        });
                    } catch (...) {
                        errors[i] = std::current_exception();
                        failed = true;
                    }
                }
            }
        };
        std::vector<std::thread> threads;
        for (int t = 1; t < m_threads; ++t)
            threads.emplace_back(worker);
        worker();
        for (std::thread& t : threads)
            t.join();
        // A real error first; a worker stopped by another's failure reports Cancelled.
        for (int pass = 0; pass < 2; ++pass) {
            for (const std::exception_ptr& e : errors) {
                if (!e)
                    continue;
                try {
                    std::rethrow_exception(e);
                } catch (const storage::Cancelled&) {
                    if (pass == 1)
                        throw;
                } catch (...) {
                    if (pass == 0)
                        throw;
                }
            }
        }
    }

private:
    const int m_threads;
    const int m_shards;
    const std::vector<std::size_t> m_first;
    SharedReadProgress m_reading;
};

} // namespace

IngestSummary ingestTraces(const IngestRequest& request, const IngestProgress& progress)
{
    const auto started = std::chrono::steady_clock::now();
    checkInputs(request);
    checkOutputSparesInputs(request.output, request.inputs);
    checkStoreOutputReplaceable(request.output);
    IngestSummary summary;

    // A recorder between the importers and the builder remembers the traces' kernels and
    // origin for the files that join to them (imported after them, ingest_plan.h).
    const IngestPlan plan = planIngest(request);
    const auto& traces = plan.traces;
    const auto& joins = plan.joins;
    summary.inputBytes = plan.inputBytes;

    storage::RunBuildOptions options;
    options.shards = shardsFor(request, traces.size(), joins.size(), summary.inputBytes);
    options.threads = request.threads;
    options.concurrentShards = request.threads;  // the files' workers tile side by side too
    options.progress = phase(progress, "tiling");
    storage::RunBuilder run(request.output, options);

    // Chrome rank files are read once each (chrome_json_importer.h), then moved to the
    // earliest one's time 0. When other files join to them, or other formats come beside
    // them, each Chrome file's pass 1 comes first, so that the ranks agree on time 0 before
    // any is imported; each import then reads its file once more.
    ImportContext context;
    std::vector<storage::ChromePrescan> prescans(traces.size());
    context.chromePrescans = &prescans;
    RankAlignment alignment;
    const bool alignAfter = alignsRanksAfter(plan);
    const bool prescanFirst = traces.size() > 1 && !alignAfter;  // a lone file: read once
    if (alignAfter)
        context.alignment = &alignment;
    std::vector<std::vector<std::string>> warnings(request.inputs.size());
    if (run.shardCount() == 1) {
        context.scanThreads = request.threads;
        for (std::size_t i = 0; i < traces.size() && prescanFirst; ++i)
            prescans[i] = prescanTraceFile(plan, i, request.threads,
                phase(progress, "reading " + traces[i].filename().string()));
        context.originNs = ranksOrigin(plan, prescans);
        storage::StoreBuilder& builder = run.shard(0);
        storage::KernelRecorder recorder(builder);
        storage::TraceSink& sink = joins.empty() ? static_cast<storage::TraceSink&>(builder) : recorder;
        context.recorder = joins.empty() ? nullptr : &recorder;
        for (std::size_t i = 0; i < traces.size(); ++i)
            warnings[i] = importTraceFile(plan, i, sink, builder, context,
                                      phase(progress, "reading " + traces[i].filename().string()));
        // Files that join to traces may add only metrics, unless nothing at all came
        // before the last of them.
        for (std::size_t i = 0; i < joins.size(); ++i) {
            const std::size_t index = traces.size() + i;
            ImportResult result = importFile(joins[i], plan.formatOf(joins[i]), sink, builder, index, context,
                                             phase(progress, "reading " + joins[i].filename().string()));
            warnings[index] = std::move(result.warnings);
            if (i + 1 == joins.size() && builder.eventCount() == 0)
                throw storage::InputError("no events in " + joins[i].string() + ": " + result.noEventsReason);
        }
    } else {
        // Shards of consecutive files, parsed and tiled by parallel workers.
        ShardWorkers workers(request.threads, run.shardCount(),
            groupsBySize(plan.traceSizes, run.shardCount()), progress, summary.inputBytes);
        if (prescanFirst) {
            workers.run([&](int, std::size_t i, const storage::ProgressFn& fileProgress) {
                prescans[i] = prescanTraceFile(plan, i, 1, fileProgress);
            });
            context.originNs = ranksOrigin(plan, prescans);
        }
        workers.run([&](int k, std::size_t i, const storage::ProgressFn& fileProgress) {
            warnings[i] =
                importTraceFile(plan, i, run.shard(k), run.shard(k), context, fileProgress);
        });
    }
    alignment.align();
    for (const std::vector<std::string>& lines : warnings)
        summary.warnings.insert(summary.warnings.end(), lines.begin(), lines.end());
    std::string sources;
    for (const auto* group : {&traces, &joins}) {
        for (const std::filesystem::path& input : *group)
            sources += (sources.empty() ? "" : ";") + input.string();
    }
    run.setMeta("source", sources);
    run.setMeta("source_signature", sourceSignature(request.inputs));
    run.finish();
    summary.events = run.eventCount();
    summary.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    return summary;
}

std::string summaryLine(const IngestRequest& request, const IngestSummary& summary)
{
    const std::uint64_t storeBytes = storage::storeBytes(request.output);
    const auto print = [&](char* buffer, std::size_t size) {
        return std::snprintf(buffer, size,
            "ingested %llu events from %zu file(s) (%.1f MB) into %s (%.1f MB) in %.2f s",
            static_cast<unsigned long long>(summary.events), request.inputs.size(),
            static_cast<double>(summary.inputBytes) / 1e6, request.output.c_str(),
            static_cast<double>(storeBytes) / 1e6, summary.seconds);
    };
    std::string line(static_cast<std::size_t>(print(nullptr, 0)), '\0');
    print(line.data(), line.size() + 1);
    return line;
}

std::string_view phaseUnit(std::string_view phase)
{
    return phase.starts_with("reading ") ? "B" : "tracks";
}

} // namespace strata::app
