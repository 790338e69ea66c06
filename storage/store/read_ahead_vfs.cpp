#include "storage/store/read_ahead_vfs.h"

#include "storage/store/layered_vfs.h"

#include <algorithm>
#include <cstring>

namespace strata::storage {

namespace {

/// Bytes read at once by a run of reads that follow each other.
constexpr int kReadAheadBytes = 32 << 10;

/// A file of this VFS (layered_vfs.h).
struct ReadAheadFile
{
    LayeredFile layer;
    sqlite3_int64 size;  ///< the file's size, taken at the first read ahead (-1 before)
    sqlite3_int64 nextOffset;  ///< where a read that follows the last one starts
    sqlite3_int64 copyOffset;  ///< what `copy` holds: [copyOffset, copyOffset + copyBytes)
    int copyBytes;
    char* copy;  ///< kReadAheadBytes, allocated at the first read ahead
};

constexpr int kLayerBytes = layerBytesOf(sizeof(ReadAheadFile));

int raRead(sqlite3_file* file, void* out, int amount, sqlite3_int64 offset)
{
    auto* f = reinterpret_cast<ReadAheadFile*>(file);
    sqlite3_file* real = f->layer.real;
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
    return f->layer.real->pMethods ? f->layer.real->pMethods->xClose(f->layer.real) : SQLITE_OK;
}

// Writes and truncation never come for a published file; the copy is kept right all the
// same.
int raWrite(sqlite3_file* file, const void* data, int amount, sqlite3_int64 offset)
{
    auto* f = reinterpret_cast<ReadAheadFile*>(file);
    f->copyBytes = 0;
    return f->layer.real->pMethods->xWrite(f->layer.real, data, amount, offset);
}
int raTruncate(sqlite3_file* file, sqlite3_int64 size)
{
    auto* f = reinterpret_cast<ReadAheadFile*>(file);
    f->copyBytes = 0;
    f->size = -1;
    return f->layer.real->pMethods->xTruncate(f->layer.real, size);
}
int raSync(sqlite3_file* file, int flags)
{
    sqlite3_file* real = reinterpret_cast<LayeredFile*>(file)->real;
    return real->pMethods->xSync(real, flags);
}
int raFileSize(sqlite3_file* file, sqlite3_int64* size)
{
    sqlite3_file* real = reinterpret_cast<LayeredFile*>(file)->real;
    return real->pMethods->xFileSize(real, size);
}

// No xFetch (layeredMethods): a memory map's pages would count in the viewer's resident
// memory.
constinit const sqlite3_io_methods kMethods =
    layeredMethods(raClose, raRead, raWrite, raTruncate, raSync, raFileSize);

LayeredVfs g_layer;

int raOpen(sqlite3_vfs*, sqlite3_filename name, sqlite3_file* file, int flags, int* outFlags)
{
    auto* f = reinterpret_cast<ReadAheadFile*>(file);
    f->size = -1;
    f->nextOffset = -1;
    f->copyOffset = 0;
    f->copyBytes = 0;
    f->copy = nullptr;
    return openLayered(g_layer.lower, file, kLayerBytes, name, flags, outFlags, &kMethods);
}

}  // namespace

const char* readAheadVfs()
{
    return g_layer.registered("strata-read-ahead", kLayerBytes, raOpen);
}

}  // namespace strata::storage
