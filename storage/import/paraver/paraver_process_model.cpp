// The Paraver importer's process model: the .pcf and .row beside the trace, the header
// (applications > tasks > threads, the time unit, the end time), and the tracks created
// from them up front; the records are streamed by paraver_importer.cpp.

#include "storage/import/paraver/paraver_importer_p.h"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <stdexcept>

namespace strata::storage::paraver_detail {

void Importer::readSideFiles()
{
    std::filesystem::path base = m_path;
    if (base.extension() == ".gz")
        base.replace_extension();
    base.replace_extension();
    std::filesystem::path pcf = m_options.pcf.value_or(std::filesystem::path(base) += ".pcf");
    std::filesystem::path row = m_options.row.value_or(std::filesystem::path(base) += ".row");
    std::error_code ec;
    if (std::filesystem::is_regular_file(pcf, ec)) {
        m_pcf = parseParaverPcf(pcf);
        m_stats.hasPcf = true;
    } else if (m_options.pcf) {
        throw InputError(pcf.string() + ": cannot be read");
    }
    if (std::filesystem::is_regular_file(row, ec)) {
        m_row = parseParaverRow(row);
        m_stats.hasRow = true;
    } else if (m_options.row) {
        throw InputError(row.string() + ": cannot be read");
    }
    m_stats.stateNames = m_pcf.states;
    m_stats.stateColors = m_pcf.stateColors;
}

void Importer::handleHeader(std::string_view line)
{
    ParaverHeader header = parseParaverHeader(line, m_file, m_pcf.unitNs.value_or(model::kNsPerUs));
    m_stats.header = header;
    m_headerSeen = true;
    if (!header.unitGiven) {
        m_stats.warnings.push_back(std::string("the header's end time has no unit: using ")
            + (m_pcf.unitNs ? "the .pcf UNITS" : "microseconds") + " (" + header.unitName + ")");
    }
    createTracks();
    m_sink.setMeta("source_format", "paraver");
    m_sink.setMeta("time_unit", header.unitName);
    m_sink.setMeta("paraver_date", header.date);
    m_sink.setMeta("paraver_end_ns", std::to_string(header.endNs));
    for (const auto& [state, color] : m_pcf.stateColors) {
        auto name = m_pcf.states.find(state);
        if (name == m_pcf.states.end())
            continue;
        char hex[8];
        std::snprintf(hex, sizeof hex, "#%02x%02x%02x", color.r, color.g, color.b);
        m_sink.setMeta("paraver.state_color." + name->second, hex);
    }
}

void Importer::createTracks()
{
    const ParaverHeader& header = m_stats.header;
    auto label = [&](const char* level, std::size_t index, std::string fallback) {
        auto it = m_row.find(level);
        if (it != m_row.end() && index < it->second.size() && !it->second[index].empty())
            return it->second[index];
        return fallback;
    };
    // A share of a trace split by node makes only its nodes' tracks (the others stay
    // kNoTrack, their paths kept for messages to them); the sort keys are the whole
    // trace's.
    const int nodes = ParaverRootMap(header).roots();
    const auto mine = [&](int node) {
        return node - 1 >= m_options.firstRoot
            && (m_options.endRoot < 0 || node - 1 < m_options.endRoot);
    };
    std::vector<TrackId> nodeTracks;
    std::vector<TrackPathStep> nodeSteps;
    for (int n = 1; n <= nodes; ++n) {
        nodeSteps.push_back({ label("NODE", std::size_t(n - 1), "node " + std::to_string(n)), n });
        nodeTracks.push_back(mine(n) ? m_sink.addTrack(model::kNoTrack, model::ResourceKind::Node,
                                 nodeSteps.back().name, n)
                                     : model::kNoTrack);
    }
    std::uint32_t threadIndex = 0;
    std::size_t taskIndex = 0;
    for (std::size_t a = 0; a < header.applications.size(); ++a) {
        const auto& appl = header.applications[a];
        m_taskBase.emplace_back();
        m_taskThreads.emplace_back();
        for (std::size_t t = 0; t < appl.size(); ++t, ++taskIndex) {
            const ParaverTask& task = appl[t];
            const std::string at = std::to_string(a + 1) + "." + std::to_string(t + 1);
            const bool made = nodeTracks.empty() || mine(task.node);
            TrackId parent =
                nodeTracks.empty() ? model::kNoTrack : nodeTracks[std::size_t(task.node - 1)];
            const TrackPathStep processStep { label("TASK", taskIndex, "task " + at),
                std::int64_t(taskIndex) };
            TrackId process = made ? m_sink.addTrack(parent, model::ResourceKind::Process,
                                  processStep.name, processStep.sortKey)
                                   : model::kNoTrack;
            m_taskBase.back().push_back(threadIndex);
            m_taskThreads.back().push_back(task.threads);
            for (int h = 1; h <= task.threads; ++h, ++threadIndex) {
                TrackPathStep threadStep { label("THREAD", threadIndex,
                                               "thread " + at + "." + std::to_string(h)),
                    std::int64_t(threadIndex) };
                m_threadTracks.push_back(made
                        ? m_sink.addTrack(process, model::ResourceKind::Thread, threadStep.name,
                            threadStep.sortKey)
                        : model::kNoTrack);
                m_threadPaths.emplace_back();
                if (!made) {
                    if (!nodeSteps.empty())
                        m_threadPaths.back().push_back(nodeSteps[std::size_t(task.node - 1)]);
                    m_threadPaths.back().push_back(processStep);
                    m_threadPaths.back().push_back(std::move(threadStep));
                }
            }
        }
    }
    m_threadSeq.assign(m_threadTracks.size(), 0);
    m_counterTracks.assign(m_threadTracks.size(), {});
    m_open.assign(m_threadTracks.size(), {});
    m_foreignThreads.assign(m_threadTracks.size(), model::kNoTrack);
}

TrackId Importer::receiverTrack(std::uint32_t thread)
{
    if (m_threadTracks[thread] != model::kNoTrack)
        return m_threadTracks[thread];
    if (m_foreignThreads[thread] == model::kNoTrack)
        m_foreignThreads[thread] = m_sink.addForeignTrack(m_threadPaths[thread]);
    return m_foreignThreads[thread];
}

void Importer::outsideShare() const
{
    throw std::logic_error("Paraver import: a record of a node outside this share, at line "
        + std::to_string(m_lineNumber));
}

void Importer::badThread(std::int64_t appl, std::int64_t task, std::int64_t thread) const
{
    fail("expected a thread declared in the header, not appl:task:thread " + std::to_string(appl)
        + ":" + std::to_string(task) + ":" + std::to_string(thread));
}

}  // namespace strata::storage::paraver_detail
