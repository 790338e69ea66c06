// A VariabilityPartial as bytes, so that partials computed elsewhere (another process, an
// MPI rank) can be sent and merged: every list in the partial's own order, LEB128 varints,
// starts and sample times as zigzag deltas, values as raw doubles.
//
//   "SVP1"
//   names:    n, then per name: text, tracks n, per track: id, role u8, instances n,
//             per instance: start delta, duration
//   counters: n, then per track: id, samples n, per sample: time delta, value f64
//   kernels:  n, then per kernel: text, metrics n, per metric: text, unit, values n, f64...
//
// Reading checks every count against the bytes left, so a short or damaged buffer throws
// CorruptTile instead of allocating what a wrong count asks for.

#include "storage/analysis/partial_bytes_p.h"
#include "storage/analysis/variability.h"

namespace strata::storage {

namespace {

constexpr std::string_view kMagic = "SVP1";

std::uint64_t count(ByteReader& in, std::uint64_t minBytes)
{
    return detail::checkedCount(in, minBytes, "variability partial");
}

}  // namespace

std::string VariabilityPartial::toBytes() const
{
    ByteWriter out;
    out.bytes().append(kMagic);
    out.varint(names.size());
    for (const auto& [name, tracks] : names) {
        out.string(name);
        out.varint(tracks.size());
        for (const auto& [track, list] : tracks) {
            out.varint(track);
            out.u8(static_cast<std::uint8_t>(list.role));
            out.varint(list.instances.size());
            model::TimeNs previous = 0;
            for (const VariabilityInstance& i : list.instances) {
                out.svarint(i.startNs - previous);
                out.svarint(i.durationNs);
                previous = i.startNs;
            }
        }
    }
    out.varint(counters.size());
    for (const auto& [track, samples] : counters) {
        out.varint(track);
        out.varint(samples.size());
        model::TimeNs previous = 0;
        for (const model::CounterSample& s : samples) {
            out.svarint(s.timeNs - previous);
            out.f64(s.value);
            previous = s.timeNs;
        }
    }
    out.varint(kernelMetrics.size());
    for (const auto& [kernel, metrics] : kernelMetrics) {
        out.string(kernel);
        out.varint(metrics.size());
        for (const auto& [metric, values] : metrics) {
            out.string(metric);
            out.string(values.unit);
            out.varint(values.values.size());
            for (double v : values.values)
                out.f64(v);
        }
    }
    return std::move(out.bytes());
}

VariabilityPartial VariabilityPartial::fromBytes(std::string_view bytes)
{
    ByteReader in(bytes);
    detail::expectMagic(in, kMagic, "variability partial");
    VariabilityPartial p;
    for (std::uint64_t n = count(in, 2); n > 0; --n) {
        auto& tracks = p.names[std::string(in.string())];
        for (std::uint64_t t = count(in, 3); t > 0; --t) {
            const auto track = static_cast<model::TrackId>(in.varint());
            TrackInstances& list = tracks[track];
            const std::uint8_t role = in.u8();
            if (role >= model::kRoleCount)
                throw CorruptTile("variability partial: a role out of range");
            list.role = static_cast<model::Role>(role);
            const std::uint64_t instances = count(in, 2);
            list.instances.reserve(instances);
            model::TimeNs start = 0;
            for (std::uint64_t i = 0; i < instances; ++i) {
                start = in.delta(start);
                list.instances.push_back({ start, in.svarint() });
            }
        }
    }
    for (std::uint64_t n = count(in, 2); n > 0; --n) {
        auto& samples = p.counters[static_cast<model::TrackId>(in.varint())];
        const std::uint64_t m = count(in, 9);
        samples.reserve(m);
        model::TimeNs time = 0;
        for (std::uint64_t i = 0; i < m; ++i) {
            time = in.delta(time);
            samples.push_back({ time, in.f64() });
        }
    }
    for (std::uint64_t n = count(in, 2); n > 0; --n) {
        auto& metrics = p.kernelMetrics[std::string(in.string())];
        for (std::uint64_t m = count(in, 3); m > 0; --m) {
            MetricValues& values = metrics[std::string(in.string())];
            values.unit = std::string(in.string());
            const std::uint64_t k = count(in, 8);
            values.values.reserve(k);
            for (std::uint64_t i = 0; i < k; ++i)
                values.values.push_back(in.f64());
        }
    }
    if (!in.atEnd())
        throw CorruptTile("variability partial: bytes after its end");
    return p;
}

}  // namespace strata::storage
