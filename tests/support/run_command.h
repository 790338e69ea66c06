#pragma once
// Runs the strata binary (or any command) and captures its exit code, stdout and stderr.

#include <filesystem>
#include <string>
#include <vector>

namespace strata::test {

struct CommandResult
{
    int exitCode = -1;
    std::string out;
    std::string err;
};

struct RunOptions
{
    std::filesystem::path workDir;  ///< the folder it runs in (empty: the test's own)
    std::string wrapper;  ///< a command it runs under, e.g. "setpriv --reuid=65534 ..."
};

/// Runs STRATA_BINARY with `args` (each shell-quoted), without a display.
CommandResult runStrata(const std::vector<std::string>& args, const RunOptions& options = {});
/// Runs `binary` likewise (strata-mpi under `options.wrapper` = "mpirun ...").
CommandResult runBinary(const std::string& binary, const std::vector<std::string>& args,
                        const RunOptions& options = {});

} // namespace strata::test
