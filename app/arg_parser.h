#pragma once
// A small parser for `command POSITIONAL... --option VALUE --flag` command lines. Each
// command declares its options; anything else is a UsageError.

#include "app/cli.h"
#include "model/time_units.h"
#include "model/workers.h"

#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace strata::app {

class ArgParser
{
public:
    /// `valued` options take a value ("-o" and "--output" style both accepted as given);
    /// `flags` take none.
    ArgParser(std::vector<std::string> args, std::set<std::string> valued, std::set<std::string> flags);

    const std::vector<std::string>& positional() const { return m_positional; }
    std::optional<std::string> value(const std::string& name) const;
    std::string valueOr(const std::string& name, const std::string& fallback) const;
    bool flag(const std::string& name) const { return m_flags.count(name) > 0; }
    /// An integer option, or `fallback`; a UsageError if not a number in [min, max].
    long long integer(const std::string& name, long long fallback, long long min, long long max) const;

private:
    std::vector<std::string> m_positional;
    std::map<std::string, std::string> m_values;
    std::set<std::string> m_flags;
};

/// --window T0:T1 (units ns, us, ms, s), or nullopt when absent; a UsageError when malformed.
std::optional<model::TimeRange> windowOption(const ArgParser& p);
/// --level process|thread|gpu|stream, or nullopt when absent; a UsageError otherwise.
std::optional<model::WorkerLevel> levelOption(const ArgParser& p);

} // namespace strata::app
