#pragma once
// A thin RAII layer over the SQLite C API: a connection and prepared statements that
// throw StoreError with SQLite's message. Only storage/ sees SQLite.

#include <cstdint>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

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
    /// Whether the database has a table of that name (optional tables of older formats).
    bool hasTable(std::string_view name);
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

/// Rows INSERTed into one table kRows at a time, by one statement of many VALUES rows,
/// in the order they are added. SQLite keeps its b-tree cursor between the rows of one
/// statement, so a row appended after the last one finds its place from the last page,
/// not from the root, and the statement's set-up and halt are paid once a batch: one
/// statement a row cost ~8 000 instructions a flame bucket (7 % of a Paraver ingest).
/// The rows go in as they would one statement each, so the file's bytes are the same,
/// provided flush() is called before anything else is written to the file: pages are
/// numbered in the order they are taken.
class BatchedInsert
{
public:
    BatchedInsert(SqliteDb& db, std::string_view table, int columns);

    /// The next row's columns, in order; a blob is copied.
    BatchedInsert& value(std::int64_t v);
    BatchedInsert& blob(std::string_view bytes);
    /// Ends the row begun by value()/blob(); writes the batch once it is full.
    void endRow();
    /// Writes the rows held (one statement each).
    void flush();

private:
    static constexpr int kRows = 32;

    struct Value
    {
        std::int64_t number = 0;
        std::string bytes;
        bool isBlob = false;
    };
    void bindRow(SqliteStatement& statement, std::size_t row, int firstIndex);

    const int m_columns;
    SqliteStatement m_batch;
    SqliteStatement m_one;
    std::vector<Value> m_values;  ///< rows held, m_columns a row
    std::size_t m_used = 0;  ///< values set in m_values
};

} // namespace strata::storage
