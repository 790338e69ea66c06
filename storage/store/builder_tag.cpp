#include "storage/store/builder_tag.h"

#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <regex>

namespace strata::storage {

namespace {

std::string hostName()
{
    char name[256] = {};
    if (::gethostname(name, sizeof name - 1) != 0)
        return "localhost";
    std::string host(name);
    host = host.substr(0, host.find('.'));
    // Only characters the tag's pattern reads back.
    for (char& c : host) {
        if (!std::isalnum(static_cast<unsigned char>(c)) && c != '-' && c != '_')
            c = '_';
    }
    return host.empty() ? "localhost" : host;
}

bool processRunning(pid_t pid)
{
    return pid == ::getpid() || ::kill(pid, 0) == 0 || errno != ESRCH;
}

}  // namespace

std::string builderTag()
{
    static const std::string host = hostName();
    return std::to_string(::getpid()) + "@" + host;
}

bool builderGone(const std::filesystem::path& file)
{
    static const std::regex pattern(R"(\.(tmp|spill)\.([0-9]+)(@([A-Za-z0-9_-]+))?)");
    const std::string name = file.filename().string();
    std::smatch match;
    if (!std::regex_search(name, match, pattern))
        return false;
    pid_t pid = 0;
    try {
        pid = static_cast<pid_t>(std::stoll(match[2].str()));
    } catch (const std::exception&) {
        return false;
    }
    static const std::string thisHost = builderTag().substr(builderTag().find('@') + 1);
    if (!match[4].matched || match[4].str() == thisHost)
        return pid > 0 && !processRunning(pid);
    std::error_code ec;
    const auto written = std::filesystem::last_write_time(file, ec);
    return !ec && std::filesystem::file_time_type::clock::now() - written > kForeignIdle;
}

}  // namespace strata::storage
