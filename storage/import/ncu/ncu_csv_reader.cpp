#include "storage/import/ncu/ncu_csv_reader.h"

#include "storage/import/common/csv_reader.h"
#include "storage/import/common/text_util.h"
#include "storage/store/input_error.h"

#include <charconv>
#include <cmath>
#include <map>

namespace strata::storage {

namespace {

std::optional<std::int64_t> parseInt(std::string_view text)
{
    text = trim(text);
    std::int64_t v = 0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
    if (ec != std::errc() || end != text.data() + text.size())
        return std::nullopt;
    return v;
}

/// "(256, 1, 1)" -> "256,1,1".
std::string launchTriple(std::string_view text)
{
    std::string out;
    for (char c : trim(text)) {
        if (c != '(' && c != ')' && c != ' ')
            out.push_back(c);
    }
    return out;
}

struct Columns
{
    int id = -1, name = -1, device = -1, stream = -1, correlation = -1, grid = -1, block = -1;
    int section = -1, metricName = -1, metricUnit = -1, metricValue = -1;
};

bool isIdentity(std::string_view column)
{
    static constexpr std::string_view kIdentity[] = { "ID", "Process ID", "Process Name",
        "Host Name", "Kernel Name", "Function Name", "Context", "Stream", "Block Size", "Grid Size",
        "Device", "CC", "Correlation ID" };
    for (std::string_view name : kIdentity) {
        if (column == name)
            return true;
    }
    return false;
}

class Parser
{
public:
    explicit Parser(const std::filesystem::path& path)
        : m_csv(path, { "==" })
        , m_file(path.string())
    {}

    NcuReport run()
    {
        readHeader();
        std::map<std::int64_t, std::size_t> kernelById;  // details page: rows -> kernel
        while (m_csv.next()) {
            const auto& f = m_csv.fields();
            if (f.size() == 1 && trim(f[0]).empty())
                continue;
            ++m_report.dataRows;
            if (f.size() != m_header.size() && m_report.raggedRows++ == 0)
                m_report.firstRaggedLine = m_csv.line();
            const std::string_view idText = cell(m_cols.id);
            if (!m_report.detailsPage && m_report.kernels.empty() && trim(idText).empty()) {
                readUnits();
                continue;
            }
            const auto id = parseInt(idText);
            if (!id) {
                throw InputError::atLine(m_file, m_csv.line(),
                    "column " + std::to_string(m_cols.id + 1)
                        + " (ID): expected an integer result ID, got '" + std::string(idText)
                        + "'");
            }
            if (!m_report.detailsPage) {
                NcuKernel& k = newKernel(*id);
                for (std::size_t c = 0; c < f.size() && c < m_header.size(); ++c) {
                    if (!trim(f[c]).empty())
                        k.cells.emplace_back(m_columnMetric[c], std::string(trim(f[c])));
                }
                continue;
            }
            auto [it, fresh] = kernelById.try_emplace(*id, m_report.kernels.size());
            if (fresh)
                newKernel(*id);
            NcuKernel& k = m_report.kernels[it->second];
            const std::string_view name = trim(cell(m_cols.metricName));
            if (name.empty()) {
                ++m_report.ruleRows;
                continue;
            }
            const std::uint32_t metric =
                detailsMetric(trim(cell(m_cols.section)), name, trim(cell(m_cols.metricUnit)));
            const std::string_view value = trim(cell(m_cols.metricValue));
            if (!value.empty())
                k.cells.emplace_back(metric, std::string(value));
            if (name == "Duration" && !k.durationNs)
                k.durationNs = duration(value, m_report.metrics[metric].unit);
        }
        if (m_report.kernels.empty())
            throw InputError::atLine(
                m_file, m_csv.line() + 1, "expected at least one kernel row after the header");
        for (NcuKernel& k : m_report.kernels) {
            if (!m_report.detailsPage) {
                for (const auto& [metric, text] : k.cells) {
                    const std::string& name = m_report.metrics[metric].name;
                    if (name == "gpu__time_duration.sum"
                        || (!k.durationNs && name == "gpu__time_duration.avg"))
                        k.durationNs = duration(text, m_report.metrics[metric].unit);
                }
            }
            m_report.kernelsWithoutDuration += k.durationNs ? 0 : 1;
        }
        m_report.toolLines = m_csv.skippedLines();
        return std::move(m_report);
    }

private:
    std::string_view cell(int column) const
    {
        const auto& f = m_csv.fields();
        return column >= 0 && static_cast<std::size_t>(column) < f.size()
            ? f[static_cast<std::size_t>(column)]
            : std::string_view();
    }

    void readHeader()
    {
        if (!m_csv.next())
            throw InputError::atLine(
                m_file, 1, "empty file: expected an Nsight Compute CSV header");
        for (std::string_view f : m_csv.fields())
            m_header.emplace_back(trim(f));
        auto find = [&](std::string_view name) {
            for (std::size_t i = 0; i < m_header.size(); ++i) {
                if (m_header[i] == name)
                    return static_cast<int>(i);
            }
            return -1;
        };
        m_cols.id = find("ID");
        m_cols.name = find("Kernel Name") >= 0 ? find("Kernel Name") : find("Function Name");
        if (m_cols.id < 0 || m_cols.name < 0)
            throw InputError::atLine(m_file, m_csv.line(),
                "expected an Nsight Compute CSV header with \"ID\" and \"Kernel Name\" columns");
        m_cols.device = find("Device");
        m_cols.stream = find("Stream");
        m_cols.correlation = find("Correlation ID");
        m_cols.grid = find("Grid Size");
        m_cols.block = find("Block Size");
        m_cols.section = find("Section Name");
        m_cols.metricName = find("Metric Name");
        m_cols.metricUnit = find("Metric Unit");
        m_cols.metricValue = find("Metric Value");
        m_report.detailsPage = m_cols.metricName >= 0 && m_cols.metricValue >= 0;
        for (const std::string& column : m_header) {
            m_columnMetric.push_back(static_cast<std::uint32_t>(m_report.metrics.size()));
            m_report.metrics.push_back({ column, {} });
        }
    }

    void readUnits()
    {
        const auto& f = m_csv.fields();
        for (std::size_t c = 0; c < f.size() && c < m_header.size(); ++c)
            m_report.metrics[m_columnMetric[c]].unit = std::string(trim(f[c]));
    }

    NcuKernel& newKernel(std::int64_t id)
    {
        NcuKernel& k = m_report.kernels.emplace_back();
        k.id = id;
        k.line = m_csv.line();
        k.name = std::string(trim(cell(m_cols.name)));
        k.device = parseInt(cell(m_cols.device));
        k.stream = parseInt(cell(m_cols.stream));
        k.correlation = parseInt(cell(m_cols.correlation));
        k.grid = launchTriple(cell(m_cols.grid));
        k.block = launchTriple(cell(m_cols.block));
        return k;
    }

    std::uint32_t detailsMetric(
        std::string_view section, std::string_view name, std::string_view unit)
    {
        const std::string key = std::string(section) + '\n' + std::string(name);
        if (auto it = m_detailsMetrics.find(key); it != m_detailsMetrics.end())
            return it->second;
        std::string display(name);
        if (auto used = m_sectionOfName.try_emplace(display, section);
            used.first->second != section)
            display += " (" + std::string(section) + ")";
        const auto index = static_cast<std::uint32_t>(m_report.metrics.size());
        m_report.metrics.push_back({ display, std::string(unit) });
        m_detailsMetrics.emplace(key, index);
        return index;
    }

    static std::optional<model::TimeNs> duration(std::string_view text, std::string_view unit)
    {
        const auto value = parseCsvNumber(text);
        return value ? ncuDurationNs(*value, unit) : std::nullopt;
    }

    CsvReader m_csv;
    std::string m_file;
    NcuReport m_report;
    std::vector<std::string> m_header;
    std::vector<std::uint32_t> m_columnMetric;  ///< raw page: column -> metric index
    Columns m_cols;
    std::map<std::string, std::uint32_t> m_detailsMetrics;  ///< "section\nname" -> index
    std::map<std::string, std::string, std::less<>> m_sectionOfName;
};

}  // namespace

bool isEnvironmentMetric(std::string_view name)
{
    static constexpr std::string_view kPrefixes[] = { "device__", "nvlink__", "numa__", "c2clink__",
        "profiler__" };
    for (std::string_view prefix : kPrefixes) {
        if (name.starts_with(prefix))
            return true;
    }
    return isIdentity(name);
}

std::optional<model::TimeNs> ncuDurationNs(double value, std::string_view unit)
{
    double scale = 0;
    if (unit == "ns" || unit == "nsecond")
        scale = 1;
    else if (unit == "us" || unit == "usecond")
        scale = 1e3;
    else if (unit == "ms" || unit == "msecond")
        scale = 1e6;
    else if (unit == "s" || unit == "second")
        scale = 1e9;
    const double ns = value * scale;
    if (scale == 0 || !std::isfinite(ns) || ns < 0 || ns > 9e18)
        return std::nullopt;
    return static_cast<model::TimeNs>(std::llround(ns));
}

NcuReport readNcuCsv(const std::filesystem::path& path)
{
    return Parser(path).run();
}

}  // namespace strata::storage
