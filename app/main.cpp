#include "app/cli.h"

int main(int argc, char** argv)
{
    return strata::app::runCli(argc, argv);
}
