// Fuzz target: the counter log importer (CSV with a time column), alone and with a given
// origin. InputError is the expected outcome of bad input, anything else escaping is a
// finding.

#include "storage/import/counters/counter_log_importer.h"
#include "storage/store/input_error.h"
#include "storage/store/memory_trace.h"

#include "tests/fuzz/fuzz_support.h"

#include <cstddef>
#include <cstdint>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    using namespace strata;
    static fuzz::TempFile file(".counters.csv");
    const auto& path = file.write(fuzz::asView(data, size));
    for (const bool withOrigin : { false, true }) {
        try {
            storage::MemoryTrace trace;
            storage::CounterLogOptions options;
            if (withOrigin)
                options.originNs = 1'700'000'000'000'000'000;
            (void)storage::importCounterLog(path, trace, options);
        } catch (const storage::InputError&) {}
    }
    return 0;
}
