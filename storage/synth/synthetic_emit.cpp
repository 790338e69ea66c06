// The synthetic generator's building blocks (ops, kernels, launches, copies on the ranks'
// clocks) and the emission of a step's records and counter samples into the sink; the
// run itself is in synthetic_trace.cpp.

#include "storage/synth/synthetic_trace_p.h"

#include <algorithm>
#include <cmath>
#include <string>

// Bit-identical traces on every platform: no fused multiply-add may change a rounding.
// GCC does not contract in ISO mode (-std=c++20), clang needs to be told.
#if defined(__clang__)
#pragma STDC FP_CONTRACT OFF
#endif

namespace strata::storage::synth_detail {

TimeNs Generator::kernelNs(const Rank& r, const KernelSpec& k, double scale)
{
    double us = m_random.logNormal(k.medianUs * scale * r.stepLoad, k.sigma);
    if (m_random.chance(kHeavyTailChance))
        us *= 4 * std::min(m_random.pareto(1.5), 50.0);
    return durationNs(us * 1000);
}

std::size_t Generator::push(Rank& r, CpuThread& thread, const Op& op, double overheadUs)
{
    Record record;
    record.track = thread.track;
    record.interval.startNs = thread.nowNs;
    record.interval.endNs = thread.nowNs;
    record.interval.name = op.name;
    record.interval.category = op.category;
    record.interval.depth = thread.depth;
    record.interval.role = op.role;
    const std::size_t index = r.records.size();
    r.records.push_back(record);
    thread.open.at(thread.depth++) = index;
    thread.nowNs += cpuNs(overheadUs);
    return index;
}

void Generator::pop(Rank& r, CpuThread& thread, double tailUs)
{
    thread.nowNs += cpuNs(tailUs);
    r.records[thread.open[--thread.depth]].interval.endNs = thread.nowNs;
    thread.nowNs += kPopGapNs;
}

void Generator::addInstant(Rank& r, TrackId track, TimeNs timeNs, const Op& op)
{
    Record record;
    record.kind = RecordKind::Instant;
    record.track = track;
    record.interval.startNs = timeNs;
    record.interval.name = op.name;
    record.interval.category = op.category;
    r.records.push_back(record);
}

std::size_t Generator::addKernel(Rank& r, GpuStream& stream, const KernelSpec& k, TimeNs startNs,
    TimeNs endNs, std::uint64_t correlation)
{
    Record record;
    record.track = stream.track;
    record.interval.startNs = startNs;
    record.interval.endNs = endNs;
    record.interval.name = k.op.name;
    record.interval.category = k.op.category;
    record.interval.role = k.op.role;
    const std::size_t index = r.records.size();
    r.records.push_back(record);
    stream.freeNs = endNs;
    if (stream.countsAsBusy)
        r.busy.emplace_back(startNs, endNs);

    const std::size_t argsBegin = r.args.size();
    std::string& a = r.args;
    a += "{\"device\":";
    appendInt(a, r.index);
    a += ",\"stream\":";
    appendInt(a, stream.id);
    a += ",\"correlation\":";
    appendInt(a, static_cast<std::int64_t>(correlation));
    a += ",\"registers per thread\":";
    appendInt(a, k.registers);
    a += ",\"shared memory\":";
    appendInt(a, k.sharedMemory);
    a += ",\"grid\":[";
    appendInt(a, k.gridX);
    a += ',';
    appendInt(a, k.gridY);
    a += ",1],\"block\":[";
    appendInt(a, k.blockX);
    a += ",1,1]}";
    setArgs(r, index, argsBegin);
    return index;
}

void Generator::addFlow(Rank& r, TrackId from, TimeNs fromNs, TrackId to, TimeNs toNs)
{
    Record record;
    record.kind = RecordKind::Flow;
    record.track = from;
    record.flow.fromNs = fromNs;
    record.flow.toTrack = to;
    record.flow.toNs = toNs;
    record.flow.name = m_flowName;
    r.records.push_back(record);
}

void Generator::setArgs(Rank& r, std::size_t record, std::size_t argsBegin)
{
    r.records[record].argsBegin = static_cast<std::uint32_t>(argsBegin);
    r.records[record].argsEnd = static_cast<std::uint32_t>(r.args.size());
}

std::size_t Generator::pushLaunch(
    Rank& r, CpuThread& thread, const Op& api, int cbid, std::uint64_t correlation)
{
    const std::size_t call = push(r, thread, api, kLaunchUs);
    const std::size_t argsBegin = r.args.size();
    r.args += "{\"cbid\":";
    appendInt(r.args, cbid);
    r.args += ",\"correlation\":";
    appendInt(r.args, static_cast<std::int64_t>(correlation));
    r.args += '}';
    setArgs(r, call, argsBegin);
    return call;
}

TimeNs Generator::kernelStartNs(const GpuStream& stream, TimeNs launchNs)
{
    // One random draw per statement: the order of evaluation of arguments is unspecified.
    const TimeNs afterLaunchNs = launchNs + cpuNs(kLaunchLatencyUs);
    const TimeNs afterPreviousNs = stream.freeNs + m_random.uniformInt(800, 2500);
    return std::max(afterLaunchNs, afterPreviousNs);
}

TimeNs Generator::launch(Rank& r, CpuThread& thread, const KernelSpec& k, GpuStream& stream,
    double scale, bool driverApi)
{
    const std::uint64_t correlation = ++r.correlation;
    const TimeNs launchNs = thread.nowNs;
    if (driverApi)
        pushLaunch(r, thread, m_driverLaunch, kCbidDriverLaunch, correlation);
    else
        pushLaunch(r, thread, m_launchKernel, kCbidLaunchKernel, correlation);
    pop(r, thread, 0.3);
    const TimeNs startNs = kernelStartNs(stream, launchNs);
    const TimeNs endNs = startNs + kernelNs(r, k, scale);
    addKernel(r, stream, k, startNs, endNs, correlation);
    addFlow(r, thread.track, launchNs, stream.track, startNs);
    return endNs;
}

TimeNs Generator::copyToDevice(Rank& r, std::int64_t bytes)
{
    CpuThread& main = r.main;
    push(r, main, m_copy, 3);
    const std::uint64_t correlation = ++r.correlation;
    const TimeNs launchNs = main.nowNs;
    pushLaunch(r, main, m_memcpyAsync, kCbidMemcpyAsync, correlation);
    pop(r, main, 0.5);
    pop(r, main, 1);

    const double bytesPerNs = 6 + 6 * m_random.uniform();  // pageable: 6..12 GB/s
    const TimeNs durNs = durationNs(static_cast<double>(bytes) / bytesPerNs);
    const TimeNs startNs = kernelStartNs(r.memcpy, launchNs);
    const std::size_t index = r.records.size();
    Record record;
    record.track = r.memcpy.track;
    record.interval.startNs = startNs;
    record.interval.endNs = startNs + durNs;
    record.interval.name = m_kMemcpy.op.name;
    record.interval.category = m_kMemcpy.op.category;
    record.interval.role = m_kMemcpy.op.role;
    r.records.push_back(record);
    r.memcpy.freeNs = startNs + durNs;

    const std::int64_t centiGbPerS = bytes * 100 / durNs;  // bytes/ns = GB/s, exact digits
    const std::size_t argsBegin = r.args.size();
    std::string& a = r.args;
    a += "{\"device\":";
    appendInt(a, r.index);
    a += ",\"stream\":";
    appendInt(a, r.memcpy.id);
    a += ",\"correlation\":";
    appendInt(a, static_cast<std::int64_t>(correlation));
    a += ",\"bytes\":";
    appendInt(a, bytes);
    a += ",\"memory bandwidth (GB/s)\":";
    appendInt(a, centiGbPerS / 100);
    a += centiGbPerS % 100 < 10 ? ".0" : ".";
    appendInt(a, centiGbPerS % 100);
    a += '}';
    setArgs(r, index, argsBegin);
    addFlow(r, main.track, launchNs, r.memcpy.track, startNs);
    return startNs + durNs;
}

/// The collective's fields, without braces, as Kineto writes them on record_param_comms
/// and on the NCCL kernel.
void Generator::appendCollectiveFields(std::string& out) const
{
    out += "\"Collective name\":\"allreduce\",\"dtype\":\"Float\",\"In msg nelems\":";
    appendInt(out, m_allReduceElements);
    out += ",\"Out msg nelems\":";
    appendInt(out, m_allReduceElements);
    out += ",\"Group size\":";
    appendInt(out, m_options.ranks);
    out += ",\"Process Group Name\":\"0\",\"Process Group Description\":\"default_pg\"";
}

void Generator::emit(Rank& r)
{
    const std::string_view args(r.args);
    for (const Record& record : r.records) {
        const std::string_view recordArgs =
            args.substr(record.argsBegin, record.argsEnd - record.argsBegin);
        switch (record.kind) {
        case RecordKind::Interval:
            m_sink.addInterval(record.track, record.interval, recordArgs);
            break;
        case RecordKind::Instant:
            m_sink.addInstant(record.track,
                model::Instant {
                    record.interval.startNs, record.interval.name, record.interval.category },
                recordArgs);
            break;
        case RecordKind::Flow:
            m_sink.addFlow(record.track, record.flow);
            break;
        }
    }
    m_emitted += r.records.size();
}

/// Emits every counter sample due up to `horizonNs`, the utilization of each period being
/// the part of it covered by compute or NCCL kernels (their union: busy is start-sorted).
void Generator::sampleCounters(Rank& r, TimeNs horizonNs)
{
    std::sort(r.busy.begin(), r.busy.end());
    CounterState& c = r.counters;
    for (auto [startNs, endNs] : r.busy) {
        startNs = std::max(startNs, c.coveredUntilNs);
        if (endNs <= startNs)
            continue;
        c.coveredUntilNs = endNs;
        while (startNs < endNs) {
            while (startNs >= c.nextSampleNs)
                emitSample(r);
            const TimeNs segmentEndNs = std::min(endNs, c.nextSampleNs);
            c.busyNs += segmentEndNs - startNs;
            startNs = segmentEndNs;
        }
    }
    r.busy.clear();
    while (c.nextSampleNs <= horizonNs)
        emitSample(r);
}

void Generator::emitSample(Rank& r)
{
    CounterState& c = r.counters;
    const TimeNs t = c.nextSampleNs;
    const std::int64_t utilization = std::min<std::int64_t>(100, c.busyNs * 100 / m_samplePeriodNs);

    // Parameters, gradients and two AdamW moments stay; activations grow through the
    // forward pass and are freed through the backward pass (integer maths: exact).
    const std::int64_t baseBytes = (1ll << 30) + m_layers * kParamsPerLayer * 4 * 4;
    const std::int64_t activationBytes = m_layers * kActivationBytesPerLayer;
    std::int64_t per1024 = 0;
    if (t >= r.forwardStartNs && t < r.forwardEndNs)
        per1024 = (t - r.forwardStartNs) * 1024 / (r.forwardEndNs - r.forwardStartNs);
    else if (t >= r.forwardEndNs && t < r.backwardStartNs)
        per1024 = 1024;
    else if (t >= r.backwardStartNs && t < r.backwardEndNs)
        per1024 = (r.backwardEndNs - t) * 1024 / (r.backwardEndNs - r.backwardStartNs);
    const std::int64_t memoryBytes =
        baseBytes + activationBytes / 1024 * per1024 + m_random.uniformInt(0, 15) * (2ll << 20);

    std::int64_t clockMhz = 1410;  // A100 boost clock; throttles a little under full load
    if (utilization >= 60)
        clockMhz -= 15 * m_random.uniformInt(0, 6);
    else if (utilization < 5)
        clockMhz = 1095;

    m_sink.addCounterSample(r.utilization, { t, static_cast<double>(utilization) });
    m_sink.addCounterSample(r.memory, { t, static_cast<double>(memoryBytes) });
    m_sink.addCounterSample(r.clock, { t, static_cast<double>(clockMhz) });
    m_emitted += 3;
    c.nextSampleNs += m_samplePeriodNs;
    c.busyNs = 0;
}

}  // namespace strata::storage::synth_detail
