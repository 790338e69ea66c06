#include "bench/replay_bench.h"

#include "storage/analysis/ideal_replay.h"
#include "storage/analysis/replay_input.h"
#include "storage/store/store_builder.h"

#include "bench/bench_support.h"

#include <algorithm>
#include <random>

namespace strata::bench {

namespace {

constexpr int kRanks = 64;
constexpr int kCollectiveEvery = 32;

/// Iterations per rank for about `records` records (3 per iteration and rank).
long long iterationsFor(long long records)
{
    return std::max(1LL, records / (3LL * kRanks));
}

storage::ReplayInput ringInput(long long iterations)
{
    std::mt19937_64 rng(19);
    storage::ReplayInput in;
    in.processes.resize(kRanks);
    for (int r = 0; r < kRanks; ++r) {
        auto& calls = in.processes[static_cast<std::size_t>(r)].calls;
        calls.reserve(static_cast<std::size_t>(iterations * 2 + iterations / kCollectiveEvery));
    }
    // Call index of each rank's send in iteration i: 2 i + the collectives before it.
    auto sendIndex = [](long long i) {
        return static_cast<std::uint32_t>(2 * i + i / kCollectiveEvery);
    };
    std::int32_t collective = 0;
    for (long long i = 0; i < iterations; ++i) {
        for (int r = 0; r < kRanks; ++r) {
            auto& calls = in.processes[static_cast<std::size_t>(r)].calls;
            if (i > 0 && i % kCollectiveEvery == 0)
                calls.push_back({ 0, collective, 0, 0 });
            calls.push_back({ static_cast<model::TimeNs>(100 + rng() % 900), -1, 0, 0 });
            const auto first = static_cast<std::uint32_t>(in.messages.size());
            in.messages.push_back(
                { static_cast<std::uint32_t>((r + kRanks - 1) % kRanks), sendIndex(i) });
            calls.push_back({ 0, -1, first, 1 });
        }
        if (i > 0 && i % kCollectiveEvery == 0)
            ++collective;
    }
    return in;
}

/// The same ring as a store: one thread per rank, MPI_Send / MPI_Recv / MPI_Allreduce
/// intervals of category "MPI Point-to-point" / "MPI Collective Comm", and flows.
void writeRingStore(const std::filesystem::path& path, long long iterations)
{
    storage::StoreBuilder builder(path);
    const auto p2p = builder.strings().intern("MPI Point-to-point");
    const auto coll = builder.strings().intern("MPI Collective Comm");
    const auto sendName = builder.strings().intern("MPI_Send");
    const auto recvName = builder.strings().intern("MPI_Recv");
    const auto allreduce = builder.strings().intern("MPI_Allreduce");
    const auto message = builder.strings().intern("message");
    std::vector<model::TrackId> threads;
    for (int r = 0; r < kRanks; ++r) {
        const auto process = builder.addTrack(
            model::kNoTrack, model::ResourceKind::Process, "rank " + std::to_string(r), r);
        threads.push_back(builder.addTrack(process, model::ResourceKind::Thread, "thread 1"));
    }
    // Lockstep in time: iteration i's send at 1000 i + 500, receive until 1000 i + 900.
    std::vector<std::uint32_t> seq(kRanks, 0);
    for (long long i = 0; i < iterations; ++i) {
        const model::TimeNs t = i * 1000;
        for (int r = 0; r < kRanks; ++r) {
            const auto track = threads[static_cast<std::size_t>(r)];
            auto& s = seq[static_cast<std::size_t>(r)];
            if (i > 0 && i % kCollectiveEvery == 0)
                builder.addInterval(
                    track, { t, t + 100, allreduce, coll, 0, model::Role::Comm, s++ });
            builder.addInterval(
                track, { t + 500, t + 510, sendName, p2p, 0, model::Role::Comm, s++ });
            builder.addInterval(
                track, { t + 510, t + 900, recvName, p2p, 0, model::Role::Comm, s++ });
            builder.addFlow(track,
                { t + 505, threads[static_cast<std::size_t>((r + 1) % kRanks)], t + 890, message,
                    64, 0 });
        }
    }
    builder.finish();
}

template<typename Fn>
double medianRecordsPerSecond(std::uint64_t records, Fn fn)
{
    std::vector<double> rates;
    for (int run = 0; run < 5; ++run) {
        const auto start = Clock::now();
        fn();
        rates.push_back(static_cast<double>(records) / (msSince(start) / 1000.0));
    }
    return percentile(rates, 0.5);
}

}  // namespace

std::vector<Metric> runReplayBench(long long records, void (*report)(const Metric&))
{
    MetricLog log { report, {} };
    {
        const storage::ReplayInput in = ringInput(iterationsFor(records));
        log({ "replay records", static_cast<double>(in.records()), "records", "in memory" });
        log({ "replay records/s",
            medianRecordsPerSecond(in.records(),
                [&] {
                    if (storage::replayIdeal(in).error)
                        throw std::runtime_error("replay bench: the ring did not replay");
                }),
            "records/s", "in memory" });
    }
    const auto folder = scratchFolder("strata-replay-bench");
    const auto store = folder / "ring.strata";
    writeRingStore(store, iterationsFor(records / 5));
    {
        storage::StoreReader reader(store);
        const model::TimeRange run = reader.span();
        auto replayStore = [&] {
            auto in = storage::buildReplayInput(reader, run);
            if (!std::holds_alternative<storage::ReplayInput>(in))
                throw std::runtime_error("replay bench: " + std::get<std::string>(in));
            if (storage::replayIdeal(std::get<storage::ReplayInput>(in)).error)
                throw std::runtime_error("replay bench: the ring store did not replay");
            return std::get<storage::ReplayInput>(in).records();
        };
        const std::uint64_t n = replayStore();  // also warms the tile cache
        log({ "replay records", static_cast<double>(n), "records", "from store" });
        log({ "replay records/s", medianRecordsPerSecond(n, replayStore), "records/s",
            "from store" });
    }
    std::filesystem::remove_all(folder);
    return log.metrics;
}

}  // namespace strata::bench
