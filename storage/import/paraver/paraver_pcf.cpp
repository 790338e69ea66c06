#include "storage/import/paraver/paraver_pcf.h"

#include "storage/store/input_error.h"

#include "storage/import/common/text_util.h"

#include <cctype>
#include <charconv>
#include <fstream>
#include <sstream>

namespace strata::storage {

namespace {


/// Reads a non-negative integer at the start of `s` and removes it; false when none.
bool takeInt(std::string_view& s, std::int64_t& out)
{
    auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
    if (ec != std::errc() || ptr == s.data())
        return false;
    s.remove_prefix(std::size_t(ptr - s.data()));
    return true;
}

bool takeChar(std::string_view& s, char c)
{
    if (s.empty() || s.front() != c)
        return false;
    s.remove_prefix(1);
    return true;
}

std::string readText(const std::filesystem::path& path)
{
    std::ifstream in(path, std::ios::binary);
    if (!in)
        throw InputError(path.string() + ": cannot be read");
    std::ostringstream out;
    out << in.rdbuf();
    return out.str();
}

/// Splits "NUMBER   rest of line" into the number and the trimmed rest.
bool splitNumbered(std::string_view line, std::int64_t& number, std::string_view& rest)
{
    std::string_view s = line;
    bool negative = takeChar(s, '-');
    if (!takeInt(s, number))
        return false;
    if (negative)
        number = -number;
    if (!s.empty() && !std::isspace(static_cast<unsigned char>(s.front())))
        return false;
    rest = trim(s);
    return true;
}

bool isSectionName(std::string_view s)
{
    if (s.empty())
        return false;
    for (char c : s) {
        if (!(std::isupper(static_cast<unsigned char>(c)) || c == '_'))
            return false;
    }
    return true;
}

}  // namespace

ParaverHeader parseParaverHeader(
    std::string_view line, const std::string& file, model::TimeNs defaultUnitNs)
{
    auto fail = [&](const std::string& what) {
        return InputError::atLine(file, 1, what);
    };
    const std::string layout =
        " (header layout: #Paraver (DATE):END[_UNIT]:NODES[(CPUS)]:NAPPL:NTASKS(THREADS:NODE,...))";
    ParaverHeader header;
    std::string_view s = trim(line);
    if (s.substr(0, 8) != "#Paraver")
        throw fail("expected a Paraver header starting with '#Paraver'");
    s.remove_prefix(8);
    s = trim(s);
    if (!takeChar(s, '('))
        throw fail("expected '(' and the date after '#Paraver'" + layout);
    std::size_t close = s.find(')');
    if (close == std::string_view::npos)
        throw fail("expected ')' closing the date" + layout);
    header.date = std::string(s.substr(0, close));
    s.remove_prefix(close + 1);
    if (!takeChar(s, ':'))
        throw fail("expected ':' and the end time after the date" + layout);

    // End time with an optional unit suffix.
    std::size_t endLen = 0;
    while (endLen < s.size()
        && (std::isdigit(static_cast<unsigned char>(s[endLen])) || s[endLen] == '.'))
        ++endLen;
    std::string_view endText = s.substr(0, endLen);
    s.remove_prefix(endLen);
    header.unitNs = defaultUnitNs;
    header.unitName = defaultUnitNs == 1   ? "ns"
        : defaultUnitNs == model::kNsPerUs ? "us"
        : defaultUnitNs == model::kNsPerMs ? "ms"
                                           : "s";
    if (takeChar(s, '_')) {
        std::size_t unitLen = 0;
        while (unitLen < s.size() && std::isalpha(static_cast<unsigned char>(s[unitLen])))
            ++unitLen;
        std::string_view unit = s.substr(0, unitLen);
        s.remove_prefix(unitLen);
        if (unit == "ns")
            header.unitNs = 1;
        else if (unit == "us")
            header.unitNs = model::kNsPerUs;
        else if (unit == "ms")
            header.unitNs = model::kNsPerMs;
        else if (unit == "s")
            header.unitNs = model::kNsPerS;
        else
            throw fail("expected a time unit _ns, _us, _ms or _s after the end time, not '_"
                + std::string(unit) + "'");
        header.unitName = std::string(unit);
        header.unitGiven = true;
    }
    std::optional<model::TimeNs> end = model::parseDecimalScaled(endText, header.unitNs);
    if (endText.empty() || !end)
        throw fail("expected the end time (a number) after the date" + layout);
    header.endNs = *end;
    if (!takeChar(s, ':'))
        throw fail("expected ':' and the node count after the end time" + layout);

    std::int64_t value = 0;
    if (!takeInt(s, value) || value < 0)
        throw fail("expected the number of nodes after the end time" + layout);
    header.nodes = int(value);
    if (takeChar(s, '(')) {
        do {
            if (!takeInt(s, value))
                throw fail("expected a CPU count in the node list" + layout);
            header.cpusPerNode.push_back(int(value));
        } while (takeChar(s, ','));
        if (!takeChar(s, ')'))
            throw fail("expected ')' closing the node list" + layout);
    }
    if (!takeChar(s, ':'))
        throw fail("expected ':' and the number of applications after the nodes" + layout);
    if (!takeInt(s, value) || value < 0)
        throw fail("expected the number of applications" + layout);
    const std::int64_t applications = value;
    if (!takeChar(s, ':'))
        throw fail("expected ':' after the number of applications" + layout);
    for (std::int64_t a = 0; a < applications; ++a) {
        const std::string which = " of application " + std::to_string(a + 1);
        if (a > 0 && !takeChar(s, ',') && !takeChar(s, ':'))
            throw fail("expected ',' or ':' before application " + std::to_string(a + 1) + layout);
        std::int64_t tasks = 0;
        if (!takeInt(s, tasks) || tasks < 0)
            throw fail("expected the number of tasks" + which + layout);
        if (!takeChar(s, '('))
            throw fail("expected '(' and the task list" + which + layout);
        std::vector<ParaverTask> list;
        do {
            ParaverTask task;
            if (!takeInt(s, value) || value < 0)
                throw fail("expected a thread count in the task list" + which + layout);
            task.threads = int(value);
            task.node = 1;
            if (takeChar(s, ':')) {
                if (!takeInt(s, value) || value < 1 || (header.nodes > 0 && value > header.nodes))
                    throw fail("expected a node number from 1 to " + std::to_string(header.nodes)
                        + " in the task list" + which);
                task.node = int(value);
            }
            list.push_back(task);
        } while (takeChar(s, ','));
        if (!takeChar(s, ')'))
            throw fail("expected ')' closing the task list" + which + layout);
        if (std::int64_t(list.size()) != tasks)
            throw fail("expected " + std::to_string(tasks) + " tasks in the task list" + which
                + ", found " + std::to_string(list.size()));
        header.applications.push_back(std::move(list));
    }
    s = trim(s);
    if (!s.empty()) {
        if (!takeChar(s, ',') && !takeChar(s, ':'))
            throw fail("expected ',' and the communicator count at the end of the header");
        if (!takeInt(s, value) || value < 0 || !trim(s).empty())
            throw fail("expected the communicator count (a number) at the end of the header");
        header.communicators = int(value);
    }
    return header;
}

ParaverPcf parseParaverPcf(const std::filesystem::path& path)
{
    return parseParaverPcfText(readText(path), path.string());
}

ParaverPcf parseParaverPcfText(std::string_view text, const std::string& file)
{
    ParaverPcf pcf;
    std::string section;
    std::vector<std::int64_t> blockTypes;  // types of the current EVENT_TYPE block
    std::uint64_t lineNumber = 0;
    while (!text.empty()) {
        std::size_t eol = text.find('\n');
        std::string_view raw = text.substr(0, eol);
        text.remove_prefix(eol == std::string_view::npos ? text.size() : eol + 1);
        ++lineNumber;
        std::string_view line = trim(raw);
        if (line.empty()) {
            if (section == "VALUES")
                section.clear();
            continue;
        }
        if (isSectionName(line)) {
            if (line == "EVENT_TYPE")
                blockTypes.clear();
            section = std::string(line);
            continue;
        }
        std::int64_t number = 0;
        std::string_view rest;
        if (section == "STATES") {
            if (!splitNumbered(line, number, rest))
                throw InputError::atLine(file, lineNumber, "expected 'VALUE NAME' in STATES");
            pcf.states[number] = std::string(rest);
        } else if (section == "STATES_COLOR") {
            std::string_view s = rest;
            std::int64_t r = 0, g = 0, b = 0;
            bool ok = splitNumbered(line, number, s) && takeChar(s, '{') && takeInt(s, r)
                && takeChar(s, ',') && takeInt(s, g) && takeChar(s, ',') && takeInt(s, b)
                && takeChar(s, '}');
            if (!ok || r > 255 || g > 255 || b > 255)
                throw InputError::atLine(
                    file, lineNumber, "expected 'VALUE {R,G,B}' in STATES_COLOR");
            pcf.stateColors[number] =
                ParaverColor { std::uint8_t(r), std::uint8_t(g), std::uint8_t(b) };
        } else if (section == "EVENT_TYPE") {
            std::int64_t type = 0;
            std::string_view label;
            if (!splitNumbered(line, number, rest) || !splitNumbered(rest, type, label))
                throw InputError::atLine(
                    file, lineNumber, "expected 'GRADIENT TYPE LABEL' in EVENT_TYPE");
            ParaverEventType& entry = pcf.eventTypes[type];
            entry.label = std::string(label);
            entry.gradient = int(number);
            blockTypes.push_back(type);
        } else if (section == "VALUES") {
            if (!splitNumbered(line, number, rest))
                throw InputError::atLine(file, lineNumber, "expected 'VALUE LABEL' in VALUES");
            for (std::int64_t type : blockTypes)
                pcf.eventTypes[type].values[number] = std::string(rest);
        } else if (section == "DEFAULT_OPTIONS") {
            if (line.substr(0, 5) == "UNITS") {
                std::string_view unit = trim(line.substr(5));
                if (unit == "NANOSEC")
                    pcf.unitNs = 1;
                else if (unit == "MICROSEC")
                    pcf.unitNs = model::kNsPerUs;
                else if (unit == "MILLISEC")
                    pcf.unitNs = model::kNsPerMs;
                else if (unit == "SEC")
                    pcf.unitNs = model::kNsPerS;
            }
        }
        // Other sections (GRADIENT_COLOR, GRADIENT_NAMES, DEFAULT_SEMANTIC...) are not used.
    }
    return pcf;
}

ParaverRow parseParaverRow(const std::filesystem::path& path)
{
    return parseParaverRowText(readText(path));
}

ParaverRow parseParaverRowText(std::string_view text)
{
    ParaverRow row;
    std::vector<std::string>* level = nullptr;
    std::int64_t remaining = 0;
    while (!text.empty()) {
        std::size_t eol = text.find('\n');
        std::string_view line = trim(text.substr(0, eol));
        text.remove_prefix(eol == std::string_view::npos ? text.size() : eol + 1);
        if (line.substr(0, 6) == "LEVEL ") {
            std::istringstream in { std::string(line) };
            std::string word, name, size;
            in >> word >> name >> size >> remaining;
            if (!in || size != "SIZE") {
                level = nullptr;
                continue;
            }
            level = &row[name];
            level->clear();
            continue;
        }
        if (line.empty() || !level || remaining <= 0)
            continue;
        level->push_back(std::string(line));
        --remaining;
    }
    return row;
}

}  // namespace strata::storage
