// ParaverWriter, second half: the .prv header, the .pcf (states, event types and their
// values, colors) and the .row (names of nodes, tasks and threads), and finish(), which
// publishes the three files; the records are streamed by paraver_writer.cpp.

#include "storage/export/paraver_writer.h"

#include "storage/export/paraver_writer_p.h"
#include "storage/import/common/paraver_states.h"

#include <cmath>
#include <system_error>

namespace strata::storage {

using model::ResourceKind;
using model::Role;
using model::StringId;
using model::TrackId;
using namespace paraver_writer_detail;

std::string ParaverWriter::headerLine() const
{
    // Nodes in creation order (those holding a task), then the extra node, if needed.
    std::map<TrackId, int> nodeNumber;
    std::vector<int> cpus;
    bool extraNode = false;
    for (const Task& task : m_tasks) {
        if (task.node == model::kNoTrack)
            extraNode = true;
        else
            nodeNumber.emplace(task.node, 0);
    }
    int next = 1;
    for (auto& [track, number] : nodeNumber)
        number = next++;
    const int nodes = next - 1 + (extraNode ? 1 : 0);
    cpus.assign(std::size_t(nodes), 0);
    std::string appl;
    appendInt(appl, std::int64_t(m_tasks.size()));
    appl += '(';
    for (std::size_t i = 0; i < m_tasks.size(); ++i) {
        const Task& task = m_tasks[i];
        const int node = task.node == model::kNoTrack ? nodes : nodeNumber.at(task.node);
        const auto threads = std::int64_t(std::max<std::size_t>(task.threads.size(), 1));
        cpus[std::size_t(node - 1)] += int(threads);
        if (i > 0)
            appl += ',';
        appendInt(appl, threads);
        appl += ':';
        appendInt(appl, node);
    }
    appl += ')';
    std::string line = "#Paraver (" + m_date + "):";
    appendInt(line, m_endNs);
    line += "_ns:";
    appendInt(line, nodes);
    line += '(';
    for (int i = 0; i < nodes; ++i) {
        if (i > 0)
            line += ',';
        appendInt(line, cpus[std::size_t(i)]);
    }
    line += "):1:";
    line += appl;
    line += ",0\n";
    return line;
}

std::string ParaverWriter::pcfText() const
{
    std::string out = "DEFAULT_OPTIONS\n\n"
                      "LEVEL               THREAD\n"
                      "UNITS               NANOSEC\n"
                      "LOOK_BACK           100\n"
                      "SPEED               1\n"
                      "FLAG_ICONS          ENABLED\n"
                      "NUM_OF_STATE_COLORS 1000\n"
                      "YMAX_SCALE          37\n\n\n"
                      "DEFAULT_SEMANTIC\n\n"
                      "THREAD_FUNC          State As Is\n\n\n"
                      "STATES\n";
    std::map<std::int64_t, const StateDef*> states;
    for (const StateDef& state : kRoleStates)
        states.emplace(state.value, &state);
    for (const auto& [value, state] : states) {
        appendInt(out, value);
        out += "    ";
        out += paraverDefaultStateName(value);
        out += '\n';
    }
    out += "\n\nSTATES_COLOR\n";
    for (const auto& [value, state] : states) {
        appendInt(out, value);
        out += "    {";
        appendInt(out, state->color[0]);
        out += ',';
        appendInt(out, state->color[1]);
        out += ',';
        appendInt(out, state->color[2]);
        out += "}\n";
    }
    auto writeTypes = [&](const std::vector<EventType>& types, std::int64_t base, bool withEnd) {
        for (std::size_t i = 0; i < types.size(); ++i) {
            out += "\n\nEVENT_TYPE\n0    ";
            appendInt(out, base + std::int64_t(i));
            out += "    ";
            out += types[i].label;
            out += "\nVALUES\n";
            if (withEnd)
                out += "0      End\n";
            for (std::size_t v = 0; v < types[i].names.size(); ++v) {
                appendInt(out, std::int64_t(v) + 1);
                out += "      ";
                out += label(m_strings.text(types[i].names[v]));
                out += '\n';
            }
        }
    };
    writeTypes(m_intervalTypes, kIntervalTypeBase, true);
    writeTypes(m_instantTypes, kInstantTypeBase, false);
    for (std::size_t i = 0; i < m_counterLabels.size(); ++i) {
        out += "\n\nEVENT_TYPE\n0    ";
        appendInt(out, kCounterTypeBase + std::int64_t(i));
        out += "    ";
        out += m_counterLabels[i];
        out += '\n';
    }
    out += '\n';
    return out;
}

std::string ParaverWriter::rowText() const
{
    std::vector<std::string> nodes;
    std::map<TrackId, int> seen;
    bool extraNode = false;
    for (const Task& task : m_tasks) {
        if (task.node == model::kNoTrack)
            extraNode = true;
        else
            seen.emplace(task.node, 0);
    }
    for (const auto& [track, unused] : seen)
        nodes.push_back(m_tracks[track].name);
    if (extraNode)
        nodes.push_back("node");
    std::string out = "LEVEL NODE SIZE " + std::to_string(nodes.size()) + "\n";
    for (const std::string& node : nodes)
        out += node + "\n";
    out += "\nLEVEL APPL SIZE 1\nstrata\n";
    out += "\nLEVEL TASK SIZE " + std::to_string(m_tasks.size()) + "\n";
    std::size_t threads = 0;
    for (const Task& task : m_tasks) {
        out += task.name + "\n";
        threads += std::max<std::size_t>(task.threads.size(), 1);
    }
    out += "\nLEVEL THREAD SIZE " + std::to_string(threads) + "\n";
    for (const Task& task : m_tasks) {
        if (task.threads.empty())
            out += task.name + "\n";
        for (std::uint32_t thread : task.threads)
            out += m_threads[thread].name + "\n";
    }
    return out;
}

void ParaverWriter::finish()
{
    ensureOpen();
    const auto prvTmp = withSuffix(m_prvPath, ".tmp");
    const auto pcfTmp = withSuffix(m_pcfPath, ".tmp");
    const auto rowTmp = withSuffix(m_rowPath, ".tmp");
    // Paraver needs at least one task: an empty trace gets an empty one.
    if (m_tasks.empty())
        m_tasks.push_back(Task { "(empty)", model::kNoTrack, {}, -1 });
    bool sideFilesPlaced = false;
    try {
        flush();
        const int closed = std::fclose(m_body);
        m_body = nullptr;
        if (closed != 0)
            throwIoError(m_bodyPath.string(), "cannot write", errno);

        std::FILE* body = std::fopen(m_bodyPath.string().c_str(), "rb");
        if (!body)
            throwIoError(m_bodyPath.string(), "cannot reopen", errno);
        std::FILE* prv = std::fopen(prvTmp.string().c_str(), "wb");
        if (!prv) {
            const int error = errno;
            std::fclose(body);
            throwIoError(prvTmp.string(), "cannot create file", error);
        }
        const std::string header = headerLine();
        bool ok = std::fwrite(header.data(), 1, header.size(), prv) == header.size();
        std::vector<char> chunk(kCopyChunkBytes);
        while (ok) {
            const std::size_t n = std::fread(chunk.data(), 1, chunk.size(), body);
            if (n > 0)
                ok = std::fwrite(chunk.data(), 1, n, prv) == n;
            if (n < chunk.size()) {
                ok = ok && !std::ferror(body);
                break;
            }
        }
        const int error = errno;
        std::fclose(body);
        if (std::fclose(prv) != 0 || !ok)
            throwIoError(prvTmp.string(), "cannot write", ok ? errno : error);
        std::filesystem::remove(m_bodyPath);

        writeWholeFile(pcfTmp, pcfText());
        writeWholeFile(rowTmp, rowText());
        std::filesystem::rename(pcfTmp, m_pcfPath);
        std::filesystem::rename(rowTmp, m_rowPath);
        sideFilesPlaced = true;
        std::filesystem::rename(prvTmp, m_prvPath);
    } catch (...) {
        removeTemporaries();
        if (sideFilesPlaced) {
            std::error_code ignored;
            std::filesystem::remove(m_pcfPath, ignored);
            std::filesystem::remove(m_rowPath, ignored);
        }
        m_finished = true;
        throw;
    }
    m_finished = true;
}

}  // namespace strata::storage
