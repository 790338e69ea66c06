#pragma once
// Column<T>: a growable array of trivially copyable T, for the events a store builder
// holds (track_buffer.h) and the args of tiles (tiles.h). The part of std::vector's
// interface they use, with one difference: it grows without copying. Past kMappedBytes a
// column lives in a mapping of its own, which mremap() extends, moving the page table
// rather than the bytes when it must move. While a builder tiles, a released mapping goes
// to a pool, and a column that outgrows the heap takes one from there (mapping_pool.h).
//
// Why: a vector that doubles copies what it holds into fresh memory and touches every
// page of both copies. For a builder's columns, grown one event at a time to tens of MB,
// that was half the page faults of a two-file JSON ingest (each ~2 us on a virtual
// machine) and both copies held at once: 9 alternating runs of `ingest r0.json r1.json
// --shards 2` with the columns reserved ahead took 4.4 % less CPU and 47 MB less memory.

#include "storage/store/mapping_pool.h"

#include <sys/mman.h>

#include <algorithm>
#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <iterator>
#include <new>
#include <stdexcept>
#include <string_view>
#include <type_traits>
#include <utility>

namespace strata::storage {

template<typename T>
class Column
{
    static_assert(std::is_trivially_copyable_v<T>, "Column<T> moves its bytes as they are");

public:
    using value_type = T;
    using iterator = T*;
    using const_iterator = const T*;

    /// Columns larger than this have a mapping of their own.
    static constexpr std::size_t kMappedBytes = std::size_t(1) << 20;

    Column() = default;
    Column(std::size_t n, const T& value) { resize(n, value); }
    Column(const Column& other) { append(other.data(), other.size()); }
    Column(Column&& other) noexcept { swap(other); }
    Column& operator=(const Column& other)
    {
        if (this != &other) {
            clear();
            append(other.data(), other.size());
        }
        return *this;
    }
    Column& operator=(Column&& other) noexcept
    {
        Column(std::move(other)).swap(*this);
        return *this;
    }
    ~Column() { release(m_data, m_capacity); }

    std::size_t size() const { return m_size; }
    std::size_t capacity() const { return m_capacity; }
    bool empty() const { return m_size == 0; }
    T* data() { return m_data; }
    const T* data() const { return m_data; }
    T* begin() { return m_data; }
    T* end() { return m_data + m_size; }
    const T* begin() const { return m_data; }
    const T* end() const { return m_data + m_size; }
    T& operator[](std::size_t i) { return m_data[i]; }
    const T& operator[](std::size_t i) const { return m_data[i]; }
    T& front() { return m_data[0]; }
    T& back() { return m_data[m_size - 1]; }
    const T& back() const { return m_data[m_size - 1]; }

    // Unlike std::vector's, these may not be given a row of this column: growing may
    // move it before it is read (push_back(c[0]) would read freed memory).
    void push_back(const T& value) { emplace_back(value); }
    T& emplace_back(const T& value)
    {
        if (m_size == m_capacity)
            grow(m_size + 1);
        T* slot = m_data + m_size++;
        std::memcpy(static_cast<void*>(slot), &value, sizeof(T));
        return *slot;
    }
    void append(const T* values, std::size_t n)
    {
        if (n == 0)
            return;
        if (m_size + n > m_capacity)
            grow(m_size + n);
        std::memcpy(static_cast<void*>(m_data + m_size), values, n * sizeof(T));
        m_size += n;
    }
    /// Appends [first, last) at the end (the only place this inserts).
    template<typename It>
    void insert(T* at, It first, It last)
    {
        if (at != end())
            throw std::logic_error("Column::insert: only at the end");
        if constexpr (std::is_same_v<It, T*> || std::is_same_v<It, const T*>) {
            append(first, static_cast<std::size_t>(last - first));  // another column's rows
        } else {
            for (; first != last; ++first)
                push_back(*first);
        }
    }
    void reserve(std::size_t n)
    {
        if (n > m_capacity)
            reallocate(n);
    }
    void resize(std::size_t n) { resize(n, T {}); }
    void resize(std::size_t n, const T& value)
    {
        reserve(n);
        for (std::size_t i = m_size; i < n; ++i)
            std::memcpy(static_cast<void*>(m_data + i), &value, sizeof(T));
        m_size = n;
    }
    void clear() { m_size = 0; }
    void swap(Column& other) noexcept
    {
        std::swap(m_data, other.m_data);
        std::swap(m_size, other.m_size);
        std::swap(m_capacity, other.m_capacity);
    }

    friend bool operator==(const Column& a, const Column& b)
    {
        return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin());
    }

private:
    static constexpr std::size_t kPage = 4096;
    static bool mapped(std::size_t capacity) { return capacity * sizeof(T) > kMappedBytes; }
    /// The bytes of the mapping of a mapped column of `capacity`.
    static std::size_t mappingBytes(std::size_t capacity)
    {
        return (capacity * sizeof(T) + kPage - 1) / kPage * kPage;
    }

    static void release(T* data, std::size_t capacity)
    {
        if (!data)
            return;
        if (mapped(capacity))
            poolMapping(data, mappingBytes(capacity));
        else
            std::free(data);
    }

    void grow(std::size_t atLeast)
    {
        reallocate(std::max({ atLeast, 2 * m_capacity, std::size_t(16) }));
    }

    /// Capacity `n` (> size): a mapped column's mapping is moved and extended; a small one
    /// is reallocated, and copied once into its mapping when it outgrows kMappedBytes.
    void reallocate(std::size_t n)
    {
        if (mapped(n)) {
            std::size_t bytes = mappingBytes(n);
            n = bytes / sizeof(T);  // whatever fits in the pages
            void* p = nullptr;
            if (mapped(m_capacity)) {
                p = ::mremap(m_data, mappingBytes(m_capacity), bytes, MREMAP_MAYMOVE);
            } else {
                std::size_t pooled = bytes;
                p = takePooledMapping(pooled);
                if (p) {
                    bytes = pooled;
                    n = bytes / sizeof(T);
                } else {
                    p = ::mmap(
                        nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
                }
                if (p != MAP_FAILED && m_size > 0)
                    std::memcpy(p, static_cast<const void*>(m_data), m_size * sizeof(T));
                if (p != MAP_FAILED)
                    std::free(m_data);
            }
            if (p == MAP_FAILED)
                throw std::bad_alloc();
            m_data = static_cast<T*>(p);
        } else {
            void* p = std::realloc(static_cast<void*>(m_data), n * sizeof(T));
            if (!p)
                throw std::bad_alloc();
            m_data = static_cast<T*>(p);
        }
        m_capacity = n;
    }

    T* m_data = nullptr;
    std::size_t m_size = 0;
    std::size_t m_capacity = 0;
};

/// The bytes of a Column<char>.
inline std::string_view view(const Column<char>& bytes)
{
    return { bytes.data(), bytes.size() };
}

}  // namespace strata::storage
