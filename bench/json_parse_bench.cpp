#include "bench/json_parse_bench.h"

#include "storage/import/chrome/json_scan.h"

#include "bench/bench_support.h"
#include <simdjson.h>

#include <algorithm>
#include <chrono>
#include <stdexcept>
#include <string>
#include <vector>

namespace strata::bench {

namespace {

using Clock = std::chrono::steady_clock;

/// Members of every event of the traceEvents array, by Strata's scanner.
unsigned long long scanWithScanner(std::string_view text)
{
    std::size_t pos = text.find("\"traceEvents\"");
    pos = pos == std::string_view::npos ? pos : text.find('[', pos);
    if (pos == std::string_view::npos)
        throw std::runtime_error("json parse bench: no traceEvents array");
    std::vector<storage::JsonField> fields;
    unsigned long long members = 0;
    auto skipSpace = [&] {
        while (pos < text.size()
            && (text[pos] == ' ' || text[pos] == '\n' || text[pos] == '\r' || text[pos] == '\t'))
            ++pos;
    };
    ++pos;
    for (skipSpace(); pos < text.size() && text[pos] == '{'; skipSpace()) {
        pos += storage::scanJsonObject(text.substr(pos), fields);
        members += fields.size();
        skipSpace();
        if (pos < text.size() && text[pos] == ',')
            ++pos;
    }
    return members;
}

/// The same members by simdjson On-Demand: each key, each scalar's raw token; objects
/// and arrays (args) are skipped, as the scanner keeps them as raw text to read later.
unsigned long long scanWithSimdjson(const simdjson::padded_string& json)
{
    using simdjson::ondemand::json_type;
    simdjson::ondemand::parser parser;
    simdjson::ondemand::document doc = parser.iterate(json);
    unsigned long long members = 0, tokenBytes = 0;
    for (simdjson::ondemand::value event : doc["traceEvents"].get_array()) {
        for (simdjson::ondemand::field member : event.get_object()) {
            std::string_view key = member.unescaped_key();
            simdjson::ondemand::value value = member.value();
            const json_type type = value.type();
            if (type != json_type::object && type != json_type::array)
                tokenBytes += value.raw_json_token().size();
            members += !key.empty();
        }
    }
    return tokenBytes > 0 ? members : 0;
}

template<typename Pass>
double medianMbPerS(double bytes, unsigned long long& members, Pass pass)
{
    std::vector<double> rates;
    for (int run = 0; run < 3; ++run) {
        const auto start = Clock::now();
        members = pass();
        const double seconds = std::chrono::duration<double>(Clock::now() - start).count();
        rates.push_back(bytes / 1e6 / seconds);
    }
    std::sort(rates.begin(), rates.end());
    return rates[1];
}

}  // namespace

JsonParseRates measureJsonParsers(const std::filesystem::path& json)
{
    // This file is compiled for Haswell (AVX2), as simdjson's On-Demand kernels need;
    // elsewhere they would fall back to its scalar code and the comparison would be unfair.
    if (!__builtin_cpu_supports("avx2") || !__builtin_cpu_supports("bmi2")
        || !__builtin_cpu_supports("pclmul"))
        return {};
    const simdjson::padded_string text = simdjson::padded_string::load(json.string()).value();
    const auto bytes = static_cast<double>(text.size());
    JsonParseRates r;
    r.scannerMbPerS = medianMbPerS(
        bytes, r.scannerMembers, [&] { return scanWithScanner(std::string_view(text)); });
    r.simdjsonMbPerS =
        medianMbPerS(bytes, r.simdjsonMembers, [&] { return scanWithSimdjson(text); });
    return r;
}

}  // namespace strata::bench
