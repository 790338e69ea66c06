// Fuzz target: format detection from a file's first bytes, and the --format name parser.
// Neither is expected to throw anything but InputError.

#include "storage/import/common/format_detect.h"
#include "storage/store/input_error.h"
#include "tests/fuzz/fuzz_support.h"

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    using namespace strata;
    const std::string_view head = fuzz::asView(data, size);
    try {
        const storage::TraceFormat format = storage::detectFormatFromHead(head);
        if (storage::formatName(format).empty())
            std::abort();  // every format has a name
    } catch (const storage::InputError&) {
    }
    (void)storage::parseFormatName(head.substr(0, 64));
    return 0;
}
