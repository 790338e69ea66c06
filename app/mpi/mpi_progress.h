#pragma once
// MpiReadProgress: rank 0's progress bar of `strata-mpi ingest`, covering every rank's
// reading (bytes read of all inputs), drawn only when mpirun's stderr is a terminal.
//
// A rank's stderr is a pipe to mpirun (Open MPI forwards it, partial lines included), so
// rank 0 asks whether its launcher's stderr is a terminal (/proc/PPID/fd/2) and tells the
// others (one broadcast). Only then do messages flow: each non-root rank sends its running
// sum (two uint64: bytes read, last?) with MPI_Isend, at most ~10 times a second and never
// with a send in flight; rank 0 drains them with MPI_Iprobe in its own progress callback.
// finish(), called by every rank before the next collective, ends the traffic: a non-root
// rank waits for its send in flight and sends its last sum (flagged last); rank 0 receives
// until every rank's last has come. So no message is left unreceived and no request open
// when the job moves on or finalizes.
//
// MPI is called only from the thread that built the object (MPI_Init gives one thread):
// progress reported from another thread is counted, and sent with the next report or the
// last sum.

#include "app/mpi/rank_progress.h"
#include "app/progress_bar.h"
#include "storage/store/progress.h"

#include <memory>
#include <mutex>
#include <thread>

namespace strata::app::mpi {

class Comm;
struct MpiRequest;

/// Whether this process's stderr, or (under mpirun) its launcher's, is a terminal.
bool launcherStderrIsTerminal();

class MpiReadProgress
{
public:
    /// Collective. `files`: the run's trace files, of `totalBytes`; `myFiles`: this rank's,
    /// of `myBytes`.
    MpiReadProgress(const Comm& comm, std::size_t files, std::uint64_t totalBytes,
        std::size_t myFiles, std::uint64_t myBytes);
    ~MpiReadProgress();
    /// The progress callback of this rank's file `myFile` (0-based among its files).
    storage::ProgressFn forFile(std::size_t myFile);
    /// Ends the messages (see the class comment); every rank calls it once.
    void finish();

private:
    void report(std::size_t myFile, std::uint64_t done);
    void receive(bool wait);
    void send(bool last);

    const Comm& m_comm;
    bool m_shown = false;  ///< rank 0 draws: messages flow
    std::uint64_t m_total = 0;
    std::uint64_t m_myTotal = 0;
    std::unique_ptr<ProgressBar> m_bar;  ///< rank 0
    RunningTotal m_files;  ///< this rank's files
    RunningTotal m_ranks;  ///< rank 0: every rank's sum
    SendThrottle m_throttle { std::chrono::milliseconds(100) };
    int m_lastsReceived = 0;
    std::uint64_t m_message[2] = { 0, 0 };  ///< the send in flight (non-root)
    std::unique_ptr<MpiRequest> m_request;
    std::thread::id m_mpiThread;
    std::mutex m_mutex;
    bool m_finished = false;
};

}  // namespace strata::app::mpi
