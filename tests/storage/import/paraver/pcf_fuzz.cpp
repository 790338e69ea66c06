// Fuzz target: the Paraver text parsers that take text directly: the .pcf configuration,
// the .row labels and the .prv header line (the input's first line). InputError is the
// expected outcome of bad input, anything else escaping is a finding.

#include "storage/import/paraver/paraver_pcf.h"
#include "storage/store/input_error.h"
#include "tests/fuzz/fuzz_support.h"

#include <cstddef>
#include <cstdint>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    using namespace strata;
    const std::string_view text = fuzz::asView(data, size);
    try {
        (void)storage::parseParaverPcfText(text, "fuzz.pcf");
    } catch (const storage::InputError&) {
    }
    try {
        (void)storage::parseParaverRowText(text);
    } catch (const storage::InputError&) {
    }
    const std::string_view firstLine = text.substr(0, text.find('\n'));
    try {
        (void)storage::parseParaverHeader(firstLine, "fuzz.prv");
    } catch (const storage::InputError&) {
    }
    try {
        (void)storage::parseParaverHeader(firstLine, "fuzz.prv", 1);
    } catch (const storage::InputError&) {
    }
    return 0;
}
