#include "storage/store/layered_vfs.h"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace strata::storage {

namespace {

sqlite3_file* realOf(sqlite3_file* file)
{
    return reinterpret_cast<LayeredFile*>(file)->real;
}

}  // namespace

int layeredLock(sqlite3_file* file, int level)
{
    return realOf(file)->pMethods->xLock(realOf(file), level);
}
int layeredUnlock(sqlite3_file* file, int level)
{
    return realOf(file)->pMethods->xUnlock(realOf(file), level);
}
int layeredCheckReservedLock(sqlite3_file* file, int* out)
{
    return realOf(file)->pMethods->xCheckReservedLock(realOf(file), out);
}
int layeredFileControl(sqlite3_file* file, int op, void* arg)
{
    return realOf(file)->pMethods->xFileControl(realOf(file), op, arg);
}
int layeredSectorSize(sqlite3_file* file)
{
    return realOf(file)->pMethods->xSectorSize(realOf(file));
}
int layeredDeviceCharacteristics(sqlite3_file* file)
{
    return realOf(file)->pMethods->xDeviceCharacteristics(realOf(file));
}

int openLayered(sqlite3_vfs* lower, sqlite3_file* file, int layerBytes, sqlite3_filename name,
    int flags, int* outFlags, const sqlite3_io_methods* methods)
{
    auto* f = reinterpret_cast<LayeredFile*>(file);
    f->base.pMethods = nullptr;
    f->real = reinterpret_cast<sqlite3_file*>(reinterpret_cast<char*>(file) + layerBytes);
    const int rc = lower->xOpen(lower, name, f->real, flags, outFlags);
    // SQLite closes a file whose xOpen failed only when it has methods: the default VFS
    // then has none, and neither has the layer.
    if (f->real->pMethods)
        f->base.pMethods = methods;
    return rc;
}

const char* LayeredVfs::registered(const char* name, int layerBytes,
    int (*open)(sqlite3_vfs*, sqlite3_filename, sqlite3_file*, int, int*))
{
    std::call_once(once, [&] {
        sqlite3_vfs* fallback = sqlite3_vfs_find(nullptr);
        if (!fallback)
            throw std::runtime_error("SQLite has no default VFS");
        // The default VFS's own functions, which find their state through the copied
        // pAppData; only the file differs.
        vfs = *fallback;
        vfs.iVersion = std::min(fallback->iVersion, 3);
        vfs.szOsFile = layerBytes + fallback->szOsFile;
        vfs.zName = name;
        vfs.pNext = nullptr;
        vfs.xOpen = open;
        if (sqlite3_vfs_register(&vfs, 0) != SQLITE_OK)
            throw std::runtime_error(std::string("cannot register SQLite's VFS ") + name);
        lower = fallback;
    });
    return vfs.zName;
}

}  // namespace strata::storage
