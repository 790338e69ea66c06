#include "storage/import/otf2/mpi_message_matcher.h"

namespace strata::storage {

std::size_t MpiMessageMatcher::KeyHash::operator()(const MessageKey& k) const
{
    // FNV-style mixing of the four fields; keys are few (peers x tags), so any spread will do.
    std::uint64_t h = 1469598103934665603ull;
    for (const std::uint64_t v : { k.sender, k.receiver, k.communicator, std::uint64_t(k.tag) })
        h = (h ^ v) * 1099511628211ull;
    return static_cast<std::size_t>(h ^ (h >> 32));
}

std::optional<MatchedMessage> MpiMessageMatcher::send(const MessageKey& key, const MessageEnd& end)
{
    return arrive(key, end, true);
}

std::optional<MatchedMessage> MpiMessageMatcher::receive(
    const MessageKey& key, const MessageEnd& end)
{
    return arrive(key, end, false);
}

std::optional<MatchedMessage> MpiMessageMatcher::arrive(
    const MessageKey& key, const MessageEnd& end, bool isSend)
{
    std::uint64_t& mine = isSend ? m_pendingSends : m_pendingReceives;
    std::uint64_t& theirs = isSend ? m_pendingReceives : m_pendingSends;
    auto it = m_queues.find(key);
    if (it == m_queues.end() || it->second.holdsSends == isSend) {
        Queue& queue = it == m_queues.end() ? m_queues[key] : it->second;
        queue.holdsSends = isSend;
        queue.ends.push_back(end);
        ++mine;
        return std::nullopt;
    }
    // The other side is ahead: the oldest waiting end is this one's partner.
    const MessageEnd partner = it->second.ends.front();
    it->second.ends.pop_front();
    --theirs;
    if (it->second.ends.empty())
        m_queues.erase(it);
    return isSend ? MatchedMessage { end, partner } : MatchedMessage { partner, end };
}

}  // namespace strata::storage
