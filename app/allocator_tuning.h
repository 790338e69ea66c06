#pragma once

namespace strata::app {

/// For viewers (the GUI, the query phase of the benchmark): query results are vectors
/// of a few MB made and dropped every frame. With glibc's defaults each is a fresh mmap
/// whose pages fault in and are zeroed by the kernel; keeping them in the heap halves a
/// warm whole-run query (6.4 -> 3.0 ms on a 10M store). Not for builders: a heap that
/// is never trimmed raised the 100M build's peak RSS from 1.3 to 1.8 GB.
void keepLargeAllocationsInTheHeap();

} // namespace strata::app
