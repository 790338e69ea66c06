#include "app/allocator_tuning.h"

#include <malloc.h>

namespace strata::app {

void keepLargeAllocationsInTheHeap()
{
    mallopt(M_MMAP_THRESHOLD, 256 << 20);
    mallopt(M_TRIM_THRESHOLD, 512 << 20);
}

} // namespace strata::app
