#pragma once
// An SQLite VFS for the files a builder creates, that hands the file system one write for
// many pages.
//
// Stores are written with 1 KiB pages (store_builder.cpp), and SQLite writes each page
// with its own pwrite() as it spills its page cache: 43 k system calls for the two
// 22 MB shards of a 500 MB two-file JSON ingest, ~3 % of its CPU. The pages come in
// about file order (the tiles table grows at its end), not exactly: a tile's b-tree leaf
// comes after its overflow pages, sometimes after the next tiles'. So this VFS keeps
// the writes that land in one aligned window of 1 MiB of the file, and writes each run
// of them at once (2 k system calls for those shards) when a write lands outside the
// window, and before anything else touches the file: a read of a page it holds in part,
// a sync, the size, a truncation, the close, and the commit's SQLITE_FCNTL_SYNC (sent
// even with synchronous=OFF, when SQLite calls no xSync). The file ends byte for byte as
// the default VFS writes it. A write of the window that fails (a full disk) fails the
// call that made it, and every later call on the file: no commit follows lost pages.
//
// Only the database file is layered: journals and temporary files go straight to the
// VFS underneath, SQLite's default when this one was registered (layered_vfs.h).

namespace strata::storage {

/// The name to give sqlite3_open_v2() for a file being created; registers the VFS on
/// first use.
const char* writeCombiningVfs();

}  // namespace strata::storage
