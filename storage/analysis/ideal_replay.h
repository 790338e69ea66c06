#pragma once
// Ideal-network replay: the run again on an instantaneous network (zero latency, infinite
// bandwidth, no contention), as Dimemas' ideal configuration that BSC's modelfactors uses
// for POP's serialization and transfer efficiencies.
//
// Each process is its sequence of MPI calls, with the traced time between them (its
// computation bursts, which keep their durations):
//
//     0 ── gap ──[call 0]── gap ──[call 1]── ... ──[call n-1]── tail ── end
//
// On the ideal network a call takes no time of its own; it ends as soon as what it waits
// for is there:
//   - a receive (any call where a message of the trace arrives: MPI_Recv, MPI_Wait,
//     MPI_Sendrecv, ...) when its matched send has been issued: at the ideal start of the
//     sender's call that sent it;
//   - a collective when its last participant arrives (the k-th collective of every
//     process that makes at least k + 1 of them, i.e. all on one communicator);
//   - any other call (sends are eager, MPI_Init, MPI_Comm_rank, ...) at once.
// T_ideal is the latest ideal end of a process. The calls are replayed in dependency
// order with a ready queue: a process runs until a call waits for a sender that has not
// reached its send, or for a collective not everyone reached, and is woken when that
// process moves on. Each call and each message is handled O(1) times amortized, so the
// replay is linear in the records (bench: "replay records/s").
//
// Which intervals are MPI calls and which flows are messages is read from the store by
// buildReplayInput (replay_input.cpp).

#include "model/time_units.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace strata::storage {

struct ReplayCall
{
    model::TimeNs gapNs = 0;  ///< traced time since the previous call's end (or the run's start)
    std::int32_t collective = -1;  ///< index among this process's collectives, or -1
    std::uint32_t firstMessage = 0;  ///< its received messages: ReplayInput::messages[first..)
    std::uint32_t messageCount = 0;
};

/// A message received by a call: sent by `process` during its call `call`.
struct ReplayMessage
{
    std::uint32_t process = 0;
    std::uint32_t call = 0;
};

struct ReplayProcess
{
    std::string name;
    std::vector<ReplayCall> calls;
    model::TimeNs tailNs = 0;  ///< traced time after the last call
};

struct ReplayInput
{
    std::vector<ReplayProcess> processes;
    std::vector<ReplayMessage> messages;  ///< grouped by receiving call
    std::uint64_t records() const;  ///< calls + messages
};

struct ReplayResult
{
    model::TimeNs idealRuntimeNs = 0;
    std::vector<model::TimeNs> idealEndNs;  ///< per process
    /// Set when the replay could not finish (a call waiting for a send that comes later
    /// on its sender); idealRuntimeNs is then 0.
    std::optional<std::string> error;
};

/// Replays `input` on the ideal network (see the file comment).
ReplayResult replayIdeal(const ReplayInput& input);

}  // namespace strata::storage
