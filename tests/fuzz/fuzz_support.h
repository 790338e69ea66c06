#pragma once
// Helpers shared by the fuzz targets: the importers read files, so a target writes its input
// to per-process temporary files (one path per role, reused by every run, removed at exit).

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>

#include <unistd.h>

namespace strata::fuzz {

/// A file in the temporary directory named after this process and `suffix`, removed when the
/// process exits normally.
class TempFile
{
public:
    explicit TempFile(const std::string& suffix)
        : m_path(std::filesystem::temp_directory_path()
                 / ("strata_fuzz_" + std::to_string(::getpid()) + suffix))
    {
    }
    ~TempFile()
    {
        std::error_code ignored;
        std::filesystem::remove(m_path, ignored);
    }
    TempFile(const TempFile&) = delete;
    TempFile& operator=(const TempFile&) = delete;

    /// Replaces the file's content with `bytes`.
    const std::filesystem::path& write(std::string_view bytes)
    {
        writeTo(m_path, bytes);
        return m_path;
    }
    /// Replaces the content of the file at `path` with `bytes`.
    static void writeTo(const std::filesystem::path& path, std::string_view bytes)
    {
        std::ofstream out(path, std::ios::binary | std::ios::trunc);
        out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    }
    const std::filesystem::path& path() const { return m_path; }

private:
    std::filesystem::path m_path;
};

inline std::string_view asView(const std::uint8_t* data, std::size_t size)
{
    return {reinterpret_cast<const char*>(data), size};
}

}  // namespace strata::fuzz
