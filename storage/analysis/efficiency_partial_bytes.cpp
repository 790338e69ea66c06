// An EfficiencyPartial and a CategoryLearning as bytes, for the process that merges (an
// MPI rank): every map in key order, LEB128 varints (zigzag for signed), doubles raw.
// String ids are the run's: every process opens the same manifest.
//
//   "SEP1"
//   workers, hosts: n, per entry: index, window, ns[role]..., error[role]...
//   gpuIdle:        n, per entry: index, gpu, process, idle, host ns[role]..., inactive
//   byRule:         n, per entry: role u8, rule, ns        byName: role u8, name, ns
//   threads:        n, per entry: index, thread, process, useful, instr f64, cycles f64,
//                   has-counters u8 (bit 0 instructions, bit 1 cycles)
//   outsideMpi:     n, per entry: index, ns
//   replay:         n, per entry: index, name, flags u8 (bit 0 point-to-point, bit 1 any
//                   message), tail, calls n (gap, collective + 1, end delta),
//                   sent n (receiver, arrival, call)
//
//   "SCL1"  per chain (2): n, per worker: index, pairs n, per pair: name, category

#include "storage/analysis/efficiency_partial.h"
#include "storage/analysis/partial_bytes_p.h"

namespace strata::storage {

namespace {

constexpr std::string_view kPartialMagic = "SEP1";
constexpr std::string_view kLearningMagic = "SCL1";

std::uint64_t count(ByteReader& in, std::uint64_t minBytes)
{
    return detail::checkedCount(in, minBytes, "efficiency partial");
}

std::uint32_t index(ByteReader& in)
{
    const std::uint64_t v = in.varint();
    if (v > 0xFFFFFFFFu)
        throw CorruptTile("efficiency partial: an index out of range");
    return static_cast<std::uint32_t>(v);
}

model::Role role(ByteReader& in)
{
    const std::uint8_t r = in.u8();
    if (r >= model::kRoleCount)
        throw CorruptTile("efficiency partial: a role out of range");
    return static_cast<model::Role>(r);
}

void writeTimes(ByteWriter& out, const std::map<std::uint32_t, model::RoleTimes>& times)
{
    out.varint(times.size());
    for (const auto& [i, t] : times) {
        out.varint(i);
        out.svarint(t.windowNs);
        for (model::TimeNs ns : t.ns)
            out.svarint(ns);
        for (model::TimeNs ns : t.errorNs)
            out.svarint(ns);
    }
}

void readTimes(ByteReader& in, std::map<std::uint32_t, model::RoleTimes>& times)
{
    for (std::uint64_t n = count(in, 2 + 2 * model::kRoleCount); n > 0; --n) {
        model::RoleTimes& t = times[index(in)];
        t.windowNs = in.svarint();
        for (model::TimeNs& ns : t.ns)
            ns = in.svarint();
        for (model::TimeNs& ns : t.errorNs)
            ns = in.svarint();
    }
}

}  // namespace

std::string EfficiencyPartial::toBytes() const
{
    ByteWriter out;
    out.bytes().append(kPartialMagic);
    writeTimes(out, workers);
    writeTimes(out, hosts);
    out.varint(gpuIdle.size());
    for (const auto& [i, c] : gpuIdle) {
        out.varint(i);
        out.string(c.gpu);
        out.string(c.process);
        out.svarint(c.gpuIdleNs);
        for (model::TimeNs ns : c.hostRoleNs)
            out.svarint(ns);
        out.svarint(c.hostInactiveNs);
    }
    out.varint(attribution.byRule.size());
    for (const auto& [key, ns] : attribution.byRule) {
        out.u8(static_cast<std::uint8_t>(key.first));
        out.svarint(key.second);
        out.svarint(ns);
    }
    out.varint(attribution.byName.size());
    for (const auto& [key, ns] : attribution.byName) {
        out.u8(static_cast<std::uint8_t>(key.first));
        out.varint(key.second);
        out.svarint(ns);
    }
    out.varint(threads.size());
    for (const auto& [i, t] : threads) {
        out.varint(i);
        out.string(t.thread);
        out.string(t.process);
        out.svarint(t.usefulNs);
        out.f64(t.instructions);
        out.f64(t.cycles);
        out.u8(static_cast<std::uint8_t>((t.hasInstructions ? 1 : 0) | (t.hasCycles ? 2 : 0)));
    }
    out.varint(outsideMpi.size());
    for (const auto& [i, ns] : outsideMpi) {
        out.varint(i);
        out.svarint(ns);
    }
    out.varint(replay.size());
    for (const auto& [i, part] : replay) {
        out.varint(i);
        out.string(part.process.name);
        out.u8(static_cast<std::uint8_t>((part.pointToPoint ? 1 : 0) | (part.anyMessage ? 2 : 0)));
        out.svarint(part.process.tailNs);
        out.varint(part.process.calls.size());
        model::TimeNs previousEnd = 0;
        for (std::size_t c = 0; c < part.process.calls.size(); ++c) {
            out.svarint(part.process.calls[c].gapNs);
            out.varint(static_cast<std::uint64_t>(part.process.calls[c].collective + 1));
            out.svarint(part.callEndsNs[c] - previousEnd);
            previousEnd = part.callEndsNs[c];
        }
        out.varint(part.sent.size());
        for (const ReplayProcessPart::Sent& s : part.sent) {
            out.varint(s.receiver);
            out.svarint(s.arrivalNs);
            out.varint(s.call);
        }
    }
    return std::move(out.bytes());
}

EfficiencyPartial EfficiencyPartial::fromBytes(std::string_view bytes)
{
    ByteReader in(bytes);
    detail::expectMagic(in, kPartialMagic, "efficiency partial");
    EfficiencyPartial p;
    readTimes(in, p.workers);
    readTimes(in, p.hosts);
    for (std::uint64_t n = count(in, 5 + model::kRoleCount); n > 0; --n) {
        GpuIdleCauses& c = p.gpuIdle[index(in)];
        c.gpu = std::string(in.string());
        c.process = std::string(in.string());
        c.gpuIdleNs = in.svarint();
        for (model::TimeNs& ns : c.hostRoleNs)
            ns = in.svarint();
        c.hostInactiveNs = in.svarint();
    }
    for (std::uint64_t n = count(in, 3); n > 0; --n) {
        const model::Role r = role(in);
        const auto rule = static_cast<int>(in.svarint());
        p.attribution.byRule[{ r, rule }] = in.svarint();
    }
    for (std::uint64_t n = count(in, 3); n > 0; --n) {
        const model::Role r = role(in);
        const model::StringId name = index(in);
        p.attribution.byName[{ r, name }] = in.svarint();
    }
    for (std::uint64_t n = count(in, 21); n > 0; --n) {
        ThreadCounters& t = p.threads[index(in)];
        t.thread = std::string(in.string());
        t.process = std::string(in.string());
        t.usefulNs = in.svarint();
        t.instructions = in.f64();
        t.cycles = in.f64();
        const std::uint8_t has = in.u8();
        t.hasInstructions = (has & 1) != 0;
        t.hasCycles = (has & 2) != 0;
    }
    for (std::uint64_t n = count(in, 2); n > 0; --n) {
        const std::uint32_t i = index(in);
        p.outsideMpi[i] = in.svarint();
    }
    for (std::uint64_t n = count(in, 6); n > 0; --n) {
        ReplayProcessPart& part = p.replay[index(in)];
        part.process.name = std::string(in.string());
        const std::uint8_t flags = in.u8();
        part.pointToPoint = (flags & 1) != 0;
        part.anyMessage = (flags & 2) != 0;
        part.process.tailNs = in.svarint();
        const std::uint64_t calls = count(in, 3);
        part.process.calls.reserve(calls);
        part.callEndsNs.reserve(calls);
        model::TimeNs end = 0;
        for (std::uint64_t c = 0; c < calls; ++c) {
            ReplayCall call;
            call.gapNs = in.svarint();
            call.collective = static_cast<std::int32_t>(in.varint()) - 1;
            part.process.calls.push_back(call);
            end = in.delta(end);
            part.callEndsNs.push_back(end);
        }
        for (std::uint64_t s = count(in, 3); s > 0; --s) {
            ReplayProcessPart::Sent sent;
            sent.receiver = index(in);
            sent.arrivalNs = in.svarint();
            sent.call = index(in);
            part.sent.push_back(sent);
        }
    }
    if (!in.atEnd())
        throw CorruptTile("efficiency partial: bytes after its end");
    return p;
}

std::string CategoryLearning::toBytes() const
{
    ByteWriter out;
    out.bytes().append(kLearningMagic);
    for (const auto& chain : chains) {
        out.varint(chain.size());
        for (const auto& [i, knowledge] : chain) {
            out.varint(i);
            out.varint(knowledge.size());
            for (const auto& [name, category] : knowledge) {
                out.varint(name);
                out.varint(category);
            }
        }
    }
    return std::move(out.bytes());
}

CategoryLearning CategoryLearning::fromBytes(std::string_view bytes)
{
    ByteReader in(bytes);
    detail::expectMagic(in, kLearningMagic, "category learning");
    CategoryLearning learning;
    for (auto& chain : learning.chains) {
        for (std::uint64_t n = count(in, 2); n > 0; --n) {
            CategoryKnowledge& knowledge = chain[index(in)];
            for (std::uint64_t k = count(in, 2); k > 0; --k) {
                const model::StringId name = index(in);
                knowledge[name] = index(in);
            }
        }
    }
    if (!in.atEnd())
        throw CorruptTile("category learning: bytes after its end");
    return learning;
}

}  // namespace strata::storage
