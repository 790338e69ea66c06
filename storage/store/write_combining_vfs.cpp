#include "storage/store/write_combining_vfs.h"

#include "storage/store/layered_vfs.h"

#include <algorithm>
#include <bitset>
#include <cstring>
#include <new>

namespace strata::storage {

namespace {

/// Bytes of the file the buffer stands for. SQLite writes a tile's first page (the b-tree
/// leaf that holds its row) after the overflow pages that follow it, sometimes after the
/// next tiles' pages: a window of 1 MiB takes in nearly all of them.
constexpr int kBufferBytes = 1 << 20;

/// The most a write gives the default VFS at once: it writes at most 128 KiB - 1 (its
/// seekAndWriteFd() masks the length with 0x1ffff).
constexpr int kMostWrittenBytes = 64 << 10;

/// The unit of what the buffer holds: SQLite's smallest page.
constexpr int kUnitBytes = 512;
constexpr int kUnits = kBufferBytes / kUnitBytes;

/// A file of this VFS (layered_vfs.h).
struct CombiningFile
{
    LayeredFile layer;
    char* buffer;  ///< kBufferBytes, allocated at the first write
    /// The buffer stands for the file's bytes [window, window + kBufferBytes), a multiple
    /// of kBufferBytes, and holds what was written to the units whose bit is set.
    sqlite3_int64 window;
    std::bitset<kUnits> written;
    int lowest;  ///< the written units lie in [lowest, highest): none when lowest >= highest
    int highest;
    /// The error of a write of the buffer that failed, kept: whatever call wrote the
    /// buffer (a read, whose error SQLite may not stop the transaction for), every later
    /// call fails with it, so that no transaction commits without those pages.
    int error;
};

constexpr int kLayerBytes = layerBytesOf(sizeof(CombiningFile));

sqlite3_file* realOf(sqlite3_file* file)
{
    return reinterpret_cast<LayeredFile*>(file)->real;
}

/// Writes what the buffer holds, in writes of up to kMostWrittenBytes of each run of
/// written units; the buffer is empty after, written or not. After an earlier failure it
/// writes nothing and returns that error.
int flush(CombiningFile* f)
{
    if (f->error != SQLITE_OK)
        return f->error;
    int rc = SQLITE_OK;
    for (int unit = f->lowest; unit < f->highest;) {
        if (!f->written[unit]) {
            ++unit;
            continue;
        }
        const int first = unit;
        while (unit < f->highest && f->written[unit])
            f->written[unit++] = false;
        for (int from = first; rc == SQLITE_OK && from < unit;
             from += kMostWrittenBytes / kUnitBytes) {
            const int units = std::min(unit - from, kMostWrittenBytes / kUnitBytes);
            rc = f->layer.real->pMethods->xWrite(f->layer.real, f->buffer + from * kUnitBytes,
                units * kUnitBytes, f->window + from * kUnitBytes);
        }
    }
    f->lowest = kUnits;
    f->highest = 0;
    f->error = rc;
    return rc;
}

/// The units [first, end) of the window that bytes [offset, offset + amount) cover, when
/// they lie in the window and cover whole units.
bool unitsOf(const CombiningFile* f, sqlite3_int64 offset, int amount, int& first, int& end)
{
    if (offset < f->window || offset + amount > f->window + kBufferBytes || offset % kUnitBytes != 0
        || amount % kUnitBytes != 0)
        return false;
    first = static_cast<int>((offset - f->window) / kUnitBytes);
    end = first + amount / kUnitBytes;
    return true;
}

int wcWrite(sqlite3_file* file, const void* data, int amount, sqlite3_int64 offset)
{
    // A write of whole units in the window joins the buffer, wherever it lies in it.
    auto* f = reinterpret_cast<CombiningFile*>(file);
    if (f->error != SQLITE_OK)
        return f->error;
    int first = 0;
    int end = 0;
    if (!f->buffer || !unitsOf(f, offset, amount, first, end)) {
        if (const int rc = flush(f); rc != SQLITE_OK)
            return rc;
        if (!f->buffer)
            f->buffer = static_cast<char*>(sqlite3_malloc(kBufferBytes));
        f->window = offset - offset % kBufferBytes;
        // Out of memory, or not whole units in the window (a journal's records): written
        // at once.
        if (!f->buffer || !unitsOf(f, offset, amount, first, end))
            return f->layer.real->pMethods->xWrite(f->layer.real, data, amount, offset);
    }
    std::memcpy(f->buffer + (offset - f->window), data, static_cast<std::size_t>(amount));
    for (int unit = first; unit < end; ++unit)
        f->written[unit] = true;
    f->lowest = std::min(f->lowest, first);
    f->highest = std::max(f->highest, end);
    return SQLITE_OK;
}

int wcRead(sqlite3_file* file, void* out, int amount, sqlite3_int64 offset)
{
    auto* f = reinterpret_cast<CombiningFile*>(file);
    if (f->error != SQLITE_OK)
        return f->error;
    const sqlite3_int64 heldFrom = f->window + sqlite3_int64(f->lowest) * kUnitBytes;
    const sqlite3_int64 heldTo = f->window + sqlite3_int64(f->highest) * kUnitBytes;
    if (offset < heldTo && offset + amount > heldFrom) {
        // The file has the bytes of the units the buffer does not hold.
        int first = 0;
        int end = 0;
        const bool units = unitsOf(f, offset, amount, first, end);
        int held = 0;
        for (int unit = first; units && unit < end; ++unit)
            held += f->written[unit] ? 1 : 0;
        if (units && held == end - first) {
            std::memcpy(out, f->buffer + (offset - f->window), static_cast<std::size_t>(amount));
            return SQLITE_OK;
        }
        if (!units || held > 0) {  // some of it in the buffer, maybe: the file first
            if (const int rc = flush(f); rc != SQLITE_OK)
                return rc;
        }
    }
    return realOf(file)->pMethods->xRead(realOf(file), out, amount, offset);
}

int wcClose(sqlite3_file* file)
{
    auto* f = reinterpret_cast<CombiningFile*>(file);
    const int flushed = flush(f);
    sqlite3_free(f->buffer);
    f->buffer = nullptr;
    const int closed = realOf(file)->pMethods->xClose(realOf(file));
    return flushed != SQLITE_OK ? flushed : closed;
}

int wcTruncate(sqlite3_file* file, sqlite3_int64 size)
{
    if (const int rc = flush(reinterpret_cast<CombiningFile*>(file)); rc != SQLITE_OK)
        return rc;
    return realOf(file)->pMethods->xTruncate(realOf(file), size);
}

int wcSync(sqlite3_file* file, int flags)
{
    if (const int rc = flush(reinterpret_cast<CombiningFile*>(file)); rc != SQLITE_OK)
        return rc;
    return realOf(file)->pMethods->xSync(realOf(file), flags);
}

int wcFileSize(sqlite3_file* file, sqlite3_int64* size)
{
    if (const int rc = flush(reinterpret_cast<CombiningFile*>(file)); rc != SQLITE_OK)
        return rc;
    return realOf(file)->pMethods->xFileSize(realOf(file), size);
}

int wcFileControl(sqlite3_file* file, int op, void* arg)
{
    // The commit's SQLITE_FCNTL_SYNC comes even with synchronous=OFF, when SQLite calls no
    // xSync: the buffer is written then, and its error fails the commit. Other controls
    // leave the file's bytes alone (a size hint only allocates past its end).
    if (op == SQLITE_FCNTL_SYNC || op == SQLITE_FCNTL_BEGIN_ATOMIC_WRITE
        || op == SQLITE_FCNTL_COMMIT_ATOMIC_WRITE) {
        if (const int rc = flush(reinterpret_cast<CombiningFile*>(file)); rc != SQLITE_OK)
            return rc;
    }
    return realOf(file)->pMethods->xFileControl(realOf(file), op, arg);
}

constinit const sqlite3_io_methods kMethods =
    layeredMethods(wcClose, wcRead, wcWrite, wcTruncate, wcSync, wcFileSize, wcFileControl);

LayeredVfs g_layer;

int wcOpen(sqlite3_vfs*, sqlite3_filename name, sqlite3_file* file, int flags, int* outFlags)
{
    // Only the database itself: a journal's or a temporary file's writes go straight to
    // the VFS under this one, which opens them in the space SQLite gave.
    if ((flags & SQLITE_OPEN_MAIN_DB) == 0)
        return g_layer.lower->xOpen(g_layer.lower, name, file, flags, outFlags);
    auto* f = reinterpret_cast<CombiningFile*>(file);
    f->buffer = nullptr;
    f->window = 0;
    new (&f->written) std::bitset<kUnits>();
    f->lowest = kUnits;
    f->highest = 0;
    f->error = SQLITE_OK;
    return openLayered(g_layer.lower, file, kLayerBytes, name, flags, outFlags, &kMethods);
}

}  // namespace

const char* writeCombiningVfs()
{
    return g_layer.registered("strata-write-combining", kLayerBytes, wcOpen);
}

}  // namespace strata::storage
