#pragma once
// NsysDatabase opens an Nsight Systems SQLite export (`nsys export --type sqlite`) for the
// importer and hides the schema drift between Nsight versions (2021 -> 2025): tables come
// and go (lazy exports only create tables for data that exists; MEMSET, NVTX_EVENTS,
// OSRT_API, PROCESSES and GPU_METRICS are optional), columns get added (`mangledName` in
// 2022.1, `greenContextId` in 2024) or renamed (TARGET_INFO_GPU `deviceId` -> `id`,
// EXPORT_META_DATA -> META_DATA_EXPORT). So everything is read by name: select() takes
// column names with fallbacks ("id|deviceId") and reads a column the table lacks as NULL.
//
// SQLite needs random access, so a gzip-compressed export is first inflated into a
// temporary file (GzipReader), which the destructor removes: also when the import fails.
// Text is returned as valid UTF-8: Windows exports hold ANSI (Latin-1) bytes in some values,
// which are converted rather than passed on to JSON args.
//
// Errors: InputError (one line naming the file) for a file that is not an SQLite database,
// a cut gzip stream, or an SQLite database without any Nsight Systems table.

#include "storage/store/sqlite_db.h"

#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace strata::storage {

class NsysDatabase
{
public:
    /// Opens `path` (.sqlite, or gzip-compressed). Throws InputError as described above.
    explicit NsysDatabase(const std::filesystem::path& path);
    ~NsysDatabase();
    NsysDatabase(const NsysDatabase&) = delete;
    NsysDatabase& operator=(const NsysDatabase&) = delete;

    /// The input's name, as error messages give it.
    const std::string& fileName() const { return m_fileName; }
    bool hasTable(std::string_view table) const;
    /// The first of the '|'-separated `alternatives` that `table` has; empty when none.
    std::string column(std::string_view table, std::string_view alternatives) const;
    /// `SELECT c0, c1, ... FROM table tail`: column i of each row is columns[i] (with its
    /// fallbacks), NULL where the table has none of them. The table must exist.
    SqliteStatement select(std::string_view table, std::initializer_list<std::string_view> columns,
        std::string_view tail = {});
    /// Rows of `table`; 0 when it does not exist.
    std::int64_t rowCount(std::string_view table);

    /// StringIds text of `id`; empty for an unknown id.
    std::string_view string(std::int64_t id) const;
    /// Labels of an ENUM_* table (id -> label); empty when the export has no such table.
    std::map<std::int64_t, std::string> enumLabels(std::string_view table);
    /// A value of the export metadata (META_DATA_EXPORT, before 2023 EXPORT_META_DATA).
    std::optional<std::string> exportMeta(std::string_view key);
    /// Absolute start of the capture (TARGET_INFO_SESSION_START_TIME.utcEpochNs): every
    /// time in the export is in ns relative to it. Absent in 2021 exports.
    std::optional<std::int64_t> sessionStartNs();

    /// SQLite's message with the temporary file's name replaced by the input's.
    std::string describe(const std::exception& error) const;

private:
    void inflate(const std::filesystem::path& path);

    std::string m_fileName;
    std::filesystem::path m_tempPath;  ///< the inflated copy; empty for an uncompressed input
    std::unique_ptr<SqliteDb> m_db;
    std::map<std::string, std::vector<std::string>, std::less<>> m_columns;  ///< by table
    std::unordered_map<std::int64_t, std::string> m_strings;  ///< StringIds (ids need not be dense)
};

/// `bytes` unchanged when it is valid UTF-8; otherwise each byte of an invalid sequence is
/// read as Latin-1 (what Windows exports hold) and re-encoded.
std::string validUtf8(std::string_view bytes);

/// The integer in `column` of the current row, or nullopt when it is NULL.
std::optional<std::int64_t> optionalInt(const SqliteStatement& row, int column);

}  // namespace strata::storage
