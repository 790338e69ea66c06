#include "storage/store/sqlite_db.h"

#include "storage/store/read_ahead_vfs.h"
#include "storage/store/write_combining_vfs.h"

#include <sqlite3.h>

namespace strata::storage {

namespace {

/// `path` as an SQLite URI that opens it immutable: absolute, with the characters that
/// a URI reads as delimiters (and '%' itself) escaped.
std::string immutableUri(const std::filesystem::path& path)
{
    std::string uri = "file://";
    for (const char c : std::filesystem::absolute(path).string()) {
        if (c == '%' || c == '?' || c == '#') {
            static constexpr char kHex[] = "0123456789ABCDEF";
            uri += '%';
            uri += kHex[static_cast<unsigned char>(c) >> 4];
            uri += kHex[static_cast<unsigned char>(c) & 15];
        } else {
            uri += c;
        }
    }
    return uri + "?immutable=1";
}

}  // namespace

SqliteDb::SqliteDb(const std::filesystem::path& path, Mode mode)
    : m_path(path)
{
    int flags = SQLITE_OPEN_READONLY;
    std::string name = path.string();
    const char* vfs = nullptr;  // SQLite's default
    if (mode == Mode::Create) {
        flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE;
        vfs = writeCombiningVfs();
    } else if (mode == Mode::Published) {
        flags |= SQLITE_OPEN_URI;
        name = immutableUri(path);
        vfs = readAheadVfs();
    }
    // NOMUTEX: each connection is used by one thread at a time (the reader serialises).
    if (sqlite3_open_v2(name.c_str(), &m_db, flags | SQLITE_OPEN_NOMUTEX, vfs) != SQLITE_OK) {
        std::string msg = m_db ? sqlite3_errmsg(m_db) : "out of memory";
        sqlite3_close(m_db);
        m_db = nullptr;
        throw StoreError(path.string() + ": cannot open: " + msg);
    }
    sqlite3_extended_result_codes(m_db, 1);
}

SqliteDb::~SqliteDb()
{
    sqlite3_close_v2(m_db);
}

void SqliteDb::fail(const std::string& what) const
{
    throw StoreError(m_path.string() + ": " + what + ": " + sqlite3_errmsg(m_db));
}

void SqliteDb::exec(const char* sql)
{
    char* error = nullptr;
    if (sqlite3_exec(m_db, sql, nullptr, nullptr, &error) != SQLITE_OK) {
        std::string msg = error ? error : "unknown error";
        sqlite3_free(error);
        throw StoreError(m_path.string() + ": " + msg);
    }
}

SqliteStatement SqliteDb::prepare(std::string_view sql)
{
    sqlite3_stmt* stmt = nullptr;
    if (sqlite3_prepare_v3(m_db, sql.data(), static_cast<int>(sql.size()),
                           SQLITE_PREPARE_PERSISTENT, &stmt, nullptr)
        != SQLITE_OK)
        fail("cannot prepare '" + std::string(sql.substr(0, 60)) + "'");
    return SqliteStatement(*this, stmt);
}

bool SqliteDb::hasTable(std::string_view name)
{
    auto q = prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?");
    q.bind(1, name);
    return q.step();
}

SqliteStatement::SqliteStatement(const SqliteDb& db, sqlite3_stmt* stmt)
    : m_db(&db)
    , m_stmt(stmt)
{
}

SqliteStatement::~SqliteStatement()
{
    sqlite3_finalize(m_stmt);
}

SqliteStatement::SqliteStatement(SqliteStatement&& other) noexcept
    : m_db(other.m_db)
    , m_stmt(other.m_stmt)
{
    other.m_stmt = nullptr;
}

SqliteStatement& SqliteStatement::bind(int index, std::int64_t value)
{
    if (sqlite3_bind_int64(m_stmt, index, value) != SQLITE_OK)
        m_db->fail("bind");
    return *this;
}

SqliteStatement& SqliteStatement::bind(int index, double value)
{
    if (sqlite3_bind_double(m_stmt, index, value) != SQLITE_OK)
        m_db->fail("bind");
    return *this;
}

SqliteStatement& SqliteStatement::bind(int index, std::string_view text)
{
    if (sqlite3_bind_text(m_stmt, index, text.data(), static_cast<int>(text.size()),
                          SQLITE_TRANSIENT)
        != SQLITE_OK)
        m_db->fail("bind");
    return *this;
}

SqliteStatement& SqliteStatement::bindBlob(int index, std::string_view bytes)
{
    if (sqlite3_bind_blob(m_stmt, index, bytes.data(), static_cast<int>(bytes.size()),
                          SQLITE_STATIC)
        != SQLITE_OK)
        m_db->fail("bind");
    return *this;
}

bool SqliteStatement::step()
{
    const int rc = sqlite3_step(m_stmt);
    if (rc == SQLITE_ROW)
        return true;
    if (rc == SQLITE_DONE)
        return false;
    m_db->fail("query failed");
}

void SqliteStatement::run()
{
    while (step()) {
    }
    reset();
}

void SqliteStatement::reset()
{
    sqlite3_reset(m_stmt);
    sqlite3_clear_bindings(m_stmt);
}

std::int64_t SqliteStatement::int64(int column) const
{
    return sqlite3_column_int64(m_stmt, column);
}

double SqliteStatement::real(int column) const
{
    return sqlite3_column_double(m_stmt, column);
}

std::string_view SqliteStatement::text(int column) const
{
    const auto* p = reinterpret_cast<const char*>(sqlite3_column_text(m_stmt, column));
    return p ? std::string_view(p, static_cast<std::size_t>(sqlite3_column_bytes(m_stmt, column)))
             : std::string_view();
}

std::string_view SqliteStatement::blob(int column) const
{
    const auto* p = static_cast<const char*>(sqlite3_column_blob(m_stmt, column));
    return p ? std::string_view(p, static_cast<std::size_t>(sqlite3_column_bytes(m_stmt, column)))
             : std::string_view();
}

bool SqliteStatement::isNull(int column) const
{
    return sqlite3_column_type(m_stmt, column) == SQLITE_NULL;
}

namespace {

std::string insertSql(std::string_view table, int columns, int rows)
{
    std::string row = "(";
    for (int c = 0; c < columns; ++c)
        row += c == 0 ? "?" : ",?";
    row += ")";
    std::string sql = "INSERT INTO " + std::string(table) + " VALUES";
    for (int r = 0; r < rows; ++r)
        sql += (r == 0 ? "" : ",") + row;
    return sql;
}

}  // namespace

BatchedInsert::BatchedInsert(SqliteDb& db, std::string_view table, int columns)
    : m_columns(columns)
    , m_batch(db.prepare(insertSql(table, columns, kRows)))
    , m_one(db.prepare(insertSql(table, columns, 1)))
    , m_values(static_cast<std::size_t>(columns * kRows))
{}

BatchedInsert& BatchedInsert::value(std::int64_t v)
{
    Value& slot = m_values[m_used++];
    slot.number = v;
    slot.isBlob = false;
    return *this;
}

BatchedInsert& BatchedInsert::blob(std::string_view bytes)
{
    Value& slot = m_values[m_used++];
    slot.bytes.assign(bytes);
    slot.isBlob = true;
    return *this;
}

void BatchedInsert::endRow()
{
    if (m_used % static_cast<std::size_t>(m_columns) != 0)
        throw std::logic_error("BatchedInsert: a row with the wrong number of columns");
    if (m_used < m_values.size())
        return;
    for (std::size_t row = 0; row < std::size_t(kRows); ++row)
        bindRow(m_batch, row, static_cast<int>(row) * m_columns + 1);
    m_batch.run();
    m_used = 0;
}

void BatchedInsert::flush()
{
    for (std::size_t row = 0; row < m_used / static_cast<std::size_t>(m_columns); ++row) {
        bindRow(m_one, row, 1);
        m_one.run();
    }
    m_used = 0;
}

void BatchedInsert::bindRow(SqliteStatement& statement, std::size_t row, int firstIndex)
{
    for (int c = 0; c < m_columns; ++c) {
        const Value& v =
            m_values[row * static_cast<std::size_t>(m_columns) + static_cast<std::size_t>(c)];
        if (v.isBlob)
            statement.bindBlob(firstIndex + c, v.bytes);
        else
            statement.bind(firstIndex + c, v.number);
    }
}

} // namespace strata::storage
