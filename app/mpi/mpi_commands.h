#pragma once
// The commands of `strata-mpi` (run under mpirun), with `strata`'s options, output and
// exit codes.

#include "app/cli.h"
#include "app/commands.h"

namespace strata::app::mpi {

class Comm;

/// `strata-mpi ARGS...` on this rank; returns its exit code.
int runMpiCli(const Comm& comm, int argc, char** argv);
int ingestCommand(const Comm& comm, const Args& args);
int variabilityCommand(const Comm& comm, const Args& args);
int metricsCommand(const Comm& comm, const Args& args);

} // namespace strata::app::mpi
