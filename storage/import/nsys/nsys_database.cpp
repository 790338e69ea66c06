#include "storage/import/nsys/nsys_database.h"

#include "storage/import/common/gzip_reader.h"
#include "storage/store/input_error.h"

#include <unistd.h>

#include <array>
#include <cstdio>
#include <cstdlib>

namespace strata::storage {

namespace {

constexpr std::string_view kSqliteMagic("SQLite format 3\0", 16);

/// Tables only Nsight Systems writes; a database with none of them is not an export.
bool isNsysTable(std::string_view name)
{
    constexpr std::array<std::string_view, 9> kExact = { "StringIds", "NVTX_EVENTS", "OSRT_API",
        "GPU_METRICS", "ThreadNames", "META_DATA_EXPORT", "EXPORT_META_DATA",
        "TARGET_INFO_SESSION_START_TIME", "TARGET_INFO_GPU" };
    for (std::string_view t : kExact) {
        if (name == t)
            return true;
    }
    return name.starts_with("CUPTI_ACTIVITY_KIND_");
}

// Length of the valid UTF-8 sequence starting at s[i], or 0 when none starts there.
std::size_t utf8SequenceLength(std::string_view s, std::size_t i)
{
    const auto byte = [&](std::size_t k) {
        return static_cast<unsigned char>(s[k]);
    };
    const unsigned char c = byte(i);
    std::size_t n = 0;
    if (c < 0x80)
        return 1;
    if (c >= 0xC2 && c <= 0xDF)
        n = 2;
    else if (c >= 0xE0 && c <= 0xEF)
        n = 3;
    else if (c >= 0xF0 && c <= 0xF4)
        n = 4;
    else
        return 0;
    if (i + n > s.size())
        return 0;
    for (std::size_t k = 1; k < n; ++k) {
        if ((byte(i + k) & 0xC0) != 0x80)
            return 0;
    }
    // Overlong 3/4-byte forms, surrogates and code points above U+10FFFF.
    if ((c == 0xE0 && byte(i + 1) < 0xA0) || (c == 0xED && byte(i + 1) > 0x9F)
        || (c == 0xF0 && byte(i + 1) < 0x90) || (c == 0xF4 && byte(i + 1) > 0x8F))
        return 0;
    return n;
}

}  // namespace

std::string validUtf8(std::string_view bytes)
{
    std::size_t i = 0;
    while (i < bytes.size()) {
        const std::size_t n = utf8SequenceLength(bytes, i);
        if (n == 0)
            break;
        i += n;
    }
    if (i == bytes.size())
        return std::string(bytes);
    std::string out(bytes.substr(0, i));
    while (i < bytes.size()) {
        std::size_t n = utf8SequenceLength(bytes, i);
        if (n > 0) {
            out.append(bytes.substr(i, n));
            i += n;
            continue;
        }
        const auto c = static_cast<unsigned char>(bytes[i++]);
        out.push_back(static_cast<char>(0xC0 | (c >> 6)));
        out.push_back(static_cast<char>(0x80 | (c & 0x3F)));
    }
    return out;
}

std::optional<std::int64_t> optionalInt(const SqliteStatement& row, int column)
{
    if (row.isNull(column))
        return std::nullopt;
    return row.int64(column);
}

NsysDatabase::NsysDatabase(const std::filesystem::path& path)
    : m_fileName(path.string())
{
    std::filesystem::path dbPath = path;
    if (isGzipFile(path)) {
        inflate(path);
        dbPath = m_tempPath;
    }
    try {
        if (readFileHead(dbPath, kSqliteMagic.size()) != kSqliteMagic)
            throw InputError::atByte(
                m_fileName, 0, "expected an SQLite database (nsys export --type sqlite)");
        m_db = std::make_unique<SqliteDb>(dbPath, SqliteDb::Mode::ReadOnly);
        std::vector<std::string> tables;
        SqliteStatement list = m_db->prepare("SELECT name FROM sqlite_master WHERE type = 'table'");
        while (list.step())
            tables.emplace_back(list.text(0));
        bool nsys = false;
        for (const std::string& table : tables) {
            nsys = nsys || isNsysTable(table);
            std::vector<std::string>& columns = m_columns[table];
            SqliteStatement info = m_db->prepare("SELECT name FROM pragma_table_info(?)");
            info.bind(1, std::string_view(table));
            while (info.step())
                columns.emplace_back(info.text(0));
        }
        if (!nsys)
            throw InputError(m_fileName
                + ": tables: expected an Nsight Systems export (StringIds, "
                  "CUPTI_ACTIVITY_KIND_*, NVTX_EVENTS, OSRT_API, ...); none among its "
                + std::to_string(tables.size()) + " tables");
        if (hasTable("StringIds")) {
            SqliteStatement strings = select("StringIds", { "id", "value" });
            while (strings.step())
                m_strings[strings.int64(0)] = validUtf8(strings.text(1));
        }
    } catch (const StoreError& e) {
        // SQLite's reason ("file is not a database") is the last part of the message.
        const std::string what = e.what();
        const std::size_t colon = what.rfind(": ");
        const std::string message = m_fileName + ": byte 0: expected an SQLite database: "
            + (colon == std::string::npos ? what : what.substr(colon + 2));
        m_db.reset();
        if (!m_tempPath.empty())
            std::filesystem::remove(m_tempPath);
        throw InputError(message);
    } catch (...) {
        m_db.reset();
        if (!m_tempPath.empty())
            std::filesystem::remove(m_tempPath);
        throw;
    }
}

NsysDatabase::~NsysDatabase()
{
    m_db.reset();
    if (!m_tempPath.empty()) {
        std::error_code ec;
        std::filesystem::remove(m_tempPath, ec);
    }
}

void NsysDatabase::inflate(const std::filesystem::path& path)
{
    std::string pattern = (std::filesystem::temp_directory_path() / "strata-nsys-XXXXXX").string();
    const int fd = ::mkstemp(pattern.data());
    if (fd < 0)
        throw InputError(m_fileName + ": cannot create a temporary file to inflate it into");
    m_tempPath = pattern;
    try {
        GzipReader input(path);
        std::vector<char> block(std::size_t(256) << 10);
        while (const std::size_t n = input.read(block.data(), block.size())) {
            for (std::size_t written = 0; written < n;) {
                const ssize_t w = ::write(fd, block.data() + written, n - written);
                if (w <= 0)
                    throw InputError(m_fileName + ": cannot write the inflated copy to "
                        + m_tempPath.string() + " (disk full?)");
                written += static_cast<std::size_t>(w);
            }
        }
        if (input.truncated())
            throw InputError::atByte(m_fileName, input.fileBytesRead(),
                "the gzip stream ends early: expected the rest of the "
                "SQLite database (truncated file)");
        ::close(fd);
    } catch (...) {
        ::close(fd);
        std::filesystem::remove(m_tempPath);
        throw;
    }
}

bool NsysDatabase::hasTable(std::string_view table) const
{
    return m_columns.find(table) != m_columns.end();
}

std::string NsysDatabase::column(std::string_view table, std::string_view alternatives) const
{
    const auto it = m_columns.find(table);
    if (it == m_columns.end())
        return {};
    while (!alternatives.empty()) {
        const std::size_t bar = alternatives.find('|');
        const std::string_view name = alternatives.substr(0, bar);
        for (const std::string& c : it->second) {
            if (c == name)
                return c;
        }
        alternatives =
            bar == std::string_view::npos ? std::string_view() : alternatives.substr(bar + 1);
    }
    return {};
}

SqliteStatement NsysDatabase::select(
    std::string_view table, std::initializer_list<std::string_view> columns, std::string_view tail)
{
    std::string sql = "SELECT ";
    bool first = true;
    for (std::string_view alternatives : columns) {
        const std::string name = column(table, alternatives);
        sql += first ? "" : ", ";
        sql += name.empty() ? "NULL" : "\"" + name + "\"";
        first = false;
    }
    sql += " FROM \"" + std::string(table) + "\" ";
    sql += tail;
    return m_db->prepare(sql);
}

std::int64_t NsysDatabase::rowCount(std::string_view table)
{
    if (!hasTable(table))
        return 0;
    SqliteStatement count = m_db->prepare("SELECT COUNT(*) FROM \"" + std::string(table) + "\"");
    return count.step() ? count.int64(0) : 0;
}

std::string_view NsysDatabase::string(std::int64_t id) const
{
    const auto it = m_strings.find(id);
    return it == m_strings.end() ? std::string_view() : std::string_view(it->second);
}

std::map<std::int64_t, std::string> NsysDatabase::enumLabels(std::string_view table)
{
    std::map<std::int64_t, std::string> labels;
    if (!hasTable(table) || column(table, "id").empty())
        return labels;
    SqliteStatement rows = select(table, { "id", "label|name" });
    while (rows.step())
        labels[rows.int64(0)] = validUtf8(rows.text(1));
    return labels;
}

std::optional<std::string> NsysDatabase::exportMeta(std::string_view key)
{
    for (std::string_view table : { "META_DATA_EXPORT", "EXPORT_META_DATA" }) {
        if (!hasTable(table) || column(table, "name").empty())
            continue;
        SqliteStatement rows = select(table, { "value" }, "WHERE name = ?");
        rows.bind(1, key);
        if (rows.step())
            return validUtf8(rows.text(0));
    }
    return std::nullopt;
}

std::optional<std::int64_t> NsysDatabase::sessionStartNs()
{
    const std::string_view table = "TARGET_INFO_SESSION_START_TIME";
    if (column(table, "utcEpochNs").empty())
        return std::nullopt;
    SqliteStatement rows = select(table, { "utcEpochNs" });
    return rows.step() ? optionalInt(rows, 0) : std::nullopt;
}

std::string NsysDatabase::describe(const std::exception& error) const
{
    std::string message = error.what();
    const std::string temp = m_tempPath.string();
    if (!temp.empty()) {
        for (std::size_t at = message.find(temp); at != std::string::npos; at = message.find(temp))
            message.replace(at, temp.size(), m_fileName);
    }
    if (!message.starts_with(m_fileName))
        message = m_fileName + ": " + message;
    return message;
}

}  // namespace strata::storage
