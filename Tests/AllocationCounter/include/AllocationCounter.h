// Counts heap allocations made by the calling thread, so tests can check that the per-frame
// path allocates nothing. Linked into the test process only.
#ifndef ALLOCATION_COUNTER_H
#define ALLOCATION_COUNTER_H

#include <stdint.h>

// Allocations (malloc, calloc, realloc, posix_memalign, aligned_alloc, memalign) made by this
// thread since it started.
uint64_t spotter_thread_allocations(void);

#endif
