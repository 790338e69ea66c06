#pragma once
// The command line: `strata ingest|info|metrics|render|cut|synth|bench` and, with no
// command, the GUI. Exit codes: 0 success, 1 bad input (one line on stderr naming the
// file, position and what was expected), 2 bad usage.

#include <string>
#include <vector>

namespace strata::app {

inline constexpr int kExitOk = 0;
inline constexpr int kExitBadInput = 1;
inline constexpr int kExitUsage = 2;

int runCli(int argc, char** argv);

/// Thrown for bad usage (unknown option, missing value): exit code 2.
struct UsageError
{
    std::string message;
};

} // namespace strata::app
