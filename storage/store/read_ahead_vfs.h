#pragma once
// An SQLite VFS for published store files that reads a tile's pages in one system call.
//
// Stores are written with 1 KiB pages (store_builder.cpp), so a summary tile of ~15 KB
// lies on ~16 overflow pages, and SQLite reads each with its own pread(): a cold jump of
// the timeline over the 100 M-event run made ~11 k of them, ~12 % of the jump's time.
// A tile's overflow pages lie one after the other in the file (the builder writes each
// tile at once), so once two reads follow each other this VFS reads the next
// 32 KB at once and serves the following pages from that copy. Reads that do
// not follow the previous one (a b-tree descent) go to the file as before, so a random
// lookup costs what it did.
//
// Only for files nothing writes while they are open (SqliteDb::Mode::Published): the copy
// is never invalidated. It is layered over SQLite's default VFS, which does the reading.

namespace strata::storage {

/// The name to give sqlite3_open_v2() for a published file; registers the VFS on first use.
const char* readAheadVfs();

}  // namespace strata::storage
