#pragma once
// LineReader hands a text file (plain or gzip, through GzipReader) to a parser one line at
// a time, with its 1-based number, so that line-oriented importers (folded stacks, perf
// script) share one loop and report errors as "file: line N: ...".
//
// Lines are views into an internal buffer, valid until the next call to next(). The
// trailing "\n" and a "\r" before it are removed; a last line without a newline is still
// a line. Memory: one buffer that grows only to hold the longest line. Progress reports
// bytes of the file on disk (compressed bytes for .gz) every few MiB.

#include "storage/import/common/gzip_reader.h"
#include "storage/store/progress.h"

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace strata::storage {

class LineReader
{
public:
    /// Opens `path`; throws InputError when it cannot be read.
    explicit LineReader(const std::filesystem::path& path, ProgressFn progress = {});

    /// The next line into `line`; false at the end of the file. Throws Cancelled when the
    /// progress callback asks to stop, InputError on corrupt gzip data.
    bool next(std::string_view& line);
    /// Number of the line last returned (1-based; 0 before the first).
    std::uint64_t lineNumber() const { return m_lineNumber; }
    /// True when the last line returned ended with a newline (false only for a last line
    /// cut without one).
    bool lastLineTerminated() const { return m_terminated; }
    /// Uncompressed bytes read so far.
    std::uint64_t bytesRead() const { return m_reader.bytesRead(); }
    /// True once the end was reached inside a gzip member (the file was cut short).
    bool truncated() const { return m_reader.truncated(); }
    /// The file name for error messages.
    const std::string& fileName() const { return m_fileName; }

private:
    bool fill();

    GzipReader m_reader;
    std::string m_fileName;
    ProgressFn m_progress;
    std::vector<char> m_buffer;
    std::size_t m_begin = 0;  ///< start of the unread part of the buffer
    std::size_t m_end = 0;  ///< end of the valid bytes
    bool m_eof = false;
    bool m_terminated = true;
    std::uint64_t m_lineNumber = 0;
    std::uint64_t m_lastProgressBytes = 0;
};

} // namespace strata::storage
