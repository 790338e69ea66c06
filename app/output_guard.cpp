#include "app/output_guard.h"

#include "storage/import/common/format_detect.h"
#include "storage/store/input_error.h"

namespace strata::app {

void checkOutputSparesInputs(
    const std::filesystem::path& output, const std::vector<std::filesystem::path>& inputs)
{
    for (const std::filesystem::path& input : inputs) {
        // equivalent() follows symlinks and compares st_dev and st_ino; it fails (false,
        // with ec set) when the output does not exist yet, which is safe.
        std::error_code ec;
        if (std::filesystem::equivalent(output, input, ec))
            throw storage::InputError("the output would overwrite input " + input.string());
    }
}

void checkStoreOutputReplaceable(const std::filesystem::path& output)
{
    std::error_code ec;
    if (!std::filesystem::exists(output, ec))
        return;
    if (!std::filesystem::is_regular_file(output, ec)
        || storage::detectFormat(output) != storage::TraceFormat::Strata)
        throw storage::InputError(output.string()
            + ": exists and is not a Strata store; not replacing it (remove it or "
              "choose another output)");
}

}  // namespace strata::app
