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
/// Runs strata in `dir` and returns its stdout; the command must succeed (a Catch2
/// REQUIRE, with its stderr as INFO).
std::string runStrataIn(const std::filesystem::path& dir, const std::vector<std::string>& args);
/// `info --json` from its first figure up to what names the files (store, bytes, shards,
/// meta): what a run and a single store of the same trace must agree on. Not the format
/// version, which is the file's own: a run's manifest has its own (run_manifest.h).
std::string infoFigures(const std::string& json);
/// `ranks` synthetic Chrome files of one rank each (20 000 events, seeds 1, 2, ...) in
/// `dir`, named rankN.json: the rank files of one run.
std::vector<std::string> synthRankFiles(const std::filesystem::path& dir, int ranks);
/// The real 4-rank DDP files of ../shared/data/real/h100/, or none when that folder is
/// absent (the test then returns early).
std::vector<std::string> realDdpRankFiles();
/// Runs `binary` likewise (strata-mpi under `options.wrapper` = "mpirun ...").
CommandResult runBinary(const std::string& binary, const std::vector<std::string>& args,
                        const RunOptions& options = {});

} // namespace strata::test
