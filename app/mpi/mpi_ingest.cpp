// `mpirun -n K strata-mpi ingest INPUT... -o STORE`: the trace files are dealt to the
// ranks in consecutive groups balanced by size (ingest_plan.h); each rank parses and tiles
// its group into one shard in STORE's shard folder (a shared filesystem across nodes),
// with the run's origin and span agreed by collectives; rank 0 gathers the shard files
// and publishes the manifest (run_builder.h). Every failure is voted on by all ranks, so
// the job ends on every rank with rank 0's one error line, no manifest and no shard of
// this build left, and the old store untouched.

#include "app/ingest_plan.h"
#include "app/mpi/chrome_split.h"
#include "app/mpi/mpi_comm.h"
#include "app/mpi/mpi_commands.h"
#include "app/mpi/mpi_progress.h"
#include "app/mpi/paraver_split.h"
#include "app/output_guard.h"
#include "storage/store/input_error.h"
#include "storage/store/run_builder.h"
#include "storage/store/run_manifest.h"

#include <chrono>
#include <cstdio>
#include <limits>
#include <map>

namespace strata::app::mpi {

namespace {

/// Ends the job after a failure: every rank removes its shard, then rank 0 the shard
/// folder if that left it empty, and prints the error.
int fail(const Comm& comm, const std::string& error, const std::filesystem::path& shard,
         const std::filesystem::path& output)
{
    std::error_code ec;
    if (!shard.empty())
        std::filesystem::remove(shard, ec);
    comm.barrier();
    if (comm.root()) {
        std::filesystem::remove(storage::shardFolder(output), ec);  // only if empty
        std::fprintf(stderr, "strata-mpi: %s\n", error.c_str());
    }
    return kExitBadInput;
}

} // namespace

int ingestCommand(const Comm& comm, const Args& args)
{
    const auto started = std::chrono::steady_clock::now();
    const IngestRequest request = ingestRequestFrom(args);
    const IngestPlan plan = planIngest(request);
    // Checked once, on rank 0, before any rank writes.
    std::string error = comm.broadcast(comm.root() ? attempt([&] {
        checkInputs(request);
        checkOutputSparesInputs(request.output, request.inputs);
        checkStoreOutputReplaceable(request.output);
        if (!plan.joins.empty())
            throw storage::InputError(plan.joins.front().string()
                                      + ": files that join to the traces (Nsight Compute, counter logs) need the "
                                        "whole run in one process: use strata ingest");
        storage::prepareShardFolder(request.output);
    })
                                                   : std::string());
    if (!error.empty())
        return fail(comm, error, {}, request.output);

    const bool paraverSplit = splitsParaver(comm, plan);
    const bool split = paraverSplit || splitsChrome(comm, plan);
    const int groups = static_cast<int>(std::min<std::size_t>(static_cast<std::size_t>(comm.size()), plan.traces.size()));
    const std::vector<std::size_t> first = groupsBySize(plan.traceSizes, groups);
    const bool mine = comm.rank() < groups;
    const std::size_t begin = mine ? first[static_cast<std::size_t>(comm.rank())] : 0;
    const std::size_t end = mine ? first[static_cast<std::size_t>(comm.rank()) + 1] : 0;
    constexpr auto kNone = std::numeric_limits<std::int64_t>::max();

    // Phase 1: each rank imports its files into its shard, rank 0 showing every rank's
    // reading, and the ranks agree on time 0: after, for rank files each read once
    // (RankAlignment), else from each Chrome file's pass 1 made first; or the ranks share
    // one Paraver file's lines (paraver_split.h) or one Chrome file's events
    // (chrome_split.h).
    std::uint64_t myBytes = 0;
    for (std::size_t i = begin; i < end; ++i)
        myBytes += plan.traceSizes[i];
    ImportContext context;
    std::vector<storage::ChromePrescan> prescans(plan.traces.size());
    context.chromePrescans = &prescans;
    RankAlignment alignment;
    const bool alignAfter = !split && alignsRanksAfter(plan);
    if (alignAfter)
        context.alignment = &alignment;
    if (!split && !alignAfter) {
        {
            // Its bar ends before the collectives below; the import's goes on from where it
            // stopped (a file's pass 1 is its first 30 %).
            MpiReadProgress scanning(comm, plan.traces.size(), plan.inputBytes, end - begin, myBytes);
            error = attempt([&] {
                for (std::size_t i = begin; i < end; ++i)
                    prescans[i] =
                        prescanTraceFile(plan, i, request.threads, scanning.forFile(i - begin));
            });
            scanning.finish();
        }
        if (const std::string failed = comm.firstError(error); !failed.empty())
            return fail(comm, failed, {}, request.output);
        const std::int64_t origin = comm.min(ranksOrigin(plan, prescans).value_or(kNone));
        if (origin != kNone)
            context.originNs = origin;
    }

    const std::filesystem::path shard = mine || split
        ? storage::shardTempFile(request.output, comm.rank())
        : std::filesystem::path();
    std::unique_ptr<storage::StoreBuilder> builder;
    std::string warnings;
    std::map<std::string, std::string> report;
    if (split) {
        try {
            SplitShare share = paraverSplit ? importParaverSplit(comm, plan, shard)
                                            : importChromeSplit(comm, plan, shard);
            builder = std::move(share.builder);
            report = std::move(share.report);
            for (const std::string& line : share.warnings)
                warnings += line + "\n";
        } catch (const AgreedError& e) {
            return fail(comm, e.what(), {}, request.output);
        }
    } else {
        MpiReadProgress progress(comm, plan.traces.size(), plan.inputBytes, end - begin, myBytes);
        error = attempt([&] {
            if (!mine)
                return;
            storage::StoreBuildOptions options;
            options.threads = request.threads;
            builder = std::make_unique<storage::StoreBuilder>(shard, options);
            for (std::size_t i = begin; i < end; ++i) {
                for (const std::string& line : importTraceFile(
                         plan, i, *builder, *builder, context, progress.forFile(i - begin)))
                    warnings += line + "\n";
            }
        });
        progress.finish();
        if (const std::string failed = comm.firstError(error); !failed.empty()) {
            builder.reset();  // removes its temporary file before the folder goes
            return fail(comm, failed, {}, request.output);
        }
        if (alignAfter) {
            const std::int64_t origin = comm.min(alignment.earliest().value_or(kNone));
            if (origin != kNone)
                alignment.alignTo(origin);
        }
    }
    for (const std::string& lines : comm.gather(warnings))
        std::fputs(lines.c_str(), stderr);

    // Phase 2: every shard gets the run's span (one LOD grid), then is tiled.
    const auto span = builder ? builder->eventSpan() : std::nullopt;
    const std::int64_t runStart = comm.min(span ? span->startNs : kNone);
    const std::int64_t runEnd = comm.max(span ? span->endNs : std::numeric_limits<std::int64_t>::min());
    const std::int64_t events = comm.sum(builder ? static_cast<std::int64_t>(builder->eventCount()) : 0);
    std::string checksum;  // of this rank's shard, taken here rather than by rank 0 for all
    error = attempt([&] {
        if (!builder)
            return;
        if (runStart != kNone)
            builder->extendSpan({runStart, runEnd});
        builder->finish();
        checksum = storage::fileChecksum(shard);
    });
    if (const std::string failed = comm.firstError(error); !failed.empty())
        return fail(comm, failed, shard, request.output);

    // Phase 3: rank 0 publishes the shards, in rank order (= the files' order).
    const std::vector<std::string> files = comm.gather(builder ? shard.string() : std::string());
    const std::vector<std::string> fileChecksums = comm.gather(checksum);
    error = comm.broadcast(comm.root() ? attempt([&] {
        std::vector<std::filesystem::path> shards;
        std::vector<std::string> checksums;
        for (std::size_t r = 0; r < files.size(); ++r) {
            if (!files[r].empty()) {
                shards.emplace_back(files[r]);
                checksums.push_back(fileChecksums[r]);
            }
        }
        std::string sources;
        for (const auto& input : plan.traces)
            sources += (sources.empty() ? "" : ";") + input.string();
        report["source"] = sources;
        report["source_signature"] = sourceSignature(request.inputs);
        storage::publishRun(request.output, shards, checksums, report);
    })
                                       : std::string());
    if (!error.empty())
        return fail(comm, error, shard, request.output);
    if (comm.root()) {
        IngestSummary summary;
        summary.events = static_cast<std::uint64_t>(events);
        summary.inputBytes = plan.inputBytes;
        summary.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
        std::fprintf(stderr, "%s on %d ranks%s\n", summaryLine(request, summary).c_str(),
            comm.size(), split ? ", the file split between them" : "");
    }
    return kExitOk;
}

} // namespace strata::app::mpi
