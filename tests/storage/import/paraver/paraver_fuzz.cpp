// Fuzz target: the Paraver importer. The input holds up to three files separated by lines
// "%%": the .prv, then optionally its .pcf and its .row. Each part is written to its own
// temporary file and the .prv is imported into a MemoryTrace; InputError is the expected
// outcome of bad input, anything else escaping is a finding.

#include "storage/import/paraver/paraver_importer.h"
#include "storage/store/input_error.h"
#include "storage/store/memory_trace.h"
#include "tests/fuzz/fuzz_support.h"

#include <array>
#include <cstddef>
#include <cstdint>
#include <string_view>

namespace {

constexpr std::string_view kSeparator = "\n%%\n";

/// Splits `input` at the first two separators: .prv, .pcf, .row (missing parts are empty
/// and flagged absent).
struct Parts
{
    std::array<std::string_view, 3> text;
    int count = 0;
};

Parts splitParts(std::string_view input)
{
    Parts parts;
    while (parts.count < 2) {
        const std::size_t at = input.find(kSeparator);
        if (at == std::string_view::npos)
            break;
        parts.text[static_cast<std::size_t>(parts.count++)] = input.substr(0, at);
        input.remove_prefix(at + kSeparator.size());
    }
    parts.text[static_cast<std::size_t>(parts.count++)] = input;
    return parts;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    using namespace strata;
    // The side files have another stem than the .prv, so the importer never picks up a stale
    // one by default: they are used only when this input has them.
    static fuzz::TempFile prv(".prv");
    static fuzz::TempFile pcf("_side.pcf");
    static fuzz::TempFile row("_side.row");
    const Parts parts = splitParts(fuzz::asView(data, size));
    storage::ParaverImportOptions options;
    prv.write(parts.text[0]);
    if (parts.count > 1)
        options.pcf = pcf.write(parts.text[1]);
    if (parts.count > 2)
        options.row = row.write(parts.text[2]);
    try {
        storage::MemoryTrace trace;
        const storage::ParaverImportStats stats = storage::importParaver(prv.path(), trace,
                                                                         options);
        (void)stats;
        (void)trace.eventCount();
    } catch (const storage::InputError&) {
    }
    return 0;
}
