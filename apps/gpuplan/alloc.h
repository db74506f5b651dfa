// Whether the executable's own operator new and delete (alloc.cc) are compiled
// in: not under a sanitizer, whose allocator must see every block.
#pragma once

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define GPUPLAN_OWN_ALLOCATOR 0
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer) || __has_feature(memory_sanitizer)
#define GPUPLAN_OWN_ALLOCATOR 0
#endif
#endif
#ifndef GPUPLAN_OWN_ALLOCATOR
#define GPUPLAN_OWN_ALLOCATOR 1
#endif
