#include "model/role_time.h"

#include <algorithm>
#include <cmath>

namespace strata::model {

namespace {

std::size_t index(Role r)
{
    return static_cast<std::size_t>(r);
}

}  // namespace

TimeNs RoleTimes::coveredNs() const
{
    TimeNs sum = 0;
    for (TimeNs t : ns)
        sum += t;
    return sum;
}

bool RoleTimes::exact() const
{
    return std::all_of(errorNs.begin(), errorNs.end(), [](TimeNs e) { return e == 0; });
}

RoleTimes& RoleTimes::operator+=(const RoleTimes& other)
{
    windowNs += other.windowNs;
    for (std::size_t i = 0; i < ns.size(); ++i) {
        ns[i] += other.ns[i];
        errorNs[i] += other.errorNs[i];
    }
    return *this;
}

RoleTimes sweepRoleTimes(
    std::span<const RoleSpan> spans, TimeRange window, const RolePriority& priority)
{
    RoleTimes out;
    out.windowNs = std::max<TimeNs>(0, window.durationNs());
    sweepRoleSegments(
        spans, window, priority, [&](TimeNs a, TimeNs b, Role r) { out.ns[index(r)] += b - a; });
    return out;
}

void sweepRoleSegments(std::span<const RoleSpan> spans, TimeRange window,
    const RolePriority& priority, const std::function<void(TimeNs, TimeNs, Role)>& fn)
{
    // rank[role]: 0 for the highest priority.
    std::array<int, kRoleCount> rank {};
    for (int j = 0; j < kRoleCount; ++j)
        rank[index(priority[static_cast<std::size_t>(j)])] = j;

    struct Edge
    {
        TimeNs t;
        int rank;
        int delta;
    };
    std::vector<Edge> edges;
    edges.reserve(spans.size() * 2);
    for (const RoleSpan& s : spans) {
        const TimeNs a = std::max(s.startNs, window.startNs);
        const TimeNs b = std::min(s.endNs, window.endNs);
        if (a >= b)
            continue;
        edges.push_back({ a, rank[index(s.role)], +1 });
        edges.push_back({ b, rank[index(s.role)], -1 });
    }
    std::sort(edges.begin(), edges.end(), [](const Edge& x, const Edge& y) { return x.t < y.t; });
    std::array<int, kRoleCount> open {};  // open spans per rank
    for (std::size_t i = 0; i < edges.size();) {
        const TimeNs t = edges[i].t;
        for (; i < edges.size() && edges[i].t == t; ++i)
            open[static_cast<std::size_t>(edges[i].rank)] += edges[i].delta;
        if (i == edges.size())
            break;
        const TimeNs next = edges[i].t;
        for (int j = 0; j < kRoleCount; ++j) {
            if (open[static_cast<std::size_t>(j)] > 0) {
                fn(t, next, priority[static_cast<std::size_t>(j)]);
                break;
            }
        }
    }
}

BucketRoleMixer::BucketRoleMixer(const RolePriority& priority)
    : m_priority(priority)
{}

void BucketRoleMixer::addLayer(const std::array<TimeNs, kRoleCount>& coverageNs)
{
    m_layers.push_back(coverageNs);
}

RoleTimes BucketRoleMixer::closeBucket(TimeNs widthNs)
{
    RoleTimes bucket;
    bucket.windowNs = widthNs;
    const double w = static_cast<double>(widthNs);
    // Per layer, coverage of the prefix S_j of the priority order, accumulated in place.
    for (auto& layer : m_layers) {
        std::array<TimeNs, kRoleCount> prefix {};
        TimeNs run = 0;
        for (int j = 0; j < kRoleCount; ++j) {
            run += layer[index(m_priority[static_cast<std::size_t>(j)])];
            prefix[static_cast<std::size_t>(j)] = std::min(run, widthNs);
        }
        layer = prefix;
    }
    TimeNs previousU = 0;
    TimeNs previousSlack = 0;
    for (int j = 0; j < kRoleCount; ++j) {
        const auto jj = static_cast<std::size_t>(j);
        TimeNs lower = 0, sum = 0;
        double uncovered = 1.0;  // probability that no layer covers S_j
        for (const auto& layer : m_layers) {
            lower = std::max(lower, layer[jj]);
            sum += layer[jj];
            uncovered *= 1.0 - static_cast<double>(layer[jj]) / w;
        }
        const TimeNs upper = std::min(widthNs, sum);
        TimeNs u = lower;
        if (upper > lower) {
            const auto estimate = static_cast<TimeNs>(std::llround(w * (1.0 - uncovered)));
            u = std::clamp(estimate, lower, upper);
        }
        u = std::max(u, previousU);  // S_j grows with j, so must U_j (guards rounding)
        const TimeNs slack = upper - lower;
        const std::size_t role = index(m_priority[jj]);
        bucket.ns[role] = u - previousU;
        bucket.errorNs[role] = slack + previousSlack + 2 * m_unresolvedNs;
        previousU = u;
        previousSlack = slack;
    }
    m_layers.clear();
    m_unresolvedNs = 0;
    m_result += bucket;
    return bucket;
}

}  // namespace strata::model
