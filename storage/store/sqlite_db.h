#pragma once
// A thin RAII layer over the SQLite C API: a connection and prepared statements that
// throw StoreError with SQLite's message. Only storage/ sees SQLite.

#include <cstdint>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <string_view>

struct sqlite3;
struct sqlite3_stmt;

namespace strata::storage {

/// Anything wrong with a store file: not a store, newer format, truncated, corrupted.
class StoreError : public std::runtime_error
{
public:
    explicit StoreError(const std::string& what)
        : std::runtime_error(what)
    {
    }
};

class SqliteStatement;

class SqliteDb
{
public:
    enum class Mode {
        ReadOnly,
        /// A published store or run file: read-only, and never changed in place while
        /// open (builders write a temporary file and rename it). SQLite then takes no
        /// file locks and checks no journal: a query costs no system call but its reads.
        Published,
        Create
    };
    SqliteDb(const std::filesystem::path& path, Mode mode);
    ~SqliteDb();
    SqliteDb(const SqliteDb&) = delete;
    SqliteDb& operator=(const SqliteDb&) = delete;

    void exec(const char* sql);
    SqliteStatement prepare(std::string_view sql);
    sqlite3* handle() const { return m_db; }
    const std::filesystem::path& path() const { return m_path; }
    [[noreturn]] void fail(const std::string& what) const;

private:
    sqlite3* m_db = nullptr;
    std::filesystem::path m_path;
};

class SqliteStatement
{
public:
    SqliteStatement(const SqliteDb& db, sqlite3_stmt* stmt);
    ~SqliteStatement();
    SqliteStatement(SqliteStatement&& other) noexcept;
    SqliteStatement& operator=(SqliteStatement&&) = delete;

    SqliteStatement& bind(int index, std::int64_t value);
    SqliteStatement& bind(int index, double value);
    SqliteStatement& bind(int index, std::string_view text);
    SqliteStatement& bindBlob(int index, std::string_view bytes);
    /// Steps once: true while a row is available.
    bool step();
    /// Steps through a statement that returns no rows, then resets it for reuse.
    void run();
    void reset();

    std::int64_t int64(int column) const;
    double real(int column) const;
    std::string_view text(int column) const;
    std::string_view blob(int column) const;
    bool isNull(int column) const;

private:
    const SqliteDb* m_db;
    sqlite3_stmt* m_stmt;
};

} // namespace strata::storage
