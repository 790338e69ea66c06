#include "tests/support/run_command.h"

#include "tests/support/temp_dir.h"

#include <cstdio>
#include <fstream>
#include <iterator>
#include <sys/wait.h>

namespace strata::test {

namespace {

std::string quote(const std::string& s)
{
    std::string out = "'";
    for (const char c : s)
        out += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return out + "'";
}

std::string slurp(const std::filesystem::path& p)
{
    std::ifstream in(p, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), {}};
}

} // namespace

CommandResult runStrata(const std::vector<std::string>& args, const RunOptions& options)
{
    return runBinary(STRATA_BINARY, args, options);
}

CommandResult runBinary(const std::string& binary, const std::vector<std::string>& args, const RunOptions& options)
{
    TempDir dir;
    std::string command =
        options.workDir.empty() ? "" : "cd " + quote(options.workDir.string()) + " && ";
    command += options.wrapper + " env -u DISPLAY -u WAYLAND_DISPLAY QT_QPA_PLATFORM=offscreen "
        + quote(binary);
    for (const std::string& a : args)
        command += " " + quote(a);
    command += " >" + quote((dir / "out").string()) + " 2>" + quote((dir / "err").string()) + " </dev/null";
    const int status = std::system(command.c_str());
    CommandResult result;
    result.exitCode = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    result.out = slurp(dir / "out");
    result.err = slurp(dir / "err");
    return result;
}

} // namespace strata::test
