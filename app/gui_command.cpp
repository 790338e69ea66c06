#include "app/cli.h"
#include "app/commands.h"

namespace strata::app {

int guiCommand(const Args& args, int argc, char** argv)
{
    (void)args;
    (void)argc;
    (void)argv;
    return kExitOk;
}

} // namespace strata::app
