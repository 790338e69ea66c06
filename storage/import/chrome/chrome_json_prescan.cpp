// Pass 1 of the Chrome JSON importer: learns the layout of a trace (see
// chrome_json_importer.h for why there are two passes).

#include "model/time_units.h"
#include "storage/import/chrome/chrome_json_importer_p.h"

#include <algorithm>
#include <bit>
#include <charconv>
#include <cstring>

namespace strata::storage::chrome {

namespace {

bool isNumeric(std::string_view s)
{
    if (s.empty())
        return false;
    std::size_t i = s[0] == '-' ? 1 : 0;
    if (i == s.size())
        return false;
    for (; i < s.size(); ++i) {
        if (s[i] < '0' || s[i] > '9')
            return false;
    }
    return true;
}

std::string trimmed(std::string_view s)
{
    while (!s.empty() && (s.front() == ' ' || s.front() == '\t'))
        s.remove_prefix(1);
    while (!s.empty() && (s.back() == ' ' || s.back() == '\t'))
        s.remove_suffix(1);
    return std::string(s);
}

// "GPU 0", "MTIA 17", "XPU 1": the label Kineto gives a device's pid.
bool isDeviceLabel(std::string_view s)
{
    for (std::string_view prefix : { "GPU", "MTIA", "XPU", "HPU", "NPU", "TPU" }) {
        if (!s.starts_with(prefix))
            continue;
        std::string_view rest = s.substr(prefix.size());
        while (!rest.empty() && rest.front() == ' ')
            rest.remove_prefix(1);
        return isNumeric(rest);
    }
    return false;
}

constexpr std::int64_t kUnsortedBase = std::int64_t(1) << 40;

/// The process's "GPU N" label (from process_labels, or its name), or "".
std::string deviceLabel(const ProcessInfo& p)
{
    for (const std::string& label : p.labels) {
        if (isDeviceLabel(label))
            return label;
    }
    return isDeviceLabel(p.metaName) ? p.metaName : std::string();
}

/// Per process: whether a thread of it runs host work, and whether one runs GPU work only.
struct PidWork
{
    std::vector<bool> host;
    std::vector<bool> device;
};

PidWork pidWork(const ChromeLayout& layout)
{
    PidWork work { std::vector<bool>(layout.processes.size(), false),
        std::vector<bool>(layout.processes.size(), false) };
    for (const ThreadInfo& t : layout.threads) {
        if (t.cpuWork)
            work.host[t.process] = true;
        else if (t.gpuWork)
            work.device[t.process] = true;
    }
    return work;
}

// One pid can hold GPU streams and host threads: Kineto's python tracer writes the
// threads it cannot place (a tqdm monitor) on pid 0, tid 0, which is also GPU 0's pid
// (TraceLens' H100 BERT trace). The host threads of such a pid move to a process of
// their own, under the same pid, so that the streams stay a GPU.
void splitHostThreads(ChromeLayout& layout)
{
    const PidWork work = pidWork(layout);
    for (std::uint32_t i = 0; i < work.host.size(); ++i) {
        if (!work.host[i] || !work.device[i])
            continue;
        ProcessInfo host;
        host.pid = layout.processes[i].pid;
        host.metaName = layout.processes[i].metaName;
        host.labels = layout.processes[i].labels;
        host.cpuWork = true;
        host.hasEvents = true;
        host.order = layout.processes[i].order;
        const auto hostIndex = static_cast<std::uint32_t>(layout.processes.size());
        layout.processes.push_back(std::move(host));
        layout.processes[i].cpuWork = false;
        for (ThreadInfo& t : layout.threads) {
            if (t.process == i && t.cpuWork)
                t.process = hostIndex;
        }
    }
}

// The args Kineto gives every GPU activity (kernel, copy, set, sync): `device` and
// `stream`. Host events carry neither, or `device` alone (MTIA's runtime calls).
struct DeviceArgs
{
    std::optional<std::int64_t> device;
    bool stream = false;
};

DeviceArgs deviceArgs(std::string_view argsRaw, std::vector<JsonField>& fields)
{
    DeviceArgs out;
    // Most events' args lack the key: a substring search is cheaper than a scan.
    if (argsRaw.empty() || argsRaw.front() != '{' || argsRaw.find("\"device\"") == argsRaw.npos)
        return out;
    try {
        scanJsonObject(argsRaw, fields);
    } catch (const JsonSyntaxError&) {
        return out;  // malformed: pass 2 stops at it with its error
    }
    out.device = parseInteger(findJsonField(fields, "device"));
    out.stream = !findJsonField(fields, "stream").empty();
    return out;
}

void readMetadata(ChromeLayout& layout, const ChromeEventFields& event, std::string& scratch,
    std::vector<JsonField>& args)
{
    std::string nameScratch;
    auto name = event.string(event.name, nameScratch);
    if (!name)
        return;
    std::string_view argsRaw = event.args;
    if (argsRaw.empty() || argsRaw.front() != '{')
        return;
    try {
        scanJsonObject(argsRaw, args);
    } catch (const JsonSyntaxError&) {
        return;  // malformed: pass 2 stops at it with its error
    }
    std::string pidScratch;
    std::string tidScratch;
    std::string_view pid = idText(event.pid, pidScratch);
    std::string_view tid = idText(event.tid, tidScratch);
    if (*name == "process_name" || *name == "process_labels" || *name == "process_sort_index") {
        ProcessInfo& p = layout.processes[layout.process(pid)];
        if (*name == "process_name") {
            if (auto v = jsonString(findJsonField(args, "name"), scratch)) {
                p.metaName = trimmed(*v);
                p.metaNameSet = true;
            }
        } else if (*name == "process_labels") {
            if (auto v = jsonString(findJsonField(args, "labels"), scratch))
                p.labels.push_back(trimmed(*v));
        } else if (auto v = parseInteger(findJsonField(args, "sort_index"))) {
            p.sortIndex = *v;
        }
    } else if (*name == "thread_name" || *name == "thread_sort_index") {
        ThreadInfo& t = layout.threads[layout.thread(pid, tid)];
        if (*name == "thread_name") {
            if (auto v = jsonString(findJsonField(args, "name"), scratch)) {
                t.metaName = trimmed(*v);
                t.metaNameSet = true;
            }
        } else if (auto v = parseInteger(findJsonField(args, "sort_index"))) {
            t.sortIndex = *v;
        }
    }
}

void readTopLevel(ChromeLayout& layout)
{
    layout.rank.reset();
    layout.worldSize.reset();
    layout.baseTimeNs.reset();
    layout.deviceProperties.clear();
    std::vector<JsonField> fields;
    std::string scratch;
    for (const auto& [key, value] : layout.topLevel) {
        if (key == "distributedInfo" && !value.empty() && value.front() == '{') {
            try {
                scanJsonObject(value, fields);
            } catch (const JsonSyntaxError&) {
                continue;
            }
            if (auto rank = parseInteger(findJsonField(fields, "rank")))
                layout.rank = *rank;
            if (auto size = parseInteger(findJsonField(fields, "world_size")))
                layout.worldSize = *size;
        } else if (key == "baseTimeNanoseconds") {
            std::string_view raw = value;
            if (raw.size() >= 2 && raw.front() == '"')
                raw = raw.substr(1, raw.size() - 2);
            layout.baseTimeNs = model::parseDecimalScaled(raw, 1);
        } else if (key == "deviceProperties") {
            minifyJson(value, layout.deviceProperties);
        }
    }
}

}  // namespace

Phase classifyPhase(std::string_view ph)
{
    if (ph.size() != 1)
        return Phase::Unknown;
    switch (ph[0]) {
    case 'X':
        return Phase::Complete;
    case 'B':
        return Phase::Begin;
    case 'E':
        return Phase::End;
    case 'i':
    case 'I':
    case 'R':
        return Phase::Instant;
    case 'C':
        return Phase::Counter;
    case 's':
        return Phase::FlowStart;
    case 't':
        return Phase::FlowStep;
    case 'f':
        return Phase::FlowEnd;
    case 'b':
    case 'S':
        return Phase::AsyncBegin;
    case 'e':
    case 'F':
        return Phase::AsyncEnd;
    case 'n':
        return Phase::AsyncInstant;
    case 'M':
        return Phase::Metadata;
    default:
        return Phase::Unknown;
    }
}

Work classifyCategory(std::string_view cat)
{
    // By length first: categories alternate from one event to the next (cpu_op, cuda_runtime,
    // kernel, ac2g), and a compare with each known one, most of them of the same length as
    // another, cost more than the rest of pass 1's work on the event.
    auto is = [&](std::string_view known) {
        return cat == known;
    };
    switch (cat.size()) {
    case 6:
        if (is("kernel") || is("Kernel") || is("Memcpy") || is("Memset"))
            return Work::Gpu;
        return is("cpu_op") || is("Python") ? Work::Cpu : Work::Neutral;
    case 7:
        return is("Runtime") ? Work::Cpu : Work::Neutral;
    case 8:
        return is("Operator") ? Work::Cpu : Work::Neutral;
    case 10:
        return is("gpu_memcpy") || is("gpu_memset") ? Work::Gpu : Work::Neutral;
    case 11:
        return is("cuda_driver") ? Work::Cpu : Work::Neutral;
    case 12:
        return is("cuda_runtime") ? Work::Cpu : Work::Neutral;
    case 15:
        if (is("mtia_ccp_events"))
            return Work::Gpu;
        return is("python_function") || is("user_annotation") ? Work::Cpu : Work::Neutral;
    case 17:
        return is("cpu_instant_event") ? Work::Cpu : Work::Neutral;
    case 19:
        return is("gpu_user_annotation") ? Work::Gpu : Work::Neutral;
    default:
        return Work::Neutral;
    }
}

namespace {

/// The bytes of `w` (8 characters, the first in the lowest byte) that are not decimal
/// digits, as their high bits. Its lowest set bit is exact: a carry or borrow between
/// bytes starts at a byte that is itself flagged, so it only disturbs later ones.
inline std::uint64_t nonDigitBytes(std::uint64_t w)
{
    return ((w + 0x4646464646464646ull) | (w - 0x3030303030303030ull)) & 0x8080808080808080ull;
}

/// The value of the 8 digits in `w` (the first in the lowest byte; zero bytes count as
/// leading zeros).
inline std::uint64_t eightDigits(std::uint64_t w)
{
    w = ((w & 0x0F0F0F0F0F0F0F0Full) * 2561) >> 8;
    w = ((w & 0x00FF00FF00FF00FFull) * 6553601) >> 16;
    return ((w & 0x0000FFFF0000FFFFull) * 42949672960001ull) >> 32;
}

/// The value and count of the 1 to 15 decimal digits `s` starts with, read 8 bytes at a
/// time; false when `s` is too short to read them that way (the caller walks them) or
/// starts with no digit or with 16 or more. Walking a Kineto timestamp's 13 whole digits
/// one at a time took ~90 instructions.
inline bool leadingDigits(const char* s, std::size_t size, std::int64_t& value, std::size_t& count)
{
    if (size < 8)
        return false;
    std::uint64_t first = 0;
    std::memcpy(&first, s, 8);
    if (const std::uint64_t other = nonDigitBytes(first); other != 0) {
        count = static_cast<std::size_t>(std::countr_zero(other)) / 8;
        if (count == 0)
            return false;
        value = static_cast<std::int64_t>(eightDigits(first << (8 * (8 - count))));
        return true;
    }
    if (size < 16)
        return false;
    std::uint64_t second = 0;
    std::memcpy(&second, s + 8, 8);
    const std::uint64_t other = nonDigitBytes(second);
    if (other == 0)
        return false;
    const std::size_t more = static_cast<std::size_t>(std::countr_zero(other)) / 8;
    static constexpr std::uint64_t kPowers[8] = { 1, 10, 100, 1000, 10000, 100000, 1000000,
        10000000 };
    value = static_cast<std::int64_t>(eightDigits(first) * kPowers[more]
        + (more == 0 ? 0 : eightDigits(second << (8 * (8 - more)))));
    count = 8 + more;
    return true;
}

/// readMicros() for text its fast path does not take.
[[gnu::noinline]] MicrosValue readMicrosInFull(std::string_view raw)
{
    if (raw.empty())
        return {};
    const bool quoted = raw.front() == '"';
    if (quoted) {
        raw = raw.substr(1, raw.size() - 2);
    } else if (raw.front() != '-' && (raw.front() < '0' || raw.front() > '9')) {
        return { 0, MicrosStatus::NotNumber };  // true, false, null, an object or an array
    }
    const MicrosStatus good = quoted ? MicrosStatus::String : MicrosStatus::Ok;
    // Fast path for plain decimals ("4501783126066.206", "-3", "12.5"): the same exact,
    // round-half-up result as parseDecimalScaled, without its 128-bit arithmetic. With at
    // most 15 whole digits it is always in range.
    const bool negative = !raw.empty() && raw[0] == '-';
    std::size_t i = negative ? 1 : 0;
    auto digit = [&](std::size_t at) {  // raw[at]'s value, or more than 9
        return static_cast<unsigned>(static_cast<unsigned char>(raw[at])) - '0';
    };
    std::int64_t whole = 0;
    const std::size_t wholeStart = i;
    const std::size_t wholeEnd = std::min(raw.size(), wholeStart + 15);
    for (; i < wholeEnd && digit(i) <= 9; ++i)
        whole = whole * 10 + digit(i);
    if (i > wholeStart && (i == raw.size() || raw[i] == '.')) {
        std::int64_t fraction = 0;
        int kept = 0;
        bool roundUp = false;
        bool valid = true;
        if (i < raw.size()) {
            const std::size_t fractionStart = ++i;
            if (raw.size() - i >= 3 && digit(i) <= 9 && digit(i + 1) <= 9 && digit(i + 2) <= 9) {
                // Three digits, the common case (Kineto writes ns as .NNN): no loop.
                fraction = digit(i) * 100 + digit(i + 1) * 10 + digit(i + 2);
                i += 3;
                kept = 3;
            }
            for (; i < raw.size() && kept < 3 && digit(i) <= 9; ++i, ++kept)
                fraction = fraction * 10 + digit(i);
            if (kept == 3 && i < raw.size() && digit(i) <= 9) {
                roundUp = digit(i) >= 5;  // what follows cannot change the rounding
                for (++i; i < raw.size() && digit(i) <= 9; ++i) {}
            }
            valid = i > fractionStart && i == raw.size();
        }
        if (valid) {
            for (; kept < 3; ++kept)
                fraction *= 10;
            const std::int64_t ns = whole * model::kNsPerUs + fraction + (roundUp ? 1 : 0);
            return { negative ? -ns : ns, good };
        }
    }
    if (auto ns = model::parseDecimalScaled(raw, model::kNsPerUs))
        return { *ns, *ns > -kMaxMicrosNs && *ns < kMaxMicrosNs ? good : MicrosStatus::OutOfRange };
    // A JSON number the parser refuses is too large (or too precise) for int64 ns; a string
    // is out of range when it is written like a number.
    if (quoted) {
        const bool numberLike = raw.find_first_not_of("0123456789.eE+-") == std::string_view::npos
            && raw.find_first_of("0123456789") != std::string_view::npos;
        return { 0, numberLike ? MicrosStatus::OutOfRange : MicrosStatus::NotNumber };
    }
    return { 0, MicrosStatus::OutOfRange };
}

}  // namespace

MicrosValue readMicros(std::string_view raw)
{
    // The common form, a number of 1 to 15 whole digits and 1 to 3 more after a point
    // ("4574.402", "94.51", "1698371234567.123"), read without the general path's checks
    // and the registers it saves: ~120 -> ~89 instructions a value on a synthetic Kineto
    // trace (4-digit whole parts); a real one's 13-digit timestamps gain more (callgrind
    // of kineto_ddp_rank0.json.gz's ingest: 312.8 M -> 308.7 M in all).
    const std::size_t size = raw.size();
    const char* const s = raw.data();
    if (size >= 3 && size <= 19) {
        std::size_t point = 0;  // none: the whole digits cannot start at a point
        if (s[size - 2] == '.')
            point = size - 2;
        else if (s[size - 3] == '.')
            point = size - 3;
        else if (size >= 5 && s[size - 4] == '.')
            point = size - 4;
        if (point > 0) {
            std::int64_t whole = 0;
            std::size_t count = 0;
            if (!leadingDigits(s, size, whole, count)) {
                for (count = 0; count < point; ++count) {
                    const unsigned d =
                        static_cast<unsigned>(static_cast<unsigned char>(s[count])) - '0';
                    if (d > 9)
                        break;
                    whole = whole * 10 + d;
                }
            }
            std::int64_t fraction = 0;
            std::size_t i = point + 1;
            for (; i < size; ++i) {
                const unsigned d = static_cast<unsigned>(static_cast<unsigned char>(s[i])) - '0';
                if (d > 9)
                    break;
                fraction = fraction * 10 + d;
            }
            if (count == point && i == size) {
                static constexpr std::int64_t kScale[4] = { 1000, 100, 10, 1 };
                return { whole * model::kNsPerUs + fraction * kScale[size - point - 1],
                    MicrosStatus::Ok };
            }
        }
    }
    return readMicrosInFull(raw);
}

std::optional<model::TimeNs> parseMicros(std::string_view raw)
{
    const MicrosValue value = readMicros(raw);
    return value.usable() ? std::optional<model::TimeNs>(value.ns) : std::nullopt;
}

std::string_view idText(std::string_view raw, std::string& scratch)
{
    if (!raw.empty() && raw.front() == '"') {
        auto text = jsonString(raw, scratch);
        return text ? *text : std::string_view();
    }
    return raw;
}

std::optional<std::int64_t> parseInteger(std::string_view raw)
{
    if (raw.size() >= 2 && raw.front() == '"')
        raw = raw.substr(1, raw.size() - 2);
    std::int64_t value = 0;
    auto [end, ec] = std::from_chars(raw.data(), raw.data() + raw.size(), value);
    if (ec != std::errc() || raw.empty())
        return std::nullopt;
    if (end != raw.data() + raw.size()) {
        // 12.0 or 1e3: accept when it is a whole number.
        double d = 0;
        auto [dend, dec] = std::from_chars(raw.data(), raw.data() + raw.size(), d);
        if (dec != std::errc() || dend != raw.data() + raw.size()
            || d != static_cast<double>(static_cast<std::int64_t>(d)))
            return std::nullopt;
        value = static_cast<std::int64_t>(d);
    }
    return value;
}

std::uint32_t ChromeLayout::process(std::string_view pid)
{
    auto it = m_processIndex.find(pid);
    if (it != m_processIndex.end())
        return it->second;
    auto index = static_cast<std::uint32_t>(processes.size());
    processes.emplace_back();
    processes.back().pid = std::string(pid);
    processes.back().order = index;
    m_processIndex.emplace(std::string(pid), index);
    return index;
}

namespace {

/// The bytes of an id of at most 8 bytes in one word: unique among ids of its length.
std::uint64_t packedId(std::string_view id)
{
    const std::size_t n = id.size();
    if (n >= 4) {  // "1000", "12345": two loads that overlap, together all of it
        std::uint32_t first = 0;
        std::uint32_t last = 0;
        std::memcpy(&first, id.data(), 4);
        std::memcpy(&last, id.data() + n - 4, 4);
        return first | (std::uint64_t(last) << 32);
    }
    std::uint64_t word = 0;
    for (char c : id)  // "7"
        word = (word << 8) | static_cast<unsigned char>(c);
    return word;
}

}  // namespace

std::uint64_t quickHash(std::string_view text)
{
    std::uint64_t head = 0;
    std::uint64_t tail = 0;
    const std::size_t n = text.size();
    if (n >= 8) {
        std::memcpy(&head, text.data(), 8);  // fixed sizes: no call
        std::memcpy(&tail, text.data() + n - 8, 8);
    } else {
        head = packedId(text);
    }
    return ((head * 0x9E3779B97F4A7C15ull) ^ (tail * 0xC2B2AE3D27D4EB4Full) ^ n)
        * 0x165667B19E3779F9ull;
}

std::uint32_t ChromeLayout::thread(std::string_view pid, std::string_view tid)
{
    const bool shortIds = pid.size() <= 8 && tid.size() <= 8;
    const std::uint64_t pidWord = shortIds ? packedId(pid) : quickHash(pid);
    const std::uint64_t tidWord = shortIds ? packedId(tid) : quickHash(tid);
    const std::uint64_t hash = (pidWord * 0x9E3779B97F4A7C15ull) ^ (tidWord * 0xC2B2AE3D27D4EB4Full)
        ^ (pid.size() << 8) ^ tid.size();
    RecentThread& recent = m_recent[(hash * 0x165667B19E3779F9ull) >> 58];
    if (recent.used && recent.pidSize == pid.size() && recent.tidSize == tid.size()
        && recent.pidWord == pidWord && recent.tidWord == tidWord
        && (shortIds || (recent.pid == pid && recent.tid == tid)))
        return recent.index;
    m_key.assign(pid);
    m_key.push_back('\x1f');
    m_key.append(tid);
    auto it = m_threadIndex.find(m_key);
    std::uint32_t index = 0;
    if (it != m_threadIndex.end()) {
        index = it->second;
    } else {
        std::uint32_t p = process(pid);
        index = static_cast<std::uint32_t>(threads.size());
        threads.emplace_back();
        threads.back().process = p;
        threads.back().tid = std::string(tid);
        threads.back().order = index;
        m_threadIndex.emplace(m_key, index);
    }
    recent.pidWord = pidWord;
    recent.tidWord = tidWord;
    recent.pidSize = static_cast<std::uint32_t>(pid.size());
    recent.tidSize = static_cast<std::uint32_t>(tid.size());
    if (!shortIds) {
        recent.pid.assign(pid);
        recent.tid.assign(tid);
    }
    recent.index = index;
    recent.used = true;
    return index;
}

void ChromeLayout::append(const ChromeLayout& later)
{
    // Processes and threads in the order they first appear, those of this part first.
    for (const ProcessInfo& from : later.processes) {
        ProcessInfo& p = processes[process(from.pid)];
        if (from.metaNameSet) {  // the last process_name wins, as in one pass
            p.metaName = from.metaName;
            p.metaNameSet = true;
        }
        p.labels.insert(p.labels.end(), from.labels.begin(), from.labels.end());
        if (from.sortIndex)
            p.sortIndex = from.sortIndex;
        p.cpuWork = p.cpuWork || from.cpuWork;
        p.gpuWork = p.gpuWork || from.gpuWork;
        p.hasEvents = p.hasEvents || from.hasEvents;
        if (!p.device)  // the first GPU slice's
            p.device = from.device;
    }
    for (const ThreadInfo& from : later.threads) {
        ThreadInfo& t = threads[thread(later.processes[from.process].pid, from.tid)];
        if (from.metaNameSet) {
            t.metaName = from.metaName;
            t.metaNameSet = true;
        }
        if (from.sortIndex)
            t.sortIndex = from.sortIndex;
        t.cpuWork = t.cpuWork || from.cpuWork;
        t.gpuWork = t.gpuWork || from.gpuWork;
        t.maxEndNs = std::max(t.maxEndNs, from.maxEndNs);
        t.slices += from.slices;
        t.sliceArgBytes += from.sliceArgBytes;
        t.nextSliceFlowNs.insert(
            t.nextSliceFlowNs.end(), from.nextSliceFlowNs.begin(), from.nextSliceFlowNs.end());
    }
    if (later.minTsNs != kNoTime)
        minTsNs = minTsNs == kNoTime ? later.minTsNs : std::min(minTsNs, later.minTsNs);
    maxEndNs = std::max(maxEndNs, later.maxEndNs);
    for (const auto& [series, keys] : later.counterKeys) {
        std::vector<std::string>& mine = counterKeys[series];
        for (const std::string& key : keys) {
            if (std::find(mine.begin(), mine.end(), key) == mine.end())
                mine.push_back(key);
        }
    }
    topLevel.insert(topLevel.end(), later.topLevel.begin(), later.topLevel.end());
    readTopLevel(*this);
}

void ChromeLayout::finalize(std::optional<std::int64_t> rankToShow)
{
    splitHostThreads(*this);
    const PidWork work = pidWork(*this);
    // A pid is a GPU when a thread of it runs GPU work and no host work (whatever the
    // process is named: Kineto names GPU pids after the host program), or when it is
    // labelled as a device and runs no host work.
    std::vector<std::string> deviceLabels(processes.size());
    for (std::size_t i = 0; i < processes.size(); ++i) {
        ProcessInfo& p = processes[i];
        deviceLabels[i] = deviceLabel(p);
        const bool gpu = work.device[i] || (!deviceLabels[i].empty() && !work.host[i]);
        p.kind = gpu ? model::ResourceKind::Gpu : model::ResourceKind::Process;
    }

    // With a rank, the host processes (numeric pids with events; not Kineto's "Spans" and
    // "Traces" rows) are named after it. Host threads on a GPU's pid (Kineto's python
    // tracer puts threads it cannot place on pid 0, GPU 0's) do not make a second rank.
    auto isHost = [](const ProcessInfo& p) {
        return p.kind == model::ResourceKind::Process && p.hasEvents
            && (p.cpuWork || (!p.gpuWork && isNumeric(p.pid)));
    };
    int hostProcesses = 0;
    int mainHosts = 0;
    for (std::size_t i = 0; i < processes.size(); ++i) {
        hostProcesses += isHost(processes[i]) ? 1 : 0;
        mainHosts += isHost(processes[i]) && deviceLabels[i].empty() ? 1 : 0;
    }
    const std::string rankText = rankToShow ? std::to_string(*rankToShow) : std::string();

    for (std::size_t i = 0; i < processes.size(); ++i) {
        ProcessInfo& p = processes[i];
        const bool numeric = isNumeric(p.pid);
        if (p.kind == model::ResourceKind::Gpu) {
            p.name = !deviceLabels[i].empty() ? deviceLabels[i]
                : p.device                    ? "GPU " + std::to_string(*p.device)
                : numeric                     ? "GPU " + p.pid
                                              : p.pid;
            if (rankToShow)
                p.name += " (rank " + rankText + ")";
        } else if (rankToShow && isHost(p)) {
            p.name = "rank " + rankText;
            const bool theMainHost = mainHosts == 1 && deviceLabels[i].empty();
            if (hostProcesses > 1 && !theMainHost) {
                p.name +=
                    ": " + (p.metaName.empty() ? "process " + p.pid : p.metaName + " " + p.pid);
            }
        } else {
            if (!p.metaName.empty())
                p.name = p.metaName;
            else
                p.name = numeric ? "process " + p.pid : p.pid.empty() ? "(no pid)" : p.pid;
            // Kineto's "Spans"/"Traces" rows: one per file, so tell the ranks' apart.
            if (rankToShow)
                p.name += " (rank " + rankText + ")";
        }
        p.sortKey = p.sortIndex ? *p.sortIndex
            : numeric           ? parseInteger(p.pid).value_or(0)
                                : kUnsortedBase + p.order;
    }

    for (ThreadInfo& t : threads) {
        const bool stream = processes[t.process].kind == model::ResourceKind::Gpu;
        const bool numeric = isNumeric(t.tid);
        t.kind = stream ? model::ResourceKind::Stream : model::ResourceKind::Thread;
        if (!t.metaName.empty())
            t.name = t.metaName;
        else if (numeric)
            t.name = (stream ? "stream " : "thread ") + t.tid;
        else
            t.name = t.tid.empty() ? "(no tid)" : t.tid;
        t.sortKey = t.sortIndex ? *t.sortIndex
            : numeric           ? parseInteger(t.tid).value_or(0)
                                : kUnsortedBase + t.order;
        std::sort(t.nextSliceFlowNs.begin(), t.nextSliceFlowNs.end());
        t.nextSliceFlowNs.erase(std::unique(t.nextSliceFlowNs.begin(), t.nextSliceFlowNs.end()),
            t.nextSliceFlowNs.end());
        t.nextSliceStartNs.assign(t.nextSliceFlowNs.size(), kNoTime);
    }
}

bool ChromeLayout::splitsHostThreads() const
{
    const PidWork work = pidWork(*this);
    for (std::size_t i = 0; i < work.host.size(); ++i) {
        if (work.host[i] && work.device[i])
            return true;
    }
    return false;
}

const EventFacts& LayoutScanner::event(const ChromeEventFields& event)
{
    ChromeLayout& layout = m_layout;
    m_facts = {};
    auto ph = event.string(event.ph, m_phScratch);
    const Phase phase = ph ? classifyPhase(*ph) : Phase::Unknown;
    m_facts.phase = phase;
    if (phase == Phase::Metadata) {
        readMetadata(layout, event, m_scratch, m_args);
        return m_facts;
    }
    // Time 0 and the end come from every timed event, imported or not.
    m_facts.ts = readMicros(event.ts);
    if (!m_facts.ts.usable())
        return m_facts;
    const model::TimeNs ts = m_facts.ts.ns;
    model::TimeNs end = ts;
    if (phase == Phase::Complete) {
        m_facts.dur = readMicros(event.dur);
        if (m_facts.dur.usable() && m_facts.dur.ns > 0)
            end += m_facts.dur.ns;
    }
    layout.minTsNs = layout.minTsNs == kNoTime ? ts : std::min(layout.minTsNs, ts);
    layout.maxEndNs = std::max(layout.maxEndNs, end);
    if (phase == Phase::Unknown)
        return m_facts;
    std::string_view pid = idText(event.pid, m_pidScratch);
    std::string_view tid = idText(event.tid, m_tidScratch);
    m_facts.thread = layout.thread(pid, tid);
    ThreadInfo& thread = layout.threads[m_facts.thread];
    ProcessInfo& process = layout.processes[thread.process];
    process.hasEvents = true;
    thread.maxEndNs = std::max(thread.maxEndNs, end);

    std::string_view cat = event.string(event.cat, m_catScratch).value_or("");
    if (cat != m_lastCat) {
        m_lastCat.assign(cat);
        m_lastWork = classifyCategory(cat);
    }
    const bool slice = phase == Phase::Complete || phase == Phase::Begin;
    if (slice) {
        ++thread.slices;
        thread.sliceArgBytes += event.args.size();
    }
    if (m_lastWork == Work::Cpu) {
        thread.cpuWork = process.cpuWork = true;
    } else if (m_lastWork == Work::Gpu) {
        thread.gpuWork = process.gpuWork = true;
        if (slice && !process.device)
            process.device = deviceArgs(event.args, m_args).device;
    } else if (slice) {
        // A category Strata does not know (cuda_sync, a newer Kineto's): a GPU
        // activity when its args name a device and a stream.
        const DeviceArgs d = deviceArgs(event.args, m_args);
        if (d.device && d.stream) {
            thread.gpuWork = process.gpuWork = true;
            process.device = process.device.value_or(*d.device);
        }
    }

    if (phase == Phase::Counter) {
        std::string_view argsRaw = event.args;
        bool wellFormed = !argsRaw.empty() && argsRaw.front() == '{';
        try {
            if (wellFormed)
                scanJsonObject(argsRaw, m_args);
        } catch (const JsonSyntaxError&) {
            wellFormed = false;  // pass 2 stops at it with its error
        }
        if (wellFormed) {
            std::string series(pid);
            series.push_back('\x1f');
            series.append(event.string(event.name, m_nameScratch).value_or(""));
            if (std::string_view id = event.id; !id.empty()) {
                series.push_back(' ');
                series.append(idText(id, m_scratch));
            }
            std::vector<std::string>& keys = layout.counterKeys[series];
            for (const JsonField& f : m_args) {
                if (std::find(keys.begin(), keys.end(), f.key) == keys.end())
                    keys.emplace_back(f.key);
            }
        }
    } else if (phase == Phase::FlowEnd) {
        auto bp = event.string(event.bp, m_scratch);
        if (!bp || *bp != "e")
            thread.nextSliceFlowNs.push_back(ts);
    }
    return m_facts;
}

void LayoutScanner::finish(std::vector<std::pair<std::string, std::string>> topLevel)
{
    m_layout.topLevel = std::move(topLevel);
    readTopLevel(m_layout);
}

ChromeLayout preScan(ChromeEventReader& reader, const std::function<void()>& onEvent)
{
    ChromeLayout layout;
    LayoutScanner scanner(layout);
    while (reader.next()) {
        scanner.event(reader.event());
        onEvent();
    }
    scanner.finish(reader.topLevel());
    return layout;
}

}  // namespace strata::storage::chrome
