#pragma once
// What the store's SQLite VFSes share: each is layered over SQLite's default VFS (the one
// that was the default when the layer was registered), which does the file work, and
// changes only how a file's reads or writes reach it (read_ahead_vfs.h,
// write_combining_vfs.h). The layer's file comes first in the allocation SQLite makes for
// it, the default VFS's file after it.

#include <sqlite3.h>

#include <mutex>

namespace strata::storage {

/// The first members of every layered file.
struct LayeredFile
{
    sqlite3_file base;  ///< base.pMethods: the layer's methods
    sqlite3_file* real;  ///< the default VFS's file
};

// The methods a layer leaves to the default VFS's file.
int layeredLock(sqlite3_file* file, int level);
int layeredUnlock(sqlite3_file* file, int level);
int layeredCheckReservedLock(sqlite3_file* file, int* out);
int layeredFileControl(sqlite3_file* file, int op, void* arg);
int layeredSectorSize(sqlite3_file* file);
int layeredDeviceCharacteristics(sqlite3_file* file);

/// Methods of version 1 (no shared memory, so no WAL; no xFetch, so no memory map) with
/// the layer's own close, read, write, truncate, sync and size; the others are the
/// default VFS's. A constant: a layer's table is ready before any code runs.
constexpr sqlite3_io_methods layeredMethods(int (*close)(sqlite3_file*),
    int (*read)(sqlite3_file*, void*, int, sqlite3_int64),
    int (*write)(sqlite3_file*, const void*, int, sqlite3_int64),
    int (*truncate)(sqlite3_file*, sqlite3_int64), int (*sync)(sqlite3_file*, int),
    int (*fileSize)(sqlite3_file*, sqlite3_int64*),
    int (*fileControl)(sqlite3_file*, int, void*) = layeredFileControl)
{
    return sqlite3_io_methods { 1, close, read, write, truncate, sync, fileSize, layeredLock,
        layeredUnlock, layeredCheckReservedLock, fileControl, layeredSectorSize,
        layeredDeviceCharacteristics, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr };
}

/// Opens `name` with `lower` into the space after the layer's `layerBytes`, and gives
/// `file` the layer's `methods` when that succeeded.
int openLayered(sqlite3_vfs* lower, sqlite3_file* file, int layerBytes, sqlite3_filename name,
    int flags, int* outFlags, const sqlite3_io_methods* methods);

/// One layer: the sqlite3_vfs SQLite calls, and the default VFS it lies over.
struct LayeredVfs
{
    sqlite3_vfs vfs {};
    /// SQLite's default VFS when the layer was registered, which the layer's files must
    /// be opened with (a VFS made the default later has files of another size).
    sqlite3_vfs* lower = nullptr;
    std::once_flag once;

    /// Registers the layer on first use (not as the default), as a copy of the default
    /// VFS named `name`, whose files are `layerBytes` of the layer's followed by the
    /// default VFS's, opened by `open`; returns the name to give sqlite3_open_v2().
    /// Throws std::runtime_error when SQLite refuses.
    const char* registered(const char* name, int layerBytes,
        int (*open)(sqlite3_vfs*, sqlite3_filename, sqlite3_file*, int, int*));
};

/// Bytes a layer's file takes, rounded up so that the default VFS's file that follows is
/// aligned.
constexpr int layerBytesOf(unsigned long size)
{
    return static_cast<int>((size + 7) & ~7ul);
}

}  // namespace strata::storage
