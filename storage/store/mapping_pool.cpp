#include "storage/store/mapping_pool.h"

#include <sys/mman.h>

#include <mutex>
#include <vector>

namespace strata::storage {
namespace {

struct Mapping
{
    void* at = nullptr;
    std::size_t bytes = 0;
};

struct Pool
{
    std::mutex mutex;
    std::vector<Mapping> mappings;
    std::size_t bytes = 0;
    int scopes = 0;  ///< PooledMappings alive
};

/// Never destroyed: a column released at exit (a static's, a thread's) still finds it.
Pool& pool()
{
    static Pool* const p = new Pool;
    return *p;
}

}  // namespace

PooledMappings::PooledMappings()
{
    Pool& p = pool();
    std::lock_guard lock(p.mutex);
    ++p.scopes;
}

PooledMappings::~PooledMappings()
{
    std::vector<Mapping> mappings;
    {
        Pool& p = pool();
        std::lock_guard lock(p.mutex);
        if (--p.scopes > 0)
            return;
        mappings.swap(p.mappings);
        p.bytes = 0;
    }
    for (const Mapping& m : mappings)
        ::munmap(m.at, m.bytes);
}

void* takePooledMapping(std::size_t& bytes)
{
    Pool& p = pool();
    std::lock_guard lock(p.mutex);
    auto best = p.mappings.end();
    for (auto it = p.mappings.begin(); it != p.mappings.end(); ++it) {
        if (it->bytes >= bytes && it->bytes <= kPooledOversize * bytes
            && (best == p.mappings.end() || it->bytes < best->bytes))
            best = it;
    }
    if (best == p.mappings.end())
        return nullptr;
    const Mapping m = *best;
    *best = p.mappings.back();
    p.mappings.pop_back();
    p.bytes -= m.bytes;
    bytes = m.bytes;
    return m.at;
}

void poolMapping(void* mapping, std::size_t bytes)
{
    {
        Pool& p = pool();
        std::lock_guard lock(p.mutex);
        if (p.scopes > 0 && p.bytes + bytes <= kPooledBytes) {
            p.mappings.push_back({ mapping, bytes });
            p.bytes += bytes;
            return;
        }
    }
    ::munmap(mapping, bytes);
}

std::size_t pooledMappingBytes()
{
    Pool& p = pool();
    std::lock_guard lock(p.mutex);
    return p.bytes;
}

}  // namespace strata::storage
