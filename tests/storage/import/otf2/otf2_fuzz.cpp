// Fuzz target: the OTF2 importer (and libotf2's readers under it). The input is a whole
// archive, its files separated by lines "%%": the anchor, the global definitions, then per
// location N = 0, 1, ... its local definitions and its events. The parts are written as
// DIR/traces.otf2, DIR/traces.def, DIR/traces/N.def, DIR/traces/N.evt in a per-process
// folder and the folder is imported into a MemoryTrace; InputError is the expected outcome
// of bad input, anything else escaping is a finding.

#include "storage/import/otf2/otf2_importer.h"
#include "storage/store/input_error.h"
#include "storage/store/memory_trace.h"

#include "tests/fuzz/fuzz_support.h"
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace {

namespace fs = std::filesystem;

constexpr std::string_view kSeparator = "\n%%\n";

std::vector<std::string_view> splitParts(std::string_view input)
{
    std::vector<std::string_view> parts;
    for (;;) {
        const std::size_t at = input.find(kSeparator);
        parts.push_back(input.substr(0, at));
        if (at == std::string_view::npos)
            return parts;
        input.remove_prefix(at + kSeparator.size());
    }
}

/// A folder for this process's archive, emptied before each input, removed at exit.
class ArchiveDir
{
public:
    ArchiveDir()
        : m_path(
            fs::temp_directory_path() / ("strata_fuzz_" + std::to_string(::getpid()) + "_otf2"))
    {}
    ~ArchiveDir()
    {
        std::error_code ignored;
        fs::remove_all(m_path, ignored);
    }
    ArchiveDir(const ArchiveDir&) = delete;
    ArchiveDir& operator=(const ArchiveDir&) = delete;

    const fs::path& reset()
    {
        std::error_code ignored;
        fs::remove_all(m_path, ignored);
        fs::create_directories(m_path / "traces");
        return m_path;
    }

private:
    fs::path m_path;
};

void writeFile(const fs::path& path, std::string_view bytes)
{
    strata::fuzz::TempFile::writeTo(path, bytes);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    using namespace strata;
    static ArchiveDir archive;
    const fs::path& dir = archive.reset();
    const std::vector<std::string_view> parts = splitParts(fuzz::asView(data, size));
    writeFile(dir / "traces.otf2", parts[0]);
    if (parts.size() > 1)
        writeFile(dir / "traces.def", parts[1]);
    for (std::size_t i = 2; i < parts.size(); ++i) {
        const std::string location = std::to_string((i - 2) / 2);
        writeFile(dir / "traces" / (location + (i % 2 == 0 ? ".def" : ".evt")), parts[i]);
    }
    try {
        storage::MemoryTrace trace;
        const storage::Otf2ImportStats stats = storage::importOtf2(dir, trace);
        (void)stats;
        (void)trace.eventCount();
    } catch (const storage::InputError&) {}
    return 0;
}
