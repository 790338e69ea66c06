#include "storage/import/common/format_detect.h"

#include "storage/import/common/gzip_reader.h"
#include "storage/store/input_error.h"

#include "storage/import/common/text_util.h"

#include <sqlite3.h>

#include <algorithm>
#include <cctype>
#include <set>
#include <string>
#include <vector>

namespace strata::storage {

namespace {

constexpr std::size_t kSniffBytes = std::size_t(64) << 10;
// Gzipped SQLite: the schema may lie beyond the first pages; look this far for table names.
constexpr std::size_t kSqliteSniffBytes = std::size_t(8) << 20;
constexpr std::string_view kSqliteMagic("SQLite format 3\0", 16);

constexpr std::string_view kNsysTables[] = { "StringIds", "CUPTI_ACTIVITY_KIND_", "NVTX_EVENTS",
    "TARGET_INFO_", "ThreadNames", "EXPORT_META_DATA", "META_DATA_EXPORT", "ANALYSIS_DETAILS" };

bool isHexDigit(char c)
{
    return std::isxdigit(static_cast<unsigned char>(c)) != 0;
}



std::string lower(std::string_view s)
{
    std::string out(s);
    for (char& c : out)
        c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return out;
}

// The first lines of the sniffed text; the last one is dropped when it may be cut.
std::vector<std::string_view> firstLines(std::string_view text, std::size_t maxLines, bool complete)
{
    std::vector<std::string_view> lines;
    while (!text.empty() && lines.size() < maxLines) {
        std::size_t nl = text.find('\n');
        if (nl == std::string_view::npos) {
            if (complete)
                lines.push_back(text);
            break;
        }
        std::string_view line = text.substr(0, nl);
        if (!line.empty() && line.back() == '\r')
            line.remove_suffix(1);
        lines.push_back(line);
        text.remove_prefix(nl + 1);
    }
    return lines;
}

std::vector<std::string_view> splitCsv(std::string_view line)
{
    std::vector<std::string_view> fields;
    std::size_t start = 0;
    bool quoted = false;
    for (std::size_t i = 0; i <= line.size(); ++i) {
        if (i < line.size() && line[i] == '"')
            quoted = !quoted;
        if (i == line.size() || (line[i] == ',' && !quoted)) {
            std::string_view f = trim(line.substr(start, i - start));
            if (f.size() >= 2 && f.front() == '"' && f.back() == '"')
                f = f.substr(1, f.size() - 2);
            fields.push_back(f);
            start = i + 1;
        }
    }
    return fields;
}

bool isTimeColumn(std::string_view name)
{
    std::string n = lower(trim(name));
    return n == "ts" || n.starts_with("ts_") || n.starts_with("ts (") || n.starts_with("time")
        || n.starts_with("epoch") || n.ends_with("_time") || n.ends_with("_timestamp")
        || n == "date";
}

bool looksLikeNcu(const std::vector<std::string_view>& lines)
{
    for (std::string_view line : lines) {
        if (line.starts_with("=="))
            continue;  // ==PROF== / ==WARNING== lines printed by ncu itself
        return line.starts_with("\"ID\",\"Process ID\"") || line.starts_with("ID,Process ID");
    }
    return false;
}

/// `nsys stats` CSV reports (NVTX push/pop, kernel and API traces) start with these
/// columns; they are Nsight Systems data, not a counter log.
bool looksLikeNsysStatsCsv(const std::vector<std::string_view>& lines)
{
    for (std::string_view line : lines) {
        if (trim(line).empty())
            continue;
        return line.starts_with("Start (ns),End (ns)") || line.starts_with("\"Start (ns)\",\"End (ns)\"");
    }
    return false;
}

bool looksLikeCounters(const std::vector<std::string_view>& lines)
{
    std::size_t i = 0;
    while (i < lines.size() && (trim(lines[i]).empty() || lines[i].starts_with("#")))
        ++i;
    if (i + 1 >= lines.size())
        return false;
    std::vector<std::string_view> header = splitCsv(lines[i]);
    std::vector<std::string_view> row = splitCsv(lines[i + 1]);
    if (header.size() < 2 || row.size() < 2)
        return false;
    return std::any_of(header.begin(), header.end(), isTimeColumn);
}

bool looksLikeFolded(const std::vector<std::string_view>& lines)
{
    std::size_t matched = 0;
    bool sawStack = false;
    for (std::string_view line : lines) {
        if (trim(line).empty())
            continue;
        std::size_t space = line.find_last_of(' ');
        if (space == std::string_view::npos || space == 0 || !isDigits(line.substr(space + 1)))
            return false;
        if (line.front() == ' ' || line.front() == '\t')
            return false;
        sawStack = sawStack || line.substr(0, space).find(';') != std::string_view::npos;
        ++matched;
    }
    return matched > 0 && sawStack;
}

// A perf script sample header: "comm pid[/tid] [cpu] time: [period] event:".
bool isPerfSampleHeader(std::string_view line)
{
    if (line.empty() || std::isspace(static_cast<unsigned char>(line.front())))
        return false;
    std::string_view t = trim(line);
    if (!t.ends_with(':'))
        return false;
    std::size_t pos = t.find_first_of(" \t");
    while (pos != std::string_view::npos) {
        std::size_t start = t.find_first_not_of(" \t", pos);
        if (start == std::string_view::npos)
            break;
        std::size_t stop = t.find_first_of(" \t", start);
        std::string_view token =
            t.substr(start, stop == std::string_view::npos ? t.npos : stop - start);
        std::size_t slash = token.find('/');
        if (isDigits(token.substr(0, slash))
            && (slash == std::string_view::npos || isDigits(token.substr(slash + 1))))
            return true;
        pos = stop;
    }
    return false;
}

// A perf script stack frame: "<spaces>ADDRESS symbol (dso)".
bool isPerfFrame(std::string_view line)
{
    std::string_view t = line;
    while (!t.empty() && (t.front() == ' ' || t.front() == '\t'))
        t.remove_prefix(1);
    std::size_t n = 0;
    while (n < t.size() && isHexDigit(t[n]))
        ++n;
    return n > 0 && n < t.size() && (t[n] == ' ' || t[n] == '\t');
}

bool looksLikePerfScript(std::string_view head, const std::vector<std::string_view>& lines)
{
    if (head.starts_with("# ========") || head.find("\n# perf version") != std::string_view::npos)
        return true;
    std::size_t i = 0;
    while (i < lines.size() && (trim(lines[i]).empty() || lines[i].starts_with("#")))
        ++i;
    return i + 1 < lines.size() && isPerfSampleHeader(lines[i]) && isPerfFrame(lines[i + 1]);
}

bool isParaverCompanion(const std::vector<std::string_view>& lines)
{
    for (std::string_view line : lines) {
        std::string_view t = trim(line);
        if (t.empty())
            continue;
        // .pcf: a section keyword first; .row: "LEVEL CPU SIZE 20".
        for (std::string_view section : { "DEFAULT_OPTIONS", "DEFAULT_SEMANTIC", "STATES",
                 "STATES_COLOR", "EVENT_TYPE", "GRADIENT_COLOR", "GRADIENT_NAMES" }) {
            if (t == section)
                return true;
        }
        return t.starts_with("LEVEL ") && t.find(" SIZE ") != std::string_view::npos;
    }
    return false;
}

bool isOtf2Anchor(std::string_view head)
{
    return head.size() >= 6 && head.substr(2, 4) == "OTF2";
}

// OTF2 local/global definition and event files: binary chunks whose header byte is
// followed by the endianness mark.
bool isOtf2Chunk(std::string_view head)
{
    return head.size() >= 2 && head[0] == '\x03' && (head[1] == 'B' || head[1] == 'L');
}

bool hasOtf2Anchor(const std::filesystem::path& dir)
{
    std::error_code ec;
    for (const auto& entry : std::filesystem::directory_iterator(dir, ec)) {
        if (entry.path().extension() == ".otf2" && entry.is_regular_file(ec)
            && isOtf2Anchor(readFileHead(entry.path(), 16)))
            return true;
    }
    return false;
}

TraceFormat sqliteFromText(std::string_view text)
{
    for (std::string_view table : kNsysTables) {
        if (text.find(table) != std::string_view::npos)
            return TraceFormat::Nsys;
    }
    if (text.find("strata") != std::string_view::npos
        || (text.find("CREATE TABLE tiles") != std::string_view::npos
            && text.find("CREATE TABLE meta") != std::string_view::npos))
        return TraceFormat::Strata;
    return TraceFormat::Unknown;
}

// An uncompressed SQLite file: ask SQLite which tables it has.
TraceFormat sqliteFromTables(const std::filesystem::path& path)
{
    sqlite3* db = nullptr;
    TraceFormat format = TraceFormat::Unknown;
    if (sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr) == SQLITE_OK) {
        std::set<std::string> tables;
        sqlite3_stmt* stmt = nullptr;
        if (sqlite3_prepare_v2(db, "SELECT name FROM sqlite_master WHERE type IN ('table','view')",
                -1, &stmt, nullptr)
            == SQLITE_OK) {
            while (sqlite3_step(stmt) == SQLITE_ROW) {
                const unsigned char* name = sqlite3_column_text(stmt, 0);
                if (name)
                    tables.emplace(reinterpret_cast<const char*>(name));
            }
        }
        sqlite3_finalize(stmt);
        bool strata = tables.count("meta") && tables.count("tiles") && tables.count("tracks");
        if (tables.count("meta")
            && sqlite3_prepare_v2(
                   db, "SELECT value FROM meta WHERE key = 'format'", -1, &stmt, nullptr)
                == SQLITE_OK) {
            if (sqlite3_step(stmt) == SQLITE_ROW) {
                const unsigned char* value = sqlite3_column_text(stmt, 0);
                // "strata": a store; "strata-run": a run's manifest (run_manifest.h).
                const std::string declared = value ? lower(reinterpret_cast<const char*>(value)) : "";
                strata = strata || declared == "strata" || declared == "strata-run";
            }
            sqlite3_finalize(stmt);
        }
        if (strata) {
            format = TraceFormat::Strata;
        } else {
            for (const std::string& table : tables) {
                for (std::string_view marker : kNsysTables) {
                    if (std::string_view(table).starts_with(marker))
                        format = TraceFormat::Nsys;
                }
            }
        }
    }
    sqlite3_close(db);
    if (format == TraceFormat::Unknown && path.extension() == ".strata")
        format = TraceFormat::Strata;  // a store whose tables could not be read (locked, new)
    return format;
}

}  // namespace

std::string_view formatName(TraceFormat format)
{
    switch (format) {
    case TraceFormat::Chrome:
        return "chrome";
    case TraceFormat::Paraver:
        return "paraver";
    case TraceFormat::Nsys:
        return "nsys";
    case TraceFormat::Ncu:
        return "ncu";
    case TraceFormat::Counters:
        return "counters";
    case TraceFormat::Folded:
        return "folded";
    case TraceFormat::PerfScript:
        return "perf";
    case TraceFormat::Otf2:
        return "otf2";
    case TraceFormat::Strata:
        return "strata";
    case TraceFormat::Unknown:
        return "unknown";
    }
    return "unknown";
}

TraceFormat parseFormatName(std::string_view name)
{
    const std::string n = lower(trim(name));
    if (n.empty() || n == "auto")
        return TraceFormat::Unknown;
    for (TraceFormat f : { TraceFormat::Chrome, TraceFormat::Paraver, TraceFormat::Nsys,
             TraceFormat::Ncu, TraceFormat::Counters, TraceFormat::Folded, TraceFormat::PerfScript,
             TraceFormat::Otf2, TraceFormat::Strata }) {
        if (n == formatName(f))
            return f;
    }
    if (n == "perf-script" || n == "perfscript")
        return TraceFormat::PerfScript;
    if (n == "kineto" || n == "json")
        return TraceFormat::Chrome;
    return TraceFormat::Unknown;
}

TraceFormat detectFormatFromHead(std::string_view head)
{
    if (head.starts_with("\xEF\xBB\xBF"))
        head.remove_prefix(3);
    if (head.starts_with(kSqliteMagic)) {
        TraceFormat f = sqliteFromText(head);
        return f == TraceFormat::Unknown ? TraceFormat::Nsys : f;
    }
    if (isOtf2Anchor(head))
        return TraceFormat::Otf2;
    std::size_t first = head.find_first_not_of(" \t\r\n");
    if (first != std::string_view::npos && (head[first] == '{' || head[first] == '['))
        return TraceFormat::Chrome;
    if (head.starts_with("#Paraver"))
        return TraceFormat::Paraver;
    if (head.find('\0') != std::string_view::npos)
        return TraceFormat::Unknown;  // some other binary file

    const bool complete = head.size() < kSniffBytes;
    const std::vector<std::string_view> lines = firstLines(head, 200, complete);
    if (isParaverCompanion(lines))
        return TraceFormat::Paraver;
    if (looksLikeNcu(lines))
        return TraceFormat::Ncu;
    if (looksLikeNsysStatsCsv(lines))
        return TraceFormat::Nsys;
    if (looksLikeCounters(lines))
        return TraceFormat::Counters;
    if (looksLikeFolded(lines))
        return TraceFormat::Folded;
    if (looksLikePerfScript(head, lines))
        return TraceFormat::PerfScript;
    return TraceFormat::Unknown;
}

TraceFormat detectFormat(const std::filesystem::path& path)
{
    std::error_code ec;
    if (std::filesystem::is_directory(path, ec))
        return hasOtf2Anchor(path) ? TraceFormat::Otf2 : TraceFormat::Unknown;
    if (!std::filesystem::exists(path, ec))
        throw InputError(path.string() + ": no such file");

    std::string head = readFileHead(path, kSniffBytes);
    if (head.starts_with(kSqliteMagic)) {
        if (!isGzipFile(path))
            return sqliteFromTables(path);
        TraceFormat f = sqliteFromText(readFileHead(path, kSqliteSniffBytes));
        return f == TraceFormat::Unknown ? TraceFormat::Nsys : f;
    }
    if (isOtf2Chunk(head) && !isOtf2Anchor(head)) {
        // traces.def, traces/0.evt: part of an OTF2 archive when an anchor is near.
        std::filesystem::path dir = path.parent_path();
        if (hasOtf2Anchor(dir) || hasOtf2Anchor(dir.parent_path()))
            return TraceFormat::Otf2;
        return TraceFormat::Unknown;
    }
    return detectFormatFromHead(head);
}

}  // namespace strata::storage
