#pragma once
// What the two halves of ParaverWriter share: paraver_writer.cpp streams the records
// (.prv body), paraver_writer_files.cpp writes the header, the .pcf and the .row and
// publishes the three files. Private to storage/export.

#include "storage/export/paraver_writer.h"
#include "storage/export/writer_text.h"

#include <array>
#include <cerrno>
#include <charconv>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <string_view>

namespace strata::storage::paraver_writer_detail {

using namespace writer_text;


inline constexpr std::size_t kFlushBytes = 1 << 20;
constexpr std::size_t kCopyChunkBytes = 1 << 20;
constexpr std::int64_t kIntervalTypeBase = 60000000;
constexpr std::int64_t kInstantTypeBase = 30000000;
constexpr std::int64_t kCounterTypeBase = 90000000;
/// Types per range: instants must stay inside 30000000-30999999 to be read as annotations.
constexpr std::size_t kMaxTypesPerRange = 1000000;

struct StateDef
{
    std::int64_t value;
    std::array<int, 3> color;
};

/// The Paraver state written for each role (index = Role value), with Paraver's colors.
constexpr std::array<StateDef, model::kRoleCount> kRoleStates = {
    StateDef { 1, { 0, 0, 255 } },  // Useful -> Running
    StateDef { 13, { 255, 144, 26 } },  // Comm -> Group Communication
    StateDef { 5, { 179, 0, 0 } },  // Sync -> Synchronization
    StateDef { 17, { 255, 0, 96 } },  // Transfer -> Memory transfer
    StateDef { 24, { 139, 121, 177 } },  // Runtime -> Overhead
    StateDef { 0, { 117, 195, 255 } },  // Idle -> Idle
};

/// A label for the .pcf/.row: one line, no surrounding blanks (the readers trim them),
/// never empty (the readers skip empty lines).
inline std::string label(std::string_view text)
{
    std::string out;
    out.reserve(text.size());
    for (char c : text)
        out += (c == '\n' || c == '\r' || c == '\t') ? ' ' : c;
    const auto first = out.find_first_not_of(' ');
    if (first == std::string::npos)
        return "(unnamed)";
    const auto last = out.find_last_not_of(' ');
    return out.substr(first, last - first + 1);
}

inline std::string scaleText(double scale)
{
    char text[64];
    std::snprintf(text, sizeof text, "%.15g", scale);
    return text;
}

inline void writeWholeFile(const std::filesystem::path& path, const std::string& text)
{
    std::FILE* file = std::fopen(path.string().c_str(), "wb");
    if (!file)
        throwIoError(path.string(), "cannot create file", errno);
    const bool ok = std::fwrite(text.data(), 1, text.size(), file) == text.size();
    const int error = errno;
    if (std::fclose(file) != 0 || !ok)
        throwIoError(path.string(), "cannot write", ok ? errno : error);
}

inline std::filesystem::path withSuffix(const std::filesystem::path& path, const char* suffix)
{
    std::filesystem::path out = path;
    out += suffix;
    return out;
}


}  // namespace strata::storage::paraver_writer_detail
