#include "storage/analysis/ideal_replay.h"

#include <algorithm>

namespace strata::storage {

using model::TimeNs;

std::uint64_t ReplayInput::records() const
{
    std::uint64_t n = messages.size();
    for (const ReplayProcess& p : processes)
        n += p.calls.size();
    return n;
}

namespace {

/// The replay's state; see the header for the rules.
class IdealReplay
{
public:
    explicit IdealReplay(const ReplayInput& input)
        : m_in(input)
        , m_state(input.processes.size())
    {
        std::size_t collectives = 0;
        for (std::size_t p = 0; p < input.processes.size(); ++p) {
            m_state[p].startNs.resize(input.processes[p].calls.size());
            std::size_t k = 0;
            for (const ReplayCall& c : input.processes[p].calls)
                k += c.collective >= 0 ? 1 : 0;
            collectives = std::max(collectives, k);
            m_collectivesOf.push_back(k);
        }
        m_collectives.resize(collectives);
        for (std::size_t k : m_collectivesOf) {
            for (std::size_t i = 0; i < k; ++i)
                ++m_collectives[i].participants;
        }
    }

    ReplayResult run()
    {
        for (std::uint32_t p = 0; p < m_state.size(); ++p)
            m_ready.push_back(p);
        while (!m_ready.empty()) {
            const std::uint32_t p = m_ready.back();
            m_ready.pop_back();
            advance(p);
        }
        ReplayResult r;
        for (std::size_t p = 0; p < m_state.size(); ++p) {
            const State& s = m_state[p];
            if (!s.done) {
                const ReplayProcess& proc = m_in.processes[p];
                r.error = "the ideal replay stopped: " + proc.name + " waits in call "
                    + std::to_string(s.next + 1) + " of " + std::to_string(proc.calls.size())
                    + " for a send or a collective that its peers reach only after it (a"
                      " message matched to the wrong call?)";
                r.idealEndNs.clear();
                return r;
            }
            r.idealEndNs.push_back(s.nowNs);
            r.idealRuntimeNs = std::max(r.idealRuntimeNs, s.nowNs);
        }
        return r;
    }

private:
    struct State
    {
        std::vector<TimeNs> startNs;  ///< ideal start of each call, once known
        std::size_t next = 0;  ///< the call to replay next
        bool started = false;  ///< startNs[next] is known
        bool arrived = false;  ///< counted in its collective's arrivals
        bool done = false;
        TimeNs nowNs = 0;  ///< ideal end of the last call replayed
        /// Processes blocked on this one: (process, call they need started).
        std::vector<std::pair<std::uint32_t, std::size_t>> waiters;
    };
    struct Collective
    {
        std::size_t participants = 0;
        std::size_t arrived = 0;
        TimeNs lastArrivalNs = 0;
        std::vector<std::uint32_t> waiters;
    };

    /// The ideal start of q's call j, when q has reached it.
    bool startKnown(std::uint32_t q, std::size_t j) const
    {
        const State& s = m_state[q];
        return j < s.next || (j == s.next && s.started);
    }

    void advance(std::uint32_t p)
    {
        State& s = m_state[p];
        const ReplayProcess& proc = m_in.processes[p];
        while (!s.done) {
            if (s.next == proc.calls.size()) {
                s.nowNs += proc.tailNs;
                s.done = true;
                break;
            }
            const ReplayCall& call = proc.calls[s.next];
            if (!s.started) {
                s.startNs[s.next] = s.nowNs + call.gapNs;
                s.started = true;
            }
            if (!ready(p, call))
                break;
            s.nowNs = endOf(p, call);
            ++s.next;
            s.started = false;
            s.arrived = false;
        }
        wakeWaitersOf(p);
    }

    /// Whether every dependency of p's current call is met; registers p as a waiter on
    /// the first one that is not.
    bool ready(std::uint32_t p, const ReplayCall& call)
    {
        State& s = m_state[p];
        for (std::uint32_t i = 0; i < call.messageCount; ++i) {
            const ReplayMessage& m = m_in.messages[call.firstMessage + i];
            if (!startKnown(m.process, m.call)) {
                m_state[m.process].waiters.emplace_back(p, m.call);
                return false;
            }
        }
        if (call.collective < 0)
            return true;
        Collective& c = m_collectives[static_cast<std::size_t>(call.collective)];
        if (!s.arrived) {
            s.arrived = true;
            ++c.arrived;
            c.lastArrivalNs = std::max(c.lastArrivalNs, s.startNs[s.next]);
            if (c.arrived == c.participants) {
                m_ready.insert(m_ready.end(), c.waiters.begin(), c.waiters.end());
                c.waiters.clear();
            }
        }
        if (c.arrived < c.participants) {
            c.waiters.push_back(p);
            return false;
        }
        return true;
    }

    TimeNs endOf(std::uint32_t p, const ReplayCall& call) const
    {
        TimeNs end = m_state[p].startNs[m_state[p].next];
        for (std::uint32_t i = 0; i < call.messageCount; ++i) {
            const ReplayMessage& m = m_in.messages[call.firstMessage + i];
            end = std::max(end, m_state[m.process].startNs[m.call]);
        }
        if (call.collective >= 0)
            end = std::max(
                end, m_collectives[static_cast<std::size_t>(call.collective)].lastArrivalNs);
        return end;
    }

    void wakeWaitersOf(std::uint32_t q)
    {
        auto& waiters = m_state[q].waiters;
        std::size_t kept = 0;
        for (const auto& w : waiters) {
            if (startKnown(q, w.second))
                m_ready.push_back(w.first);
            else
                waiters[kept++] = w;
        }
        waiters.resize(kept);
    }

    const ReplayInput& m_in;
    std::vector<State> m_state;
    std::vector<std::size_t> m_collectivesOf;
    std::vector<Collective> m_collectives;
    std::vector<std::uint32_t> m_ready;
};

}  // namespace

ReplayResult replayIdeal(const ReplayInput& input)
{
    return IdealReplay(input).run();
}

}  // namespace strata::storage
