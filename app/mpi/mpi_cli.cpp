#include "app/arg_parser.h"
#include "app/mpi/mpi_comm.h"
#include "app/mpi/mpi_commands.h"
#include "storage/store/input_error.h"
#include "storage/store/sqlite_db.h"

#include <cstdio>

namespace strata::app::mpi {

namespace {

constexpr const char* kUsage = R"(usage (under mpirun -n K):
  strata-mpi ingest INPUT... -o STORE [--format auto|chrome|paraver|nsys|otf2|...] [--threads N]
                # the files dealt to the ranks by size, one shard per rank, rank 0 publishes
  strata-mpi metrics STORE [--json] [--window T0:T1] [--level process|thread|gpu|stream] [--rules FILE] [--all-workers] [--slots N]
  strata-mpi metrics STORE --profile [--json] [--window T0:T1] [--level ...] [--top N]
  strata-mpi metrics RUN1.strata RUN2.strata... [--json] [--level ...] [--strong|--weak]   # POP scaling table
                # each rank reads its shards' workers, rank 0 merges the exact partials
  strata-mpi variability STORE [--json] [--window T0:T1] [--level process|thread|gpu|stream] [--names REGEX] [--top N]
                # each rank reads its shards, rank 0 merges the exact partials
  strata-mpi info STORE [--json]
The store is a run of shards (STORE and STORE.d/) on a filesystem all ranks share.
)";

} // namespace

int runMpiCli(const Comm& comm, int argc, char** argv)
{
    const Args args(argv + 1, argv + argc);
    const std::string command = args.empty() ? std::string() : args.front();
    const Args rest = args.empty() ? Args() : Args(args.begin() + 1, args.end());
    try {
        if (command.empty() || command == "--help" || command == "-h" || command == "help") {
            if (comm.root())
                std::fputs(kUsage, command.empty() ? stderr : stdout);
            return command.empty() ? kExitUsage : kExitOk;
        }
        if (command == "ingest")
            return ingestCommand(comm, rest);
        if (command == "metrics")
            return metricsCommand(comm, rest);
        if (command == "variability")
            return variabilityCommand(comm, rest);
        if (command == "info")
            return comm.root() ? infoCommand(rest) : kExitOk;
        throw UsageError { "unknown command '" + command
            + "' (strata-mpi runs ingest, metrics, variability and info)" };
    } catch (const UsageError& e) {
        if (comm.root())
            std::fprintf(stderr, "strata-mpi: %s\n%s", e.message.c_str(), kUsage);
        return kExitUsage;
    } catch (const AgreedError& e) {
        // Thrown on every rank alike: rank 0 says it.
        if (comm.root())
            std::fprintf(stderr, "strata-mpi: %s\n", e.what());
        return kExitBadInput;
    } catch (const std::exception& e) {
        // Thrown on one rank only (info on rank 0): its own line.
        std::fprintf(stderr, "strata-mpi: %s\n", e.what());
        return kExitBadInput;
    }
}

} // namespace strata::app::mpi
