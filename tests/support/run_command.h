#pragma once
// Runs the strata binary (or any command) and captures its exit code, stdout and stderr.

#include <string>
#include <vector>

namespace strata::test {

struct CommandResult
{
    int exitCode = -1;
    std::string out;
    std::string err;
};

/// Runs STRATA_BINARY with `args` (each shell-quoted), without a display.
CommandResult runStrata(const std::vector<std::string>& args);

} // namespace strata::test
