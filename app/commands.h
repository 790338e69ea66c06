#pragma once
// One function per `strata` subcommand; each takes the arguments after its name.

#include <string>
#include <vector>

namespace strata::app {

using Args = std::vector<std::string>;

int ingestCommand(const Args& args);
int infoCommand(const Args& args);
int metricsCommand(const Args& args);
int variabilityCommand(const Args& args);
int synthCommand(const Args& args);
int benchCommand(const Args& args);
int renderCommand(const Args& args, int argc, char** argv);
int cutCommand(const Args& args);
int guiCommand(const Args& args, int argc, char** argv);

} // namespace strata::app
