#pragma once
// What the splits of one big file between the ranks share (paraver_split.h,
// chrome_split.h): reading byte ranges of the file, dealing the file's roots (nodes, pids)
// to the ranks in balanced consecutive blocks, and the share each rank returns.

#include "storage/store/input_error.h"

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace strata::storage {
class StoreBuilder;
}

namespace strata::app::mpi {

/// Reads byte ranges of a trace file.
class RangeReader
{
public:
    explicit RangeReader(const std::filesystem::path& file)
        : m_name(file.string())
        , m_file(std::fopen(m_name.c_str(), "rb"))
    {
        if (!m_file)
            throw storage::InputError(m_name + ": cannot be read: " + std::strerror(errno));
        std::error_code ec;
        m_size = std::filesystem::file_size(file, ec);
    }
    ~RangeReader() { std::fclose(m_file); }
    RangeReader(const RangeReader&) = delete;
    RangeReader& operator=(const RangeReader&) = delete;

    std::uint64_t size() const { return m_size; }
    /// Bytes [from, to) into `out`.
    void read(std::uint64_t from, std::uint64_t to, std::string& out)
    {
        out.resize(static_cast<std::size_t>(to - from));
        if (to > from
            && (fseeko(m_file, static_cast<off_t>(from), SEEK_SET) != 0
                || std::fread(out.data(), 1, out.size(), m_file) != out.size()))
            throw storage::InputError::atByte(m_name, from, "cannot be read");
    }
    /// The start of the line that holds byte `pos` or starts after it: the byte after the
    /// first '\n' at or after pos - 1 (the end of the file when none).
    std::uint64_t lineStart(std::uint64_t pos)
    {
        if (pos == 0)
            return 0;
        std::string block;
        for (std::uint64_t at = pos - 1; at < m_size; at += block.size()) {
            read(at, std::min(m_size, at + (std::uint64_t(1) << 16)), block);
            if (const void* nl = std::memchr(block.data(), '\n', block.size()))
                return at + static_cast<std::uint64_t>(static_cast<const char*>(nl) - block.data())
                    + 1;
        }
        return m_size;
    }

private:
    std::string m_name;
    std::FILE* m_file;
    std::uint64_t m_size = 0;
};

/// The roots dealt to the ranks: consecutive blocks, balanced by `weights`, cut only where
/// `cuttable[c]` (between root c - 1 and c). Returns the first root of each rank's block,
/// then the end (blocks of ranks beyond the cuts are empty).
std::vector<int> dealNodes(
    const std::vector<std::int64_t>& weights, const std::vector<bool>& cuttable, int ranks);

/// A rank's part of one file split between the ranks.
struct SplitShare
{
    /// This rank's shard (null on a rank that owns no root).
    std::unique_ptr<storage::StoreBuilder> builder;
    /// Rank 0: the file's import report, for the run's meta ("import.0.*").
    std::map<std::string, std::string> report;
    /// Rank 0: "FILE: warning: ..." lines.
    std::vector<std::string> warnings;
};

}  // namespace strata::app::mpi
