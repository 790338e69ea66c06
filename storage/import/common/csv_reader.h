#pragma once
// CsvReader reads a CSV file (plain or .gz, through GzipReader) one record at a time, with
// bounded memory: the fields of the current record only. It follows RFC 4180 as the
// profilers write it: fields separated by ',', optionally quoted with '"' ("" inside quotes
// is one quote, and a quoted field may hold commas and line breaks), records ended by LF or
// CRLF. Fields are returned unquoted but not trimmed.
//
// Lines that start (outside quotes) with one of `skipPrefixes` are skipped whole and
// counted: Nsight Compute's "==PROF==" / "==WARNING==" lines, `perf stat`'s "#" comments.
// Empty lines are skipped and counted too.
//
// Errors (InputError, one line): a quote left open at the end of the file ("line L:
// unterminated quoted field"), a gzip stream cut short ("line L: file is truncated"), and
// a record longer than kMaxRecordBytes (a binary file read as CSV).

#include "storage/import/common/gzip_reader.h"

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace strata::storage {

class CsvReader
{
public:
    static constexpr std::size_t kMaxRecordBytes = std::size_t(64) << 20;

    explicit CsvReader(
        const std::filesystem::path& path, std::vector<std::string> skipPrefixes = {});

    /// Reads the next record; false at the end of the file.
    bool next();
    /// The fields of the current record (valid until the next call to next()).
    const std::vector<std::string_view>& fields() const { return m_fields; }
    /// 1-based line on which the current record starts.
    std::uint64_t line() const { return m_recordLine; }
    std::uint64_t skippedLines() const { return m_skippedLines; }
    std::uint64_t emptyLines() const { return m_emptyLines; }
    const std::string& fileName() const { return m_fileName; }
    /// For progress: bytes of the file on disk consumed so far, and its size.
    std::uint64_t fileBytesRead() const { return m_reader.fileBytesRead(); }
    std::uint64_t fileSizeBytes() const { return m_reader.fileSizeBytes(); }

private:
    bool fill();
    bool atSkippedPrefix();
    void skipLine();

    GzipReader m_reader;
    std::string m_fileName;
    std::vector<std::string> m_skipPrefixes;
    std::string m_buffer;  ///< bytes read but not consumed: [m_pos, size)
    std::size_t m_pos = 0;
    bool m_eof = false;
    std::string m_record;  ///< the unquoted fields of the current record, back to back
    std::vector<std::size_t> m_ends;  ///< end offset of each field in m_record
    std::vector<std::string_view> m_fields;
    std::uint64_t m_line = 1;  ///< line of the next unread byte
    std::uint64_t m_recordLine = 0;
    std::uint64_t m_skippedLines = 0;
    std::uint64_t m_emptyLines = 0;
};

/// Parses a number as profilers print it: optional sign, digits with optional ','
/// thousands separators in groups of three ("4,963,609,951.19"), optional fraction and
/// exponent, surrounding spaces ignored. nullopt for anything else ("n/a", "(256, 1, 1)").
std::optional<double> parseCsvNumber(std::string_view text);

}  // namespace strata::storage
