#pragma once
// Pairs MPI point-to-point sends with their receives. MPI guarantees that messages between
// one sender and one receiver on one communicator with one tag are received in the order
// they were sent (non-overtaking), so the k-th send of a (sender, receiver, communicator,
// tag) key matches the k-th receive of that key, whatever the order in which the records
// arrive (a receive may be read before its send when clocks are skewed).
//
// Each key holds one FIFO of whichever side is ahead (sends or receives, never both), and
// is dropped when it empties: memory is bounded by the messages in flight, not by the
// trace. Both operations are O(1) amortised.

#include "model/events.h"

#include <cstdint>
#include <deque>
#include <optional>
#include <unordered_map>

namespace strata::storage {

/// Who talks to whom: ids are the importer's (OTF2 location refs), not ranks.
struct MessageKey
{
    std::uint64_t sender = 0;
    std::uint64_t receiver = 0;
    std::uint64_t communicator = 0;
    std::uint32_t tag = 0;
    friend bool operator==(const MessageKey&, const MessageKey&) = default;
};

/// One side of a message: where and when it was recorded, and its size.
struct MessageEnd
{
    model::TrackId track = model::kNoTrack;
    model::TimeNs timeNs = 0;
    std::uint64_t sizeBytes = 0;
};

struct MatchedMessage
{
    MessageEnd send;
    MessageEnd receive;
};

class MpiMessageMatcher
{
public:
    /// Records a send; returns the message when its receive was already waiting.
    std::optional<MatchedMessage> send(const MessageKey& key, const MessageEnd& end);
    /// Records a receive; returns the message when its send was already waiting.
    std::optional<MatchedMessage> receive(const MessageKey& key, const MessageEnd& end);

    std::uint64_t pendingSends() const { return m_pendingSends; }
    std::uint64_t pendingReceives() const { return m_pendingReceives; }

private:
    struct KeyHash
    {
        std::size_t operator()(const MessageKey& k) const;
    };
    struct Queue
    {
        bool holdsSends = true;
        std::deque<MessageEnd> ends;
    };
    std::optional<MatchedMessage> arrive(const MessageKey& key, const MessageEnd& end, bool isSend);

    std::unordered_map<MessageKey, Queue, KeyHash> m_queues;
    std::uint64_t m_pendingSends = 0;
    std::uint64_t m_pendingReceives = 0;
};

}  // namespace strata::storage
