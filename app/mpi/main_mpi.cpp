// strata-mpi: the commands of Strata that run across Open MPI ranks (app/mpi/README.md).
#include "app/mpi/mpi_comm.h"
#include "app/mpi/mpi_commands.h"

#include <mpi.h>

int main(int argc, char** argv)
{
    MPI_Init(&argc, &argv);
    int rc = 0;
    {
        const strata::app::mpi::Comm comm;
        rc = strata::app::mpi::runMpiCli(comm, argc, argv);
    }
    MPI_Finalize();
    return rc;
}
