// Fuzz target: the Nsight Systems importer. The input is one file: an SQLite export (plain
// or gzip) or an `nsys stats` NVTX CSV, imported into a MemoryTrace; InputError is the
// expected outcome of bad input (SQLite's own errors included), anything else escaping is a
// finding. Seeds: a tiny export with every table the importer reads, gzipped too, and a CSV.

#include "storage/import/nsys/nsys_importer.h"
#include "storage/store/input_error.h"
#include "storage/store/memory_trace.h"

#include "tests/fuzz/fuzz_support.h"

#include <cstddef>
#include <cstdint>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    using namespace strata;
    static fuzz::TempFile input(".nsys");
    input.write(fuzz::asView(data, size));
    try {
        storage::MemoryTrace trace;
        const storage::NsysImportStats stats = storage::importNsys(input.path(), trace);
        (void)stats;
        (void)trace.eventCount();
    } catch (const storage::InputError&) {}
    return 0;
}
