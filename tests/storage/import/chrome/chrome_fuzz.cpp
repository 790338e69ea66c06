// Fuzz target: the Chrome JSON importer (plain and gzip input, object and bare array forms).
// The input is written to a temporary file and imported into a MemoryTrace; InputError is
// the expected outcome of bad input, anything else escaping is a finding.

#include "storage/import/chrome/chrome_json_importer.h"
#include "storage/store/input_error.h"
#include "storage/store/memory_trace.h"
#include "tests/fuzz/fuzz_support.h"

#include <cstddef>
#include <cstdint>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    using namespace strata;
    static fuzz::TempFile file(".json");
    const auto& path = file.write(fuzz::asView(data, size));
    try {
        storage::MemoryTrace trace;
        const storage::ImportStats stats = storage::importChromeJson(path, trace);
        (void)stats.rows();
        (void)trace.eventCount();
    } catch (const storage::InputError&) {
    }
    try {
        (void)storage::chromeTraceOriginNs(path);
    } catch (const storage::InputError&) {
    }
    return 0;
}
