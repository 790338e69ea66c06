// The POP scaling table across runs (model/scaling.h): ordering, the reference, strong or
// weak scaling as modelfactors guesses it, forcing, and the factors' identities.

#include "model/scaling.h"

#include <catch2/catch.hpp>

using namespace strata::model;

namespace {

RunFactors run(int processes, int threads, TimeNs runtimeNs, double pe, TimeNs usefulNs,
    std::optional<double> instructions, std::optional<double> cycles)
{
    RunFactors r;
    r.store = std::to_string(processes) + "x" + std::to_string(threads);
    r.processes = processes;
    r.threads = threads;
    r.runtimeNs = runtimeNs;
    r.parallelEfficiency = pe;
    r.usefulNs = usefulNs;
    r.instructions = instructions;
    r.cycles = cycles;
    return r;
}

}  // namespace

TEST_CASE("scaling table: strong scaling, reference = fewest processes then threads", "[scaling]") {
    // Same work (1000 instructions) split over more processes: strong scaling.
    const ScalingTable t =
        scalingTable({ run(4, 1, 300, 0.8, 1200, 1100, 1500), run(2, 2, 500, 0.9, 1100, 1050, 1200),
            run(1, 1, 1000, 1.0, 1000, 1000, 1000), run(2, 1, 520, 0.95, 1050, 1020, 1100) });
    CHECK(t.detected == Scaling::Strong);
    CHECK(t.scaling == Scaling::Strong);
    CHECK(t.detectedFromInstructions);
    REQUIRE(t.columns.size() == 4);
    CHECK(t.columns[0].run.store == "1x1");
    CHECK(t.columns[1].run.store == "2x1");
    CHECK(t.columns[2].run.store == "2x2");
    CHECK(t.columns[3].run.store == "4x1");
    const ScalingColumn& c = t.columns[3];
    CHECK(c.computationScalability == Approx(1000.0 / 1200.0));
    CHECK(c.globalEfficiency == Approx(0.8 * 1000.0 / 1200.0));
    CHECK(c.speedup == Approx(1000.0 / 300.0));
    CHECK(*c.instructionScalability == Approx(1000.0 / 1100.0));
    CHECK(*c.averageIpc == Approx(1100.0 / 1500.0));
    CHECK(*c.averageFrequencyGhz == Approx(1500.0 / 1200.0));
    for (const ScalingColumn& col : t.columns) {
        CHECK(*col.instructionScalability * *col.ipcScalability * *col.frequencyScalability
            == Approx(col.computationScalability).epsilon(1e-12));
    }
}

TEST_CASE("scaling table: weak scaling detected from instruction growth, and forced", "[scaling]") {
    // The work grows with the processes: 1000, 2050, 4300 instructions on 1, 2, 4.
    const std::vector<RunFactors> runs = { run(1, 1, 1000, 1.0, 1000, 1000, 1000),
        run(2, 1, 1100, 0.9, 2100, 2050, 2200), run(4, 1, 1300, 0.8, 4500, 4300, 4800) };
    const ScalingTable weak = scalingTable(runs);
    CHECK(weak.detected == Scaling::Weak);
    CHECK(weak.scaling == Scaling::Weak);
    const ScalingColumn& c = weak.columns[2];
    CHECK(c.computationScalability == Approx(1000.0 / 4500.0 * 4));
    CHECK(c.speedup == Approx(1000.0 / 1300.0 * 4));
    CHECK(*c.instructionScalability == Approx(1000.0 / 4300.0 * 4));
    CHECK(*c.instructionScalability * *c.ipcScalability * *c.frequencyScalability
        == Approx(c.computationScalability).epsilon(1e-12));

    const ScalingTable forced = scalingTable(runs, Scaling::Strong);
    CHECK(forced.detected == Scaling::Weak);
    CHECK(forced.scaling == Scaling::Strong);
    CHECK(forced.columns[2].computationScalability == Approx(1000.0 / 4500.0));
}

TEST_CASE("scaling table: a run without counters has no IPC, frequency or their scalability",
    "[scaling]") {
    const ScalingTable t =
        scalingTable({ run(1, 1, 1000, 1.0, 1000, 1000, 1000), run(2, 1, 600, 0.9, 1100, {}, {}) });
    CHECK_FALSE(t.detectedFromInstructions);  // guessed from useful time instead
    CHECK(t.detected == Scaling::Strong);
    CHECK(t.columns[0].averageIpc);
    CHECK_FALSE(t.columns[1].averageIpc);
    CHECK_FALSE(t.columns[1].instructionScalability);
    CHECK(t.columns[1].computationScalability == Approx(1000.0 / 1100.0));
    // A single run is its own reference, strong.
    const ScalingTable one = scalingTable({ run(8, 1, 100, 0.5, 400, 10, 20) });
    CHECK(one.scaling == Scaling::Strong);
    CHECK(one.columns[0].computationScalability == 1.0);
    CHECK(one.columns[0].speedup == 1.0);
}
