#include "tests/support/random_trace.h"

#include <cmath>
#include <random>

namespace strata::test {

namespace {

struct Rng
{
    std::mt19937_64 engine;
    double uniform() { return static_cast<double>(engine() >> 11) / 9007199254740992.0; }
    std::int64_t below(std::int64_t n) { return n <= 0 ? 0 : static_cast<std::int64_t>(engine() % static_cast<std::uint64_t>(n)); }
    /// Log-uniform in [1, max]: every magnitude equally likely.
    std::int64_t logUniform(std::int64_t max) { return static_cast<std::int64_t>(std::exp(uniform() * std::log(static_cast<double>(max)))); }
};

/// Fills [startNs, endNs) at `depth` with a sequence of intervals and recursion.
void fill(Rng& rng, storage::MemoryTrace& trace, model::TrackId track, model::TimeNs startNs,
          model::TimeNs endNs, model::Depth depth, int& budget)
{
    const model::StringId names[] = {trace.intern("gemm"), trace.intern("relu"), trace.intern("nccl:allreduce"),
                                     trace.intern("memcpy"), trace.intern("wait"), trace.intern("step"),
                                     trace.intern("softmax"), trace.intern("layernorm")};
    const model::StringId cat = trace.intern(depth == 0 ? "cpu_op" : "kernel");
    model::TimeNs t = startNs;
    while (t < endNs && budget > 0) {
        t += rng.below(4) == 0 ? 0 : rng.logUniform(std::max<model::TimeNs>(1, (endNs - startNs) / 20));
        if (t >= endNs)
            break;
        const model::TimeNs dur = std::min(endNs - t, rng.below(10) == 0 ? 0 : rng.logUniform(std::max<model::TimeNs>(1, (endNs - startNs) / 4)));
        model::Interval e;
        e.startNs = t;
        e.endNs = t + dur;
        e.depth = depth;
        e.name = names[rng.below(8)];
        e.category = cat;
        e.role = static_cast<model::Role>(rng.below(model::kRoleCount));
        --budget;
        const std::string args = rng.below(3) == 0 ? "{\"i\":" + std::to_string(budget) + "}" : std::string();
        trace.addInterval(track, e, args);
        if (depth < 4 && dur > 10 && rng.below(3) != 0)
            fill(rng, trace, track, e.startNs, e.endNs, static_cast<model::Depth>(depth + 1), budget);
        t = e.endNs;
    }
}

} // namespace

void makeRandomTrace(const RandomTraceOptions& options, storage::MemoryTrace& trace)
{
    Rng rng{std::mt19937_64(options.seed)};
    trace.setMeta("origin_ns", "1700000000000000000");
    std::vector<std::vector<model::TrackId>> nodeThreads;
    for (int n = 0; n < options.nodes; ++n) {
        const std::string k = std::to_string(n);
        const auto node = trace.addTrack(model::kNoTrack, model::ResourceKind::Node, "node " + k, n);
        const auto process = trace.addTrack(node, model::ResourceKind::Process, "rank " + k);
        std::vector<model::TrackId> threads;
        for (int i = 0; i < options.threads; ++i)
            threads.push_back(trace.addTrack(process, model::ResourceKind::Thread, "thread " + std::to_string(i), i));
        nodeThreads.push_back(threads);
        const auto counter = trace.addTrack(process, model::ResourceKind::Counter, "power", 0, "W");

        for (const model::TrackId track : threads) {
            constexpr int kSegments = 64;
            for (int seg = 0; seg < kSegments; ++seg) {
                int budget = options.intervalsPerThread / kSegments;
                fill(rng, trace, track, options.spanNs * seg / kSegments, options.spanNs * (seg + 1) / kSegments, 0,
                     budget);
            }
            for (int i = 0; i < 200; ++i) {
                trace.addInstant(track, {rng.below(options.spanNs), trace.intern(i % 2 ? "mark" : "tick"), trace.intern("user")},
                                 i % 5 ? "" : "{\"k\":1}");
            }
            for (int i = 0; i < 300; ++i) {
                const model::TimeNs from = rng.below(options.spanNs);
                trace.addFlow(track, {from, threads[rng.below(threads.size())], from + rng.below(100000),
                                      trace.intern("ac2g"), static_cast<std::uint64_t>(rng.below(4096)), i});
            }
            // Nodes after the first call a frame of their own, so their stacks differ.
            const model::StackId root = trace.internStack(0, trace.intern("main"));
            const model::StackId leaf = trace.internStack(root, trace.intern(n == 0 ? "compute" : "compute@" + k));
            for (int i = 0; i < 100; ++i)
                trace.addStackSample(track, {rng.below(options.spanNs), i % 2 ? root : leaf});
        }
        model::TimeNs t = 0;
        for (int i = 0; i < options.countersPerTrack; ++i) {
            // Bursts of samples, repeated timestamps and long silences.
            t += rng.below(10) == 0 ? rng.logUniform(options.spanNs / 10) : rng.below(3) == 0 ? 0 : rng.logUniform(5000);
            if (t >= options.spanNs)
                break;
            trace.addCounterSample(counter, {t, std::round(rng.uniform() * 1000) / 4});
        }
    }
    for (int n = 0; options.nodes > 1 && n < options.nodes; ++n) {
        for (const model::TrackId track : nodeThreads[static_cast<std::size_t>(n)]) {
            for (int i = 0; i < options.crossNodeFlowsPerThread; ++i) {
                const auto other = static_cast<std::size_t>(
                    (n + 1 + static_cast<int>(rng.below(options.nodes - 1))) % options.nodes);
                const auto& to = nodeThreads[other];
                const model::TimeNs from = rng.below(options.spanNs);
                trace.addFlow(track,
                    { from, to[rng.below(to.size())], from + rng.below(1000000),
                        trace.intern("message"), static_cast<std::uint64_t>(rng.below(1 << 20)),
                        i });
            }
        }
    }
}

} // namespace strata::test
