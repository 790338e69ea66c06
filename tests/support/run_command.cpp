#include "tests/support/run_command.h"

#include "tests/support/temp_dir.h"

#include <catch2/catch.hpp>

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

std::string runStrataIn(const std::filesystem::path& dir, const std::vector<std::string>& args)
{
    RunOptions options;
    options.workDir = dir;
    const CommandResult r = runStrata(args, options);
    INFO(r.err);
    REQUIRE(r.exitCode == 0);
    return r.out;
}

std::vector<std::string> synthRankFiles(const std::filesystem::path& dir, int ranks)
{
    std::vector<std::string> files;
    for (int r = 0; r < ranks; ++r) {
        files.push_back((dir / ("rank" + std::to_string(r) + ".json")).string());
        runStrataIn(dir, {"synth", "-o", files.back(), "--events", "20000", "--ranks", "1", "--seed", std::to_string(r + 1)});
    }
    return files;
}

std::vector<std::string> realDdpRankFiles()
{
    std::vector<std::string> files;
    for (int r = 0; r < 4; ++r) {
        const auto rank = realTrace("h100/kineto_ddp_rank" + std::to_string(r) + ".json.gz");
        if (rank.empty())
            return {};
        files.push_back(rank.string());
    }
    return files;
}

std::string infoFigures(const std::string& json)
{
    const auto from = json.find("\"tracks\"");
    return json.substr(from, json.find("\"store_bytes\"") - from);
}

} // namespace strata::test
