#include "app/mpi/mpi_progress.h"

#include "app/mpi/mpi_comm.h"

#include <fcntl.h>
#include <mpi.h>
#include <unistd.h>

#include <string>

namespace strata::app::mpi {

namespace {

constexpr int kProgressTag = 7301;

}  // namespace

struct MpiRequest
{
    MPI_Request request = MPI_REQUEST_NULL;
};

bool launcherStderrIsTerminal()
{
    if (::isatty(STDERR_FILENO))
        return true;
    // Opening /proc/PID/fd/2 opens what that descriptor names (a pseudo-terminal, a pipe).
    const std::string parent = "/proc/" + std::to_string(::getppid()) + "/fd/2";
    const int fd = ::open(parent.c_str(), O_WRONLY | O_NOCTTY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0)
        return false;
    const bool terminal = ::isatty(fd) != 0;
    ::close(fd);
    return terminal;
}

MpiReadProgress::MpiReadProgress(const Comm& comm, std::size_t files, std::uint64_t totalBytes,
    std::size_t myFiles, std::uint64_t myBytes)
    : m_comm(comm)
    , m_total(totalBytes)
    , m_myTotal(myBytes)
    , m_files(myFiles)
    , m_ranks(static_cast<std::size_t>(comm.size()))
    , m_request(std::make_unique<MpiRequest>())
    , m_mpiThread(std::this_thread::get_id())
{
    m_shown = comm.broadcast(comm.root() && launcherStderrIsTerminal() ? "1" : "") == "1";
    if (m_shown && comm.root())
        m_bar =
            std::make_unique<ProgressBar>("reading " + std::to_string(files) + " files", "B", true);
}

MpiReadProgress::~MpiReadProgress()
{
    // finish() ran on every path of the ingest; a send still in flight here would be a bug,
    // and cancelling it keeps MPI_Finalize from waiting on it.
    if (m_request->request != MPI_REQUEST_NULL) {
        MPI_Cancel(&m_request->request);
        MPI_Wait(&m_request->request, MPI_STATUS_IGNORE);
    }
}

storage::ProgressFn MpiReadProgress::forFile(std::size_t myFile)
{
    if (!m_shown)
        return {};
    return [this, myFile](std::uint64_t done, std::uint64_t) {
        report(myFile, done);
        return true;
    };
}

void MpiReadProgress::report(std::size_t myFile, std::uint64_t done)
{
    std::lock_guard lock(m_mutex);
    const std::uint64_t sum = m_files.set(myFile, done);
    if (std::this_thread::get_id() != m_mpiThread || m_finished)
        return;
    if (m_comm.root()) {
        m_ranks.set(0, sum);
        receive(false);
        m_bar->update(m_ranks.sum(), m_total);
        return;
    }
    if (m_request->request != MPI_REQUEST_NULL) {
        int sent = 0;
        MPI_Test(&m_request->request, &sent, MPI_STATUS_IGNORE);
        if (!sent)
            return;  // the next report carries a newer sum
    }
    if (m_throttle.due(sum, m_myTotal, SendThrottle::Clock::now()))
        send(false);
}

void MpiReadProgress::send(bool last)
{
    m_message[0] = m_files.sum();
    m_message[1] = last ? 1 : 0;
    MPI_Isend(m_message, 2, MPI_UINT64_T, 0, kProgressTag, MPI_COMM_WORLD, &m_request->request);
}

void MpiReadProgress::receive(bool wait)
{
    for (;;) {
        MPI_Status status;
        int ready = 0;
        if (wait)
            MPI_Probe(MPI_ANY_SOURCE, kProgressTag, MPI_COMM_WORLD, &status);
        else
            MPI_Iprobe(MPI_ANY_SOURCE, kProgressTag, MPI_COMM_WORLD, &ready, &status);
        if (!wait && !ready)
            return;
        std::uint64_t message[2];
        MPI_Recv(message, 2, MPI_UINT64_T, status.MPI_SOURCE, kProgressTag, MPI_COMM_WORLD,
            MPI_STATUS_IGNORE);
        m_ranks.set(static_cast<std::size_t>(status.MPI_SOURCE), message[0]);
        if (message[1] != 0)
            ++m_lastsReceived;
        if (wait)
            return;
    }
}

void MpiReadProgress::finish()
{
    std::lock_guard lock(m_mutex);
    if (m_finished || !m_shown)
        return;
    m_finished = true;
    if (m_comm.root()) {
        m_ranks.set(0, m_files.sum());
        while (m_lastsReceived < m_comm.size() - 1) {
            receive(true);
            m_bar->update(m_ranks.sum(), m_total);
        }
        m_bar.reset();  // clears the line
        return;
    }
    if (m_request->request != MPI_REQUEST_NULL)
        MPI_Wait(&m_request->request, MPI_STATUS_IGNORE);
    send(true);
    MPI_Wait(&m_request->request, MPI_STATUS_IGNORE);
}

}  // namespace strata::app::mpi
