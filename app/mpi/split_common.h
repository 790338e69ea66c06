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
class GzipReader;
class StoreBuilder;
}  // namespace strata::storage

namespace strata::app::mpi {

/// Reads byte ranges of a trace file. A gzip file is read as its uncompressed content:
/// inflated from its start by every reader (its size is known after a first inflate),
/// forward; a range that starts before the last kWindow bytes inflated (kept: lineStart
/// looks back a little) reopens the stream. Reading a pass of chunks in order thus costs
/// one inflate of the stream up to the last chunk.
class RangeReader
{
public:
    explicit RangeReader(const std::filesystem::path& file);
    ~RangeReader();
    RangeReader(const RangeReader&) = delete;
    RangeReader& operator=(const RangeReader&) = delete;

    std::uint64_t size() const { return m_size; }
    /// Bytes [from, to) into `out`.
    void read(std::uint64_t from, std::uint64_t to, std::string& out);
    /// The start of the line that holds byte `pos` or starts after it: the byte after the
    /// first '\n' at or after pos - 1 (the end of the file when none).
    std::uint64_t lineStart(std::uint64_t pos);

private:
    static constexpr std::size_t kWindow = std::size_t(1) << 20;
    /// The stream's next `n` bytes into `to`, remembered in the window.
    void inflate(char* to, std::size_t n);
    void remember(const char* bytes, std::size_t n);

    std::filesystem::path m_path;
    std::string m_name;
    std::FILE* m_file = nullptr;  ///< uncompressed files
    std::uint64_t m_size = 0;
    std::unique_ptr<storage::GzipReader> m_gzip;  ///< gzip files: the stream, at m_at
    std::uint64_t m_at = 0;
    std::string m_window;  ///< the stream's bytes [m_at - m_window.size(), m_at)
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
