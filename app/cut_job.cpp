#include "app/cut_job.h"

#include "storage/export/chrome_json_writer.h"
#include "storage/export/paraver_writer.h"
#include "storage/store/store_builder.h"
#include "storage/store/store_reader.h"

#include <stdexcept>

namespace strata::app {

namespace {

enum class CutFormat { Store, Chrome, Paraver, None };

CutFormat outputFormat(const std::filesystem::path& output)
{
    const std::string path = output.string();
    if (path.ends_with(".strata"))
        return CutFormat::Store;
    if (path.ends_with(".json") || path.ends_with(".json.gz"))
        return CutFormat::Chrome;
    if (path.ends_with(".prv"))
        return CutFormat::Paraver;
    return CutFormat::None;
}

/// Runs the cut into `sink` and finishes it (the writers' finish() renames into place).
template<typename Sink>
storage::CutStats cutInto(storage::StoreReader& store, Sink& sink, const storage::CutOptions& options)
{
    const storage::CutStats stats = storage::cutTrace(store, sink, options);
    sink.finish();
    return stats;
}

} // namespace

bool cutWritesTo(const std::filesystem::path& path)
{
    return outputFormat(path) != CutFormat::None;
}

storage::CutStats cutToFile(storage::StoreReader& store, const std::filesystem::path& output,
                            const storage::CutOptions& options)
{
    switch (outputFormat(output)) {
    case CutFormat::Store: {
        storage::StoreBuildOptions buildOptions;
        // The cut already streams; keep the builder's buffers modest too (it spills beyond).
        buildOptions.memoryBudgetBytes = std::size_t(256) << 20;
        buildOptions.progress = options.progress;
        storage::StoreBuilder builder(output, buildOptions);
        return cutInto(store, builder, options);
    }
    case CutFormat::Chrome: {
        storage::ChromeJsonWriter writer(output);
        return cutInto(store, writer, options);
    }
    case CutFormat::Paraver: {
        storage::ParaverWriter writer(output);
        return cutInto(store, writer, options);
    }
    case CutFormat::None: break;
    }
    throw std::invalid_argument("cut writes .strata, .json, .json.gz or .prv, not '" + output.string() + "'");
}

} // namespace strata::app
