#include "app/input_store.h"

#include "storage/import/common/format_detect.h"
#include "storage/store/store_reader.h"

#include <unistd.h>

#include <cstdlib>
#include <functional>

namespace strata::app {

std::filesystem::path cacheFolder()
{
    const char* xdg = std::getenv("XDG_CACHE_HOME");
    const char* home = std::getenv("HOME");
    const std::filesystem::path base = xdg && *xdg ? std::filesystem::path(xdg)
        : home                                     ? std::filesystem::path(home) / ".cache"
                                                   : std::filesystem::temp_directory_path();
    const std::filesystem::path folder = base / "strata";
    std::filesystem::create_directories(folder);
    return folder;
}

std::filesystem::path storePathFor(const std::vector<std::filesystem::path>& inputs)
{
    const std::filesystem::path& first = inputs.front();
    const std::filesystem::path folder = std::filesystem::absolute(first).parent_path();
    std::string name = first.filename().string()
        + (inputs.size() > 1 ? "+" + std::to_string(inputs.size() - 1) : "") + ".strata";
    if (::access(folder.c_str(), W_OK) == 0)
        return folder / name;
    // Read-only folder: a cache entry named after the signature, so each set of files
    // gets its own store.
    const std::size_t hash = std::hash<std::string>()(sourceSignature(inputs));
    return cacheFolder() / (std::to_string(hash) + "-" + name);
}

bool storeIsCurrent(
    const std::filesystem::path& store, const std::vector<std::filesystem::path>& inputs)
{
    std::error_code ec;
    if (!std::filesystem::exists(store, ec))
        return false;
    try {
        const storage::StoreReader reader(store);
        return reader.meta("source_signature") == sourceSignature(inputs);
    } catch (const std::exception&) {
        return false;  // not a store we can read: build it again
    }
}

InputStore storeForInputs(
    const std::vector<std::filesystem::path>& inputs, const IngestProgress& progress)
{
    if (inputs.size() == 1 && storage::detectFormat(inputs[0]) == storage::TraceFormat::Strata)
        return { inputs[0], {}, {} };
    IngestRequest request;
    request.inputs = inputs;
    request.output = storePathFor(inputs);
    if (storeIsCurrent(request.output, inputs))
        return { request.output, {}, {} };
    IngestSummary summary = ingestTraces(request, progress);
    return { request.output, request, std::move(summary) };
}

}  // namespace strata::app
