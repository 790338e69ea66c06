// Fuzz target: the perf script importer. The input is written to a temporary file and imported
// into a MemoryTrace; InputError is the expected outcome of bad input, anything else
// escaping (or a crash, or a sanitizer report) is a finding.

#include "storage/import/stacks/perf_script_importer.h"
#include "storage/store/input_error.h"
#include "storage/store/memory_trace.h"
#include "tests/fuzz/fuzz_support.h"

#include <cstddef>
#include <cstdint>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    using namespace strata;
    static fuzz::TempFile input(".perf_script.txt");
    input.write(fuzz::asView(data, size));
    try {
        storage::MemoryTrace trace;
        (void)storage::importPerfScript(input.path(), trace);
        (void)trace.eventCount();
    } catch (const storage::InputError&) {
    }
    return 0;
}
