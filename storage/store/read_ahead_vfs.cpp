#include "storage/store/read_ahead_vfs.h"

#include <sqlite3.h>

#include <algorithm>
#include <cstring>
#include <mutex>
#include <stdexcept>

namespace strata::storage {

namespace {

/// Bytes read at once by a run of reads that follow each other.
constexpr int kReadAheadBytes = 32 << 10;

/// The VFS's file: ours first, the default VFS's file after it in the same allocation
/// (SQLite allocates szOsFile bytes and hands them to xOpen).
struct ReadAheadFile
{
    sqlite3_file base;  ///< base.pMethods = &kMethods
    sqlite3_file* real;
    sqlite3_int64 size;  ///< the file's size, taken at the first read ahead (-1 before)
    sqlite3_int64 nextOffset;  ///< where a read that follows the last one starts
    sqlite3_int64 copyOffset;  ///< what `copy` holds: [copyOffset, copyOffset + copyBytes)
    int copyBytes;
    char* copy;  ///< kReadAheadBytes, allocated at the first read ahead
};

constexpr int kRealOffset = (sizeof(ReadAheadFile) + 7) & ~7;

sqlite3_vfs* g_default = nullptr;

sqlite3_file* realOf(sqlite3_file* file)
{
    return reinterpret_cast<ReadAheadFile*>(file)->real;
}

int raRead(sqlite3_file* file, void* out, int amount, sqlite3_int64 offset)
{
    auto* f = reinterpret_cast<ReadAheadFile*>(file);
    sqlite3_file* real = f->real;
    const bool follows = offset == f->nextOffset;
    f->nextOffset = offset + amount;
    if (offset >= f->copyOffset && offset + amount <= f->copyOffset + f->copyBytes) {
        std::memcpy(out, f->copy + (offset - f->copyOffset), static_cast<std::size_t>(amount));
        return SQLITE_OK;
    }
    if (!follows || amount >= kReadAheadBytes)
        return real->pMethods->xRead(real, out, amount, offset);
    if (f->size < 0 && real->pMethods->xFileSize(real, &f->size) != SQLITE_OK)
        f->size = 0;  // unknown: read page by page
    const auto bytes = static_cast<int>(std::min<sqlite3_int64>(kReadAheadBytes, f->size - offset));
    if (!f->copy)
        f->copy = static_cast<char*>(sqlite3_malloc(kReadAheadBytes));
    // Near the end of the file, or out of memory: the default VFS reads it, and reports a
    // short read as it always does.
    if (bytes < amount || !f->copy)
        return real->pMethods->xRead(real, out, amount, offset);
    f->copyBytes = 0;
    const int rc = real->pMethods->xRead(real, f->copy, bytes, offset);
    if (rc != SQLITE_OK)
        return real->pMethods->xRead(real, out, amount, offset);
    f->copyOffset = offset;
    f->copyBytes = bytes;
    std::memcpy(out, f->copy, static_cast<std::size_t>(amount));
    return SQLITE_OK;
}

int raClose(sqlite3_file* file)
{
    auto* f = reinterpret_cast<ReadAheadFile*>(file);
    sqlite3_free(f->copy);
    f->copy = nullptr;
    return f->real->pMethods ? f->real->pMethods->xClose(f->real) : SQLITE_OK;
}

// The rest is the default VFS's. Version 1 of the methods: no shared memory (an immutable
// file has no WAL) and no xFetch (no memory map: its pages would count in the viewer's
// resident memory).
int raWrite(sqlite3_file* file, const void* data, int amount, sqlite3_int64 offset)
{
    auto* f = reinterpret_cast<ReadAheadFile*>(file);
    f->copyBytes = 0;  // never for a published file; kept right all the same
    return f->real->pMethods->xWrite(f->real, data, amount, offset);
}
int raTruncate(sqlite3_file* file, sqlite3_int64 size)
{
    auto* f = reinterpret_cast<ReadAheadFile*>(file);
    f->copyBytes = 0;
    f->size = -1;
    return f->real->pMethods->xTruncate(f->real, size);
}
int raSync(sqlite3_file* file, int flags)
{
    return realOf(file)->pMethods->xSync(realOf(file), flags);
}
int raFileSize(sqlite3_file* file, sqlite3_int64* size)
{
    return realOf(file)->pMethods->xFileSize(realOf(file), size);
}
int raLock(sqlite3_file* file, int lock)
{
    return realOf(file)->pMethods->xLock(realOf(file), lock);
}
int raUnlock(sqlite3_file* file, int lock)
{
    return realOf(file)->pMethods->xUnlock(realOf(file), lock);
}
int raCheckReservedLock(sqlite3_file* file, int* out)
{
    return realOf(file)->pMethods->xCheckReservedLock(realOf(file), out);
}
int raFileControl(sqlite3_file* file, int op, void* arg)
{
    return realOf(file)->pMethods->xFileControl(realOf(file), op, arg);
}
int raSectorSize(sqlite3_file* file)
{
    return realOf(file)->pMethods->xSectorSize(realOf(file));
}
int raDeviceCharacteristics(sqlite3_file* file)
{
    return realOf(file)->pMethods->xDeviceCharacteristics(realOf(file));
}

const sqlite3_io_methods kMethods = {
    1,
    raClose,
    raRead,
    raWrite,
    raTruncate,
    raSync,
    raFileSize,
    raLock,
    raUnlock,
    raCheckReservedLock,
    raFileControl,
    raSectorSize,
    raDeviceCharacteristics,
    nullptr,
    nullptr,
    nullptr,
    nullptr,
    nullptr,
    nullptr,
};

int raOpen(sqlite3_vfs*, sqlite3_filename name, sqlite3_file* file, int flags, int* outFlags)
{
    auto* f = reinterpret_cast<ReadAheadFile*>(file);
    f->base.pMethods = nullptr;
    f->real = reinterpret_cast<sqlite3_file*>(reinterpret_cast<char*>(file) + kRealOffset);
    f->size = -1;
    f->nextOffset = -1;
    f->copyOffset = 0;
    f->copyBytes = 0;
    f->copy = nullptr;
    const int rc = g_default->xOpen(g_default, name, f->real, flags, outFlags);
    // SQLite closes a file whose xOpen failed only when it has methods: the default VFS
    // then has none, and neither has ours.
    if (f->real->pMethods)
        f->base.pMethods = &kMethods;
    return rc;
}

sqlite3_vfs g_readAhead;

}  // namespace

const char* readAheadVfs()
{
    static std::once_flag once;
    std::call_once(once, [] {
        g_default = sqlite3_vfs_find(nullptr);
        if (!g_default)
            throw std::runtime_error("SQLite has no default VFS");
        // The default VFS's own functions, which find their state through the copied
        // pAppData; only the file differs.
        g_readAhead = *g_default;
        g_readAhead.iVersion = std::min(g_default->iVersion, 3);
        g_readAhead.szOsFile = kRealOffset + g_default->szOsFile;
        g_readAhead.zName = "strata-read-ahead";
        g_readAhead.pNext = nullptr;
        g_readAhead.xOpen = raOpen;
        if (sqlite3_vfs_register(&g_readAhead, 0) != SQLITE_OK)
            throw std::runtime_error("cannot register SQLite's read-ahead VFS");
    });
    return g_readAhead.zName;
}

}  // namespace strata::storage
