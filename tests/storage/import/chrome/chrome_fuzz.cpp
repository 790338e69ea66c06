// Fuzz target: the Chrome JSON importer (plain and gzip input, object and bare array forms).
// The input is written to a temporary file and imported into a MemoryTrace; InputError is
// the expected outcome of bad input, anything else escaping is a finding. So are args that
// are not minified: the importer minifies them (chrome_json_converter.cpp), or takes them
// as written when its checked scan saw no white space in the event.

#include "storage/import/chrome/chrome_json_importer.h"
#include "storage/import/chrome/json_scan.h"
#include "storage/store/input_error.h"
#include "storage/store/memory_trace.h"
#include "tests/fuzz/fuzz_support.h"

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace {

void requireMinified(const std::vector<std::string>& args)
{
    for (const std::string& text : args) {
        if (!text.empty() && !strata::storage::isMinifiedJson(text)) {
            std::fprintf(stderr, "chrome_fuzz: args kept with white space: %s\n", text.c_str());
            std::abort();
        }
    }
}

}  // namespace

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
        for (model::TrackId id = 0; id < trace.resources().size(); ++id) {
            requireMinified(trace.track(id).intervalArgs);
            requireMinified(trace.track(id).instantArgs);
        }
    } catch (const storage::InputError&) {
    }
    try {
        (void)storage::chromeTraceOriginNs(path);
    } catch (const storage::InputError&) {
    }
    return 0;
}
