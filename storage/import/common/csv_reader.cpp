#include "storage/import/common/csv_reader.h"

#include "storage/import/common/text_util.h"
#include "storage/store/input_error.h"

#include <charconv>
#include <optional>

namespace strata::storage {

namespace {
constexpr std::size_t kChunkBytes = std::size_t(1) << 16;
}  // namespace

CsvReader::CsvReader(const std::filesystem::path& path, std::vector<std::string> skipPrefixes)
    : m_reader(path)
    , m_fileName(path.string())
    , m_skipPrefixes(std::move(skipPrefixes))
{}

bool CsvReader::fill()
{
    if (m_eof)
        return false;
    if (m_pos > 0) {
        m_buffer.erase(0, m_pos);
        m_pos = 0;
    }
    const std::size_t old = m_buffer.size();
    m_buffer.resize(old + kChunkBytes);
    const std::size_t got = m_reader.read(m_buffer.data() + old, kChunkBytes);
    m_buffer.resize(old + got);
    if (got == 0) {
        m_eof = true;
        if (m_reader.truncated())
            throw InputError::atLine(m_fileName, m_line,
                "file is truncated (the gzip stream stops early): expected "
                "the rest of the CSV data");
    }
    return got > 0;
}

bool CsvReader::atSkippedPrefix()
{
    for (const std::string& prefix : m_skipPrefixes) {
        while (m_buffer.size() - m_pos < prefix.size() && fill()) {}
        if (std::string_view(m_buffer).substr(m_pos).starts_with(prefix))
            return true;
    }
    return false;
}

void CsvReader::skipLine()
{
    for (;;) {
        const std::size_t nl = m_buffer.find('\n', m_pos);
        if (nl != std::string::npos) {
            m_pos = nl + 1;
            ++m_line;
            return;
        }
        m_pos = m_buffer.size();
        if (!fill())
            return;
    }
}

bool CsvReader::next()
{
    // Skip empty and prefixed lines.
    for (;;) {
        if (m_pos >= m_buffer.size() && !fill())
            return false;
        const char c = m_buffer[m_pos];
        if (c == '\n'
            || (c == '\r' && m_pos + 1 < m_buffer.size() && m_buffer[m_pos + 1] == '\n')) {
            ++m_emptyLines;
            skipLine();
            continue;
        }
        if (atSkippedPrefix()) {
            ++m_skippedLines;
            skipLine();
            continue;
        }
        break;
    }
    m_recordLine = m_line;
    m_record.clear();
    m_ends.clear();
    bool quoted = false;
    bool afterQuote = false;  // a quoted field was closed; only ',' or the end may follow
    for (;;) {
        if (m_pos >= m_buffer.size() && !fill()) {
            if (quoted)
                throw InputError::atLine(
                    m_fileName, m_recordLine, "unterminated quoted field: expected a closing '\"'");
            break;
        }
        const char c = m_buffer[m_pos++];
        if (m_record.size() > kMaxRecordBytes)
            throw InputError::atLine(
                m_fileName, m_recordLine, "record longer than 64 MiB: expected CSV text");
        if (quoted) {
            if (c == '"') {
                if (m_pos >= m_buffer.size())
                    fill();
                if (m_pos < m_buffer.size() && m_buffer[m_pos] == '"') {
                    m_record.push_back('"');
                    ++m_pos;
                } else {
                    quoted = false;
                    afterQuote = true;
                }
            } else {
                if (c == '\n')
                    ++m_line;
                m_record.push_back(c);
            }
            continue;
        }
        if (c == '\n') {
            ++m_line;
            break;
        }
        if (c == ',') {
            m_ends.push_back(m_record.size());
            afterQuote = false;
            continue;
        }
        if (c == '\r' && (m_pos < m_buffer.size() || fill()) && m_buffer[m_pos] == '\n')
            continue;
        // A quote opens a quoted field only at the field's start; elsewhere it is data.
        const std::size_t fieldStart = m_ends.empty() ? 0 : m_ends.back();
        if (c == '"' && m_record.size() == fieldStart && !afterQuote) {
            quoted = true;
            continue;
        }
        m_record.push_back(c);
    }
    m_ends.push_back(m_record.size());
    m_fields.clear();
    std::size_t start = 0;
    for (std::size_t end : m_ends) {
        m_fields.emplace_back(m_record.data() + start, end - start);
        start = end;
    }
    return true;
}

std::optional<double> parseCsvNumber(std::string_view text)
{
    text = trim(text);
    std::string digits;
    std::size_t i = 0;
    if (i < text.size() && (text[i] == '-' || text[i] == '+'))
        digits.push_back(text[i++]);
    // Integer part, with ',' only between groups of exactly three digits.
    std::size_t group = 0;
    bool sawComma = false, sawDigit = false;
    for (; i < text.size(); ++i) {
        const char c = text[i];
        if (c >= '0' && c <= '9') {
            digits.push_back(c);
            ++group;
            sawDigit = true;
        } else if (c == ',') {
            if (!sawDigit || (sawComma ? group != 3 : group > 3))
                return std::nullopt;
            sawComma = true;
            group = 0;
        } else {
            break;
        }
    }
    if (sawComma && group != 3)
        return std::nullopt;
    // Fraction and exponent: no separators.
    for (; i < text.size(); ++i) {
        const char c = text[i];
        if ((c >= '0' && c <= '9') || c == '.' || c == 'e' || c == 'E' || c == '-' || c == '+')
            digits.push_back(c);
        else
            return std::nullopt;
    }
    if (digits.empty() || digits == "-" || digits == "+")
        return std::nullopt;
    const char* first = digits.data() + (digits.front() == '+' ? 1 : 0);
    double value = 0;
    const auto [end, ec] = std::from_chars(first, digits.data() + digits.size(), value);
    if (ec != std::errc() || end != digits.data() + digits.size())
        return std::nullopt;
    return value;
}

}  // namespace strata::storage
