#include "app/mpi/split_common.h"

#include "storage/import/common/gzip_reader.h"

#include <cmath>

namespace strata::app::mpi {

RangeReader::RangeReader(const std::filesystem::path& file)
    : m_path(file)
    , m_name(file.string())
{
    if (storage::isGzipFile(file)) {
        // The content's size: one inflate of the whole stream (a gzip trailer holds it
        // only modulo 4 GiB, and per member).
        storage::GzipReader sizing(file, true);
        std::string block(std::size_t(1) << 20, '\0');
        while (const std::size_t got = sizing.read(block.data(), block.size()))
            m_size += got;
        m_gzip = std::make_unique<storage::GzipReader>(file, true);
        return;
    }
    m_file = std::fopen(m_name.c_str(), "rb");
    if (!m_file)
        throw storage::InputError(m_name + ": cannot be read: " + std::strerror(errno));
    std::error_code ec;
    m_size = std::filesystem::file_size(file, ec);
}

RangeReader::~RangeReader()
{
    if (m_file)
        std::fclose(m_file);
}

void RangeReader::remember(const char* bytes, std::size_t n)
{
    if (n >= kWindow) {
        m_window.assign(bytes + (n - kWindow), kWindow);
        return;
    }
    m_window.append(bytes, n);
    if (m_window.size() > kWindow)
        m_window.erase(0, m_window.size() - kWindow);
}

void RangeReader::inflate(char* to, std::size_t n)
{
    for (std::size_t done = 0; done < n;) {
        const std::size_t got = m_gzip->read(to + done, n - done);
        if (got == 0)
            throw storage::InputError::atByte(
                m_name, m_at + done, "cannot be read (the gzip stream ends)");
        done += got;
    }
    remember(to, n);
    m_at += n;
}

void RangeReader::read(std::uint64_t from, std::uint64_t to, std::string& out)
{
    to = std::max(from, to);
    if (!m_gzip) {
        out.resize(static_cast<std::size_t>(to - from));
        if (to > from
            && (fseeko(m_file, static_cast<off_t>(from), SEEK_SET) != 0
                || std::fread(out.data(), 1, out.size(), m_file) != out.size()))
            throw storage::InputError::atByte(m_name, from, "cannot be read");
        return;
    }
    if (from < m_at - m_window.size()) {  // before the window: from the start again
        m_gzip = std::make_unique<storage::GzipReader>(m_path, true);
        m_at = 0;
        m_window.clear();
    }
    out.clear();
    if (from < m_at)
        out.assign(m_window, static_cast<std::size_t>(from - (m_at - m_window.size())),
            static_cast<std::size_t>(std::min(to, m_at) - from));
    std::string skipped;
    while (m_at < from) {
        skipped.resize(static_cast<std::size_t>(std::min<std::uint64_t>(from - m_at, kWindow)));
        inflate(skipped.data(), skipped.size());
    }
    if (to > m_at) {
        const std::size_t before = out.size();
        out.resize(before + static_cast<std::size_t>(to - m_at));
        inflate(out.data() + before, out.size() - before);
    }
}

std::uint64_t RangeReader::lineStart(std::uint64_t pos)
{
    if (pos == 0)
        return 0;
    std::string block;
    for (std::uint64_t at = pos - 1; at < m_size; at += block.size()) {
        read(at, std::min(m_size, at + (std::uint64_t(1) << 16)), block);
        if (const void* nl = std::memchr(block.data(), '\n', block.size()))
            return at + static_cast<std::uint64_t>(static_cast<const char*>(nl) - block.data()) + 1;
    }
    return m_size;
}

std::vector<int> dealNodes(
    const std::vector<std::int64_t>& weights, const std::vector<bool>& cuttable, int ranks)
{
    const int nodes = static_cast<int>(weights.size());
    std::vector<std::int64_t> before(weights.size() + 1, 0);  // weight of the nodes before c
    for (std::size_t c = 0; c < weights.size(); ++c)
        before[c + 1] = before[c] + weights[c];
    // Cut k: the allowed cut after the previous one nearest to k / ranks of the weight.
    std::vector<int> first { 0 };
    for (int k = 1; k < ranks; ++k) {
        const double target = static_cast<double>(before.back()) * k / ranks;
        int best = -1;
        for (int c = first.back() + 1; c < nodes; ++c) {
            const auto far = [&](int at) {
                return std::abs(static_cast<double>(before[static_cast<std::size_t>(at)]) - target);
            };
            if (cuttable[static_cast<std::size_t>(c)] && (best < 0 || far(c) < far(best)))
                best = c;
        }
        if (best < 0)
            break;
        first.push_back(best);
    }
    while (static_cast<int>(first.size()) <= ranks)
        first.push_back(nodes);
    return first;
}

}  // namespace strata::app::mpi
