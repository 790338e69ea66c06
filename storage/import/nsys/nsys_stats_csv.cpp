// The `nsys stats --report nvtx_pushpop_trace --format csv` report: one line per NVTX
// push/pop range, columns found by their header names (Start (ns), End (ns), Name, PID,
// TID, Lvl; the others, such as RangeStack or NameTree, are ignored). Streamed line by
// line; fields may be quoted ("a, b" and "" for a quote), as nsys writes names with commas.

#include "storage/import/common/gzip_reader.h"
#include "storage/import/common/text_util.h"
#include "storage/import/nsys/nsys_importer.h"
#include "storage/import/nsys/nsys_importer_p.h"
#include "storage/store/input_error.h"
#include "storage/store/trace_sink.h"

#include <charconv>
#include <map>
#include <vector>

namespace strata::storage {

namespace {

void splitCsv(std::string_view line, std::vector<std::string>& fields)
{
    fields.clear();
    std::string field;
    bool quoted = false;
    for (std::size_t i = 0; i < line.size(); ++i) {
        const char c = line[i];
        if (quoted) {
            if (c == '"' && i + 1 < line.size() && line[i + 1] == '"')
                field += line[++i];
            else if (c == '"')
                quoted = false;
            else
                field += c;
        } else if (c == '"') {
            quoted = true;
        } else if (c == ',') {
            fields.push_back(std::move(field));
            field.clear();
        } else {
            field += c;
        }
    }
    fields.push_back(std::move(field));
}

/// Feeds `onLine(line, number)` each line of the file (without its end of line).
template<typename OnLine>
void forEachLine(GzipReader& input, OnLine onLine)
{
    std::vector<char> block(std::size_t(1) << 16);
    std::string pending;
    std::uint64_t number = 0;
    while (const std::size_t n = input.read(block.data(), block.size())) {
        pending.append(block.data(), n);
        std::size_t from = 0;
        for (std::size_t nl = pending.find('\n'); nl != std::string::npos;
             nl = pending.find('\n', from)) {
            std::string_view line(pending.data() + from, nl - from);
            if (!line.empty() && line.back() == '\r')
                line.remove_suffix(1);
            onLine(line, ++number);
            from = nl + 1;
        }
        pending.erase(0, from);
    }
    if (!pending.empty())
        onLine(std::string_view(pending), ++number);
}

class CsvImport
{
public:
    CsvImport(const std::filesystem::path& path, TraceSink& sink)
        : m_file(path.string())
        , m_sink(sink)
        , m_category(sink.intern("nvtx"))
    {}

    void header(std::string_view line)
    {
        splitCsv(line, m_fields);
        for (std::size_t i = 0; i < m_fields.size(); ++i)
            m_columns[std::string(trim(m_fields[i]))] = static_cast<int>(i);
        m_start = column("Start (ns)");
        m_end = column("End (ns)");
        m_name = column("Name");
        if (m_start < 0 || m_end < 0 || m_name < 0)
            throw InputError::atLine(m_file, 1,
                "expected the nsys stats NVTX trace header with the columns "
                "'Start (ns)', 'End (ns)' and 'Name'");
        m_pid = column("PID");
        m_tid = column("TID");
        m_level = column("Lvl");
    }

    void row(std::string_view line, std::uint64_t number, NsysImportStats& stats)
    {
        if (trim(line).empty())
            return;
        splitCsv(line, m_fields);
        ++stats.nvtxRows;
        model::Interval e;
        e.startNs = integer(m_start, number, "Start (ns)", false);
        e.endNs = integer(m_end, number, "End (ns)", false);
        if (e.endNs < e.startNs) {
            countNegativeDuration(stats, [&] { return "line " + std::to_string(number); });
            e.endNs = e.startNs;
        }
        const std::string& name = field(m_name);
        e.name = m_sink.intern(name);
        e.category = m_category;
        const std::int64_t level = integer(m_level, number, "Lvl", true);
        e.depth = m_level < 0 || level < 0 || level >= model::kAutoDepth
            ? model::kAutoDepth
            : static_cast<model::Depth>(level);
        e.role = model::classifyRole(name, "nvtx");
        const std::int64_t pid = integer(m_pid, number, "PID", true);
        m_sink.addInterval(thread(pid, integer(m_tid, number, "TID", true)), e);
        ++stats.nvtxRanges;
    }

private:
    int column(const std::string& name) const
    {
        const auto it = m_columns.find(name);
        return it == m_columns.end() ? -1 : it->second;
    }

    const std::string& field(int index) const
    {
        static const std::string kEmpty;
        return index >= 0 && static_cast<std::size_t>(index) < m_fields.size() ? m_fields[index]
                                                                               : kEmpty;
    }

    /// The integer in column `index`; 0 for an optional column that is absent or empty.
    std::int64_t integer(int index, std::uint64_t line, std::string_view what, bool optional) const
    {
        const std::string_view text = trim(field(index));
        if (optional && text.empty())
            return 0;
        std::int64_t value = 0;
        const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
        if (error != std::errc() || end != text.data() + text.size())
            throw InputError::atLine(m_file, line,
                "expected an integer in column '" + std::string(what) + "', found '"
                    + std::string(text.substr(0, 40)) + "'");
        return value;
    }

    model::TrackId thread(std::int64_t pid, std::int64_t tid)
    {
        auto it = m_threads.find({ pid, tid });
        if (it != m_threads.end())
            return it->second;
        auto process = m_processes.find(pid);
        if (process == m_processes.end())
            process = m_processes
                          .emplace(pid,
                              m_sink.addTrack(model::kNoTrack, model::ResourceKind::Process,
                                  "pid " + std::to_string(pid), pid))
                          .first;
        const model::TrackId track = m_sink.addTrack(process->second, model::ResourceKind::Thread,
            "thread " + std::to_string(tid), tid == pid ? 0 : tid);
        return m_threads.emplace(std::pair(pid, tid), track).first->second;
    }

    std::string m_file;
    TraceSink& m_sink;
    model::StringId m_category;
    std::vector<std::string> m_fields;
    std::map<std::string, int> m_columns;
    int m_start = -1, m_end = -1, m_name = -1, m_pid = -1, m_tid = -1, m_level = -1;
    std::map<std::int64_t, model::TrackId> m_processes;
    std::map<std::pair<std::int64_t, std::int64_t>, model::TrackId> m_threads;
};

}  // namespace

NsysImportStats importNsysStatsCsv(
    const std::filesystem::path& path, TraceSink& sink, const ProgressFn& progress)
{
    NsysImportStats stats;
    GzipReader input(path, true);
    CsvImport csv(path, sink);
    bool sawHeader = false;
    forEachLine(input, [&](std::string_view line, std::uint64_t number) {
        if (!sawHeader) {
            csv.header(line);
            sawHeader = true;
            sink.setMeta("source_format", "nsys-stats-csv");
            return;
        }
        csv.row(line, number, stats);
        if (progress && number % 4096 == 0
            && !progress(input.fileBytesRead(), input.fileSizeBytes()))
            throw Cancelled();
    });
    if (!sawHeader)
        throw InputError::atLine(path.string(), 1,
            "expected the nsys stats NVTX trace header, "
            "found an empty file");
    if (progress)
        progress(input.fileSizeBytes(), input.fileSizeBytes());
    addNsysAnomalyWarnings(stats);
    return stats;
}

}  // namespace strata::storage
