#pragma once
// The POP scaling table across runs of one code (BSC's modelfactors): one column per
// run, ordered by processes then threads, the first being the reference (ref). Per run,
// with U = total useful time (sum over threads), I and C the useful instructions and
// cycles, P = processes x threads, T the runtime:
//
//   GE = PE x CompS                           (PE, LB, CommE, SerE, TE of the run itself)
//   CompS = U_ref / U             [x P / P_ref when weak]
//   InsS  = I_ref / I             [x P / P_ref when weak]
//   IPCS  = IPC / IPC_ref,        IPC  = I / C
//   FreqS = f / f_ref,            f    = C / U   (cycles per ns = GHz)
//   Speedup = T_ref / T           [x P / P_ref when weak]
// so CompS = InsS x IPCS x FreqS exactly when every run has counters.
//
// Weak or strong scaling is guessed as modelfactors does: the mean over the runs after
// the reference of (I / I_ref) / (P / P_ref) is above 0.9 for weak scaling (the work
// grows with the processes) and near 1 / P for strong scaling. Without counters in every
// run, useful time stands in for instructions. modelfactors counts MPI processes in P;
// here P counts processes x threads, so a thread-scaling series of one process is not
// mistaken for weak scaling.

#include "model/time_units.h"

#include <optional>
#include <string>
#include <vector>

namespace strata::model {

enum class Scaling { Strong, Weak };

/// What one run contributes (from its efficiency report and counters).
struct RunFactors
{
    std::string store;
    int processes = 0;
    int threads = 1;  ///< per process (the most of any process)
    TimeNs runtimeNs = 0;
    double parallelEfficiency = 0, loadBalance = 0, communicationEfficiency = 0;
    std::optional<double> serializationEfficiency, transferEfficiency;
    TimeNs usefulNs = 0;  ///< total useful time, summed over threads
    std::optional<double> instructions, cycles;  ///< useful, when the run has counters
};

struct ScalingColumn
{
    RunFactors run;
    double computationScalability = 0;
    double globalEfficiency = 0;
    std::optional<double> instructionScalability, ipcScalability, frequencyScalability;
    double speedup = 0;
    std::optional<double> averageIpc, averageFrequencyGhz;
};

struct ScalingTable
{
    std::vector<ScalingColumn> columns;  ///< by processes, then threads; [0] = reference
    Scaling scaling = Scaling::Strong;  ///< used
    Scaling detected = Scaling::Strong;  ///< guessed from the runs
    bool detectedFromInstructions = false;  ///< else from useful time
};

/// One row of the table as text, JSON and the GUI show it, in modelfactors' order.
struct ScalingRow
{
    const char* label;  ///< "Global efficiency", ...
    int indent;  ///< depth in the multiplicative tree (GE = PE x CompS, ...)
    bool efficiency;  ///< a 0..1 efficiency or scalability: coloured on POP's scale
    std::optional<double> (*value)(const ScalingColumn&);
};
/// GE, PE, LB, CommE, SerE, TE, CompS, instruction / IPC / frequency scalability,
/// speedup, average useful IPC and frequency (runtime and processes x threads are not
/// numbers of the same kind: formatters add them).
const std::vector<ScalingRow>& scalingRows();

/// The table of `runs` (any order); `force` overrides the guess.
ScalingTable scalingTable(std::vector<RunFactors> runs, std::optional<Scaling> force = {});

}  // namespace strata::model
