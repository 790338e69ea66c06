#include "storage/import/counters/counter_log_importer.h"

#include "storage/import/common/csv_reader.h"
#include "storage/import/common/import_anomaly.h"
#include "storage/import/common/text_util.h"
#include "storage/store/input_error.h"
#include "storage/store/trace_sink.h"

#include <array>
#include <charconv>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace strata::storage {

namespace {

using model::TimeNs;

std::string lower(std::string_view s)
{
    std::string out(s);
    for (char& c : out)
        c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return out;
}

bool isTimeName(std::string_view column)
{
    const std::string n = lower(trim(column));
    return n == "ts" || n.starts_with("ts_") || n.starts_with("ts ") || n.starts_with("time")
        || n.starts_with("epoch") || n.ends_with("_time") || n.ends_with("_timestamp")
        || n.ends_with("_ts") || n == "date";
}

bool isDeviceName(std::string_view column)
{
    const std::string n = lower(trim(column));
    return n == "gpu" || n == "index" || n == "gpu_index" || n == "gpu index" || n == "gpu_id"
        || n == "gpu id" || n == "device" || n == "device_id";
}

/// The time unit a column name states, in ns (0 = not stated).
TimeNs unitOfTimeName(std::string_view column)
{
    const std::string n = lower(trim(column));
    struct Unit
    {
        std::string_view suffix;
        TimeNs ns;
    };
    static constexpr Unit kUnits[] = { { "_ns", 1 }, { "[ns]", 1 }, { "(ns)", 1 },
        { "_us", model::kNsPerUs }, { "[us]", model::kNsPerUs }, { "(us)", model::kNsPerUs },
        { "_ms", model::kNsPerMs }, { "[ms]", model::kNsPerMs }, { "(ms)", model::kNsPerMs },
        { "_s", model::kNsPerS }, { "[s]", model::kNsPerS }, { "(s)", model::kNsPerS },
        { "_sec", model::kNsPerS }, { "seconds", model::kNsPerS } };
    for (const Unit& u : kUnits) {
        if (n.ends_with(u.suffix))
            return u.ns;
    }
    return 0;
}

/// The unit of a bare time value from its size (see the header comment).
TimeNs unitOfTimeValue(std::string_view text)
{
    const std::size_t digits =
        std::min(text.find('.'), text.size()) - (text.starts_with('-') ? 1 : 0);
    return digits >= 17 ? 1
        : digits >= 14  ? model::kNsPerUs
        : digits >= 11  ? model::kNsPerMs
                        : model::kNsPerS;
}

/// Days from 1970-01-01 to a civil date (proleptic Gregorian; H. Hinnant's algorithm).
std::int64_t daysFromCivil(std::int64_t y, unsigned m, unsigned d)
{
    y -= m <= 2;
    const std::int64_t era = (y >= 0 ? y : y - 399) / 400;
    const auto yoe = static_cast<unsigned>(y - era * 400);
    const unsigned doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + static_cast<std::int64_t>(doe) - 719468;
}

/// "YYYY/MM/DD HH:MM:SS[.frac]" or "YYYY-MM-DD[T ]HH:MM:SS[.frac][Z]" as UTC epoch ns.
std::optional<TimeNs> parseDateTime(std::string_view text)
{
    text = trim(text);
    if (text.ends_with('Z'))
        text.remove_suffix(1);
    if (text.size() < 19)
        return std::nullopt;
    std::array<int, 6> parts {};
    static constexpr std::size_t kAt[] = { 0, 5, 8, 11, 14, 17 };
    static constexpr std::size_t kLen[] = { 4, 2, 2, 2, 2, 2 };
    for (std::size_t i = 0; i < parts.size(); ++i) {
        const std::string_view p = text.substr(kAt[i], kLen[i]);
        if (!isDigits(p))
            return std::nullopt;
        std::from_chars(p.data(), p.data() + p.size(), parts[i]);
    }
    const bool dateSeps = (text[4] == '/' && text[7] == '/') || (text[4] == '-' && text[7] == '-');
    if (!dateSeps || (text[10] != ' ' && text[10] != 'T') || text[13] != ':' || text[16] != ':'
        || parts[0] < 1678 || parts[0] > 2261  // int64 epoch ns covers 1677-09 .. 2262-04
        || parts[1] < 1 || parts[1] > 12 || parts[2] < 1 || parts[2] > 31 || parts[3] > 23
        || parts[4] > 59 || parts[5] > 60)
        return std::nullopt;
    TimeNs fracNs = 0;
    if (text.size() > 19) {
        if (text[19] != '.')
            return std::nullopt;
        const auto frac =
            model::parseDecimalScaled("0" + std::string(text.substr(19)), model::kNsPerS);
        if (!frac)
            return std::nullopt;
        fracNs = *frac;
    }
    const std::int64_t days =
        daysFromCivil(parts[0], static_cast<unsigned>(parts[1]), static_cast<unsigned>(parts[2]));
    return ((days * 24 + parts[3]) * 60 + parts[4]) * 60 * model::kNsPerS
        + parts[5] * model::kNsPerS + fracNs;
}

/// A counter cell: a number, optionally followed by a space and a unit ("70.12 W").
std::optional<double> parseCounterValue(std::string_view text)
{
    if (auto v = parseCsvNumber(text))
        return v;
    const std::size_t space = text.find_last_of(' ');
    if (space == std::string_view::npos)
        return std::nullopt;
    const std::string_view unit = trim(text.substr(space + 1));
    if (unit.empty() || std::isdigit(static_cast<unsigned char>(unit.front())))
        return std::nullopt;
    return parseCsvNumber(text.substr(0, space));
}

/// Cells of one anomaly, and the first one's place for the warning.
struct Anomaly
{
    std::uint64_t count = 0;
    std::uint64_t line = 0;
    std::size_t column = 0;  // 0-based
    std::string detail;  // after "line L, column C"
    /// `detail` is called for the first cell only (no per-cell allocation).
    template<class Detail>
    void note(std::uint64_t atLine, std::size_t atColumn, const Detail& makeDetail)
    {
        if (count++ == 0) {
            line = atLine;
            column = atColumn;
            detail = makeDetail();
        }
    }
    /// Adds `other`'s cells; the first is the earlier of the two.
    void merge(const Anomaly& other)
    {
        if (other.count == 0)
            return;
        if (count == 0 || std::pair(other.line, other.column) < std::pair(line, column)) {
            line = other.line;
            column = other.column;
            detail = other.detail;
        }
        count += other.count;
    }
    std::string where() const
    {
        return "line " + std::to_string(line) + ", column " + std::to_string(column + 1) + detail;
    }
};

}  // namespace

std::pair<std::string, std::string> counterNameAndUnit(std::string_view column)
{
    std::string_view name = trim(column);
    // "power.draw [W]" / "power (W)"
    for (auto [open, close] : { std::pair('[', ']'), std::pair('(', ')') }) {
        if (name.ends_with(close)) {
            const std::size_t at = name.rfind(open);
            if (at != std::string_view::npos && at > 0) {
                return { std::string(trim(name.substr(0, at))),
                    std::string(trim(name.substr(at + 1, name.size() - at - 2))) };
            }
        }
    }
    struct Suffix
    {
        std::string_view suffix, unit;
    };
    static constexpr Suffix kSuffixes[] = { { "_pct", "%" }, { "_percent", "%" }, { "_mw", "mW" },
        { "_w", "W" }, { "_mhz", "MHz" }, { "_ghz", "GHz" }, { "_celsius", "°C" }, { "_c", "°C" },
        { "_bytes", "B" }, { "_kib", "KiB" }, { "_mib", "MiB" }, { "_gib", "GiB" },
        { "_bps", "B/s" }, { "_mj", "mJ" }, { "_j", "J" } };
    const std::string n = lower(name);
    for (const Suffix& s : kSuffixes) {
        if (n.size() > s.suffix.size() && n.ends_with(s.suffix))
            return { std::string(name.substr(0, name.size() - s.suffix.size())),
                std::string(s.unit) };
    }
    return { std::string(name), {} };
}

CounterLogStats importCounterLog(const std::filesystem::path& path, TraceSink& sink,
    const CounterLogOptions& options, const ProgressFn& progress)
{
    CsvReader csv(path, { "#" });
    const std::string file = path.string();
    CounterLogStats stats;
    if (!csv.next())
        throw InputError::atLine(file, 1, "empty file: expected a CSV header with a time column");
    std::vector<std::string> header;
    for (std::string_view f : csv.fields())
        header.emplace_back(trim(f));
    const std::uint64_t headerLine = csv.line();
    int timeColumn = -1, deviceColumn = -1;
    for (std::size_t c = 0; c < header.size(); ++c) {
        if (timeColumn < 0 && isTimeName(header[c]))
            timeColumn = static_cast<int>(c);
        else if (deviceColumn < 0 && isDeviceName(header[c]))
            deviceColumn = static_cast<int>(c);
    }
    if (timeColumn < 0)
        throw InputError::atLine(file, headerLine,
            "expected a time column (epoch_ns, timestamp, time, ts, ...) in the CSV header");
    if (header.size() < 2 + (deviceColumn >= 0 ? 1u : 0u))
        throw InputError::atLine(
            file, headerLine, "expected at least one counter column beside the time column");
    stats.timeColumn = header[static_cast<std::size_t>(timeColumn)];
    TimeNs unitNs = unitOfTimeName(stats.timeColumn);
    bool dateTime = false;

    const model::TrackId group = sink.addTrack(
        model::kNoTrack, model::ResourceKind::Group, "counters (" + path.filename().string() + ")");
    std::map<std::string, model::TrackId> devices;  // device cell -> its track
    std::map<std::pair<model::TrackId, std::size_t>, model::TrackId> counters;
    std::vector<bool> columnHasValue(header.size(), false);
    Anomaly empty, nonNumeric, ragged;
    std::vector<Anomaly> nonNumericByColumn(header.size());
    std::optional<TimeNs> origin = options.originNs;
    while (csv.next()) {
        const auto& f = csv.fields();
        if (f.size() == 1 && trim(f[0]).empty())
            continue;
        ++stats.rows;
        if (f.size() != header.size())
            ragged.note(csv.line(), std::min(f.size(), header.size()),
                [&] { return ": " + std::to_string(f.size()) + " cells"; });
        const auto tc = static_cast<std::size_t>(timeColumn);
        const std::string_view timeText = tc < f.size() ? trim(f[tc]) : std::string_view();
        if (stats.rows == 1) {
            dateTime = unitNs == 0 && parseDateTime(timeText).has_value();
            if (unitNs == 0 && !dateTime)
                unitNs = unitOfTimeValue(timeText);
            stats.timeUnit = dateTime       ? "datetime"
                : unitNs == 1               ? "ns"
                : unitNs == model::kNsPerUs ? "us"
                : unitNs == model::kNsPerMs ? "ms"
                                            : "s";
        }
        const auto absolute =
            dateTime ? parseDateTime(timeText) : model::parseDecimalScaled(timeText, unitNs);
        if (!absolute) {
            throw InputError::atLine(file, csv.line(),
                "column " + std::to_string(timeColumn + 1) + " (" + stats.timeColumn
                    + "): expected a "
                    + (dateTime ? "date and time (years 1678-2261)"
                                : "number of " + stats.timeUnit + " or a date and time")
                    + ", got '" + std::string(timeText.substr(0, 40)) + "'");
        }
        if (!origin) {
            origin = *absolute;
            sink.setMeta("origin_ns", std::to_string(*origin));
        }
        const TimeNs t = *absolute - *origin;
        model::TrackId parent = group;
        if (deviceColumn >= 0) {
            const auto dc = static_cast<std::size_t>(deviceColumn);
            const std::string device(dc < f.size() ? trim(f[dc]) : std::string_view());
            auto it = devices.find(device);
            if (it == devices.end()) {
                const auto number = parseCsvNumber(device);
                it = devices
                         .emplace(device,
                             sink.addTrack(group, model::ResourceKind::Gpu, "GPU " + device,
                                 number ? static_cast<std::int64_t>(*number) : 0))
                         .first;
            }
            parent = it->second;
        }
        for (std::size_t c = 0; c < header.size(); ++c) {
            if (static_cast<int>(c) == timeColumn || static_cast<int>(c) == deviceColumn)
                continue;
            if (c >= f.size())
                continue;  // counted as a ragged row
            const std::string_view text = trim(f[c]);
            if (text.empty()) {
                empty.note(csv.line(), c, [] { return std::string(); });
                continue;
            }
            const auto value = parseCounterValue(text);
            if (!value) {
                nonNumericByColumn[c].note(
                    csv.line(), c, [&] { return " ('" + std::string(text.substr(0, 20)) + "')"; });
                continue;
            }
            columnHasValue[c] = true;
            auto [it, fresh] = counters.try_emplace({ parent, c }, model::kNoTrack);
            if (fresh) {
                auto [name, unit] = counterNameAndUnit(header[c]);
                it->second = sink.addTrack(parent, model::ResourceKind::Counter, std::move(name),
                    static_cast<std::int64_t>(c), std::move(unit));
                ++stats.counterTracks;
            }
            sink.addCounterSample(it->second, { t, *value });
            if (stats.samples++ == 0)
                stats.firstNs = stats.lastNs = t;
            stats.firstNs = std::min(stats.firstNs, t);
            stats.lastNs = std::max(stats.lastNs, t);
        }
        if (progress && stats.rows % 4096 == 0
            && !progress(csv.fileBytesRead(), csv.fileSizeBytes()))
            throw Cancelled();
    }
    if (stats.rows == 0)
        throw InputError::atLine(
            file, headerLine + 1, "expected at least one sample row after the CSV header");
    stats.originNs = *origin;
    // A column without any number (a GPU's name) is not a counter and has its own warning;
    // its cells are no samples dropped.
    for (std::size_t c = 0; c < header.size(); ++c) {
        if (columnHasValue[c])
            nonNumeric.merge(nonNumericByColumn[c]);
    }
    stats.emptyCells = empty.count;
    stats.nonNumericCells = nonNumeric.count;
    stats.raggedRows = ragged.count;
    stats.commentLines = csv.skippedLines();
    // A cell is a counter sample: an empty or non-numeric one is a sample dropped.
    auto warn = [&](const Anomaly& a, AnomalyEffect effect, const std::string& what) {
        if (a.count > 0)
            stats.warnings.push_back(anomalyWarning(a.count, effect, what, a.where()));
    };
    warn(empty, AnomalyEffect::Dropped, "empty cell");
    warn(nonNumeric, AnomalyEffect::Dropped, "cell not a number");
    warn(ragged, AnomalyEffect::Altered,
        "row with another number of cells than the header's " + std::to_string(header.size())
            + " (missing cells skipped, extra ones ignored)");
    for (std::size_t c = 0; c < header.size(); ++c) {
        if (!columnHasValue[c] && static_cast<int>(c) != timeColumn
            && static_cast<int>(c) != deviceColumn)
            stats.warnings.push_back("column " + std::to_string(c + 1) + " ('" + header[c]
                + "') has no numeric value: no counter track");
    }
    if (progress)
        progress(csv.fileSizeBytes(), csv.fileSizeBytes());
    return stats;
}

}  // namespace strata::storage
