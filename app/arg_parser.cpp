#include "app/arg_parser.h"

#include <charconv>

namespace strata::app {

ArgParser::ArgParser(std::vector<std::string> args, std::set<std::string> valued,
                     std::set<std::string> flags)
{
    bool onlyPositional = false;
    for (std::size_t i = 0; i < args.size(); ++i) {
        const std::string& a = args[i];
        if (onlyPositional || a.size() < 2 || a[0] != '-') {
            m_positional.push_back(a);
        } else if (a == "--") {
            onlyPositional = true;
        } else if (auto eq = a.find('='); eq != std::string::npos && valued.count(a.substr(0, eq))) {
            m_values[a.substr(0, eq)] = a.substr(eq + 1);
        } else if (valued.count(a)) {
            if (i + 1 >= args.size())
                throw UsageError{"option " + a + " needs a value"};
            m_values[a] = args[++i];
        } else if (flags.count(a)) {
            m_flags.insert(a);
        } else {
            throw UsageError{"unknown option " + a};
        }
    }
}

std::optional<std::string> ArgParser::value(const std::string& name) const
{
    auto it = m_values.find(name);
    return it == m_values.end() ? std::nullopt : std::optional<std::string>(it->second);
}

std::string ArgParser::valueOr(const std::string& name, const std::string& fallback) const
{
    return value(name).value_or(fallback);
}

long long ArgParser::integer(const std::string& name, long long fallback, long long min,
                             long long max) const
{
    auto text = value(name);
    if (!text)
        return fallback;
    long long v = 0;
    // Accept 1e6-style and k/M/G suffixes for event counts.
    std::string t = *text;
    long long scale = 1;
    if (!t.empty() && (t.back() == 'k' || t.back() == 'K' || t.back() == 'M' || t.back() == 'G')) {
        scale = t.back() == 'G' ? 1000000000LL : t.back() == 'M' ? 1000000LL : 1000LL;
        t.pop_back();
    }
    auto [p, ec] = std::from_chars(t.data(), t.data() + t.size(), v);
    if (ec != std::errc() || p != t.data() + t.size() || v > max / scale || v * scale < min)
        throw UsageError{"option " + name + " needs an integer in [" + std::to_string(min) + ", "
                         + std::to_string(max) + "], got '" + *text + "'"};
    return v * scale;
}

std::optional<model::TimeRange> windowOption(const ArgParser& p)
{
    const auto w = p.value("--window");
    if (!w)
        return std::nullopt;
    const auto range = model::parseTimeRange(*w);
    if (!range)
        throw UsageError { "--window expects T0:T1 with T0 < T1 (units ns, us, ms, s), not " + *w };
    return range;
}

std::optional<model::WorkerLevel> levelOption(const ArgParser& p)
{
    const auto text = p.value("--level");
    if (!text)
        return std::nullopt;
    const auto level = model::parseWorkerLevel(*text);
    if (!level)
        throw UsageError { "--level expects process, thread, gpu or stream, not " + *text };
    return level;
}

} // namespace strata::app
