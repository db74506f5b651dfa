// The executable's operator new and delete: small blocks (up to 512 bytes, in
// 16-byte classes) come from per-thread free lists and 64 KiB chunks of one
// reserved address range; larger ones, and everything once the range is used
// up or cannot be reserved, from malloc.
//
// Why: a command is thousands of small, short-lived allocations (YAML nodes,
// strings, table cells), and glibc's malloc and free took a quarter of
// `compare`'s instructions (callgrind, 1.5M of 5.7M) and a page fault per 4 KiB
// of heap their headers touched, in a command whose target is twice a bare
// process start. Memory freed here is kept for reuse in its class, never
// handed back: peak RSS stays what the command holds at once (bench_commands
// prints it per command).
//
// Not in sanitizer builds: there ASan's allocator must see every block.
#include "alloc.h"
#if GPUPLAN_OWN_ALLOCATOR

#include <sys/mman.h>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <new>

namespace {

constexpr std::size_t kGranule = 16;     // __STDCPP_DEFAULT_NEW_ALIGNMENT__ on x86-64
constexpr std::size_t kClasses = 32;     // 16, 32, …, 512 bytes
constexpr std::size_t kChunk = 1 << 16;  // what a thread takes from the range at a time
constexpr std::size_t kReserve = std::size_t{4} << 30;  // address space only: pages are touched as used

// Blocks of every class share a thread's chunk, packed as glibc packs them
// (a page touched is a page fault); the class of each block is a byte in a
// map of the range's 16-byte granules, so a block needs no header.
struct Region {
  std::byte* base = nullptr;
  unsigned char* class_of = nullptr;  // one byte a granule: the class of the block starting there
  std::atomic<std::size_t> used{0};   // chunks handed out
};

void reserve(Region& reg) {
  const int prot = PROT_READ | PROT_WRITE, flags = MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE;
  void* p = ::mmap(nullptr, kReserve, prot, flags, -1, 0);
  void* m = ::mmap(nullptr, kReserve / kGranule, prot, flags, -1, 0);
  if (p != MAP_FAILED && m != MAP_FAILED) {  // else: malloc for all
    reg.base = static_cast<std::byte*>(p);
    reg.class_of = static_cast<unsigned char*>(m);
  }
}

Region& region() {
  // Reserved on first use, never released (the process ends with it).
  static Region r;
  static const bool reserved = (reserve(r), true);
  (void)reserved;
  return r;
}

struct FreeBlock {
  FreeBlock* next;
};

// Per thread: a free list a class, and the rest of the current chunk.
struct ThreadCache {
  FreeBlock* free[kClasses];
  std::byte* bump;
  std::byte* end;
};
thread_local constinit ThreadCache cache{};

void* allocate_small(std::size_t c) {
  ThreadCache& t = cache;
  if (FreeBlock* b = t.free[c]) {
    t.free[c] = b->next;
    return b;
  }
  const std::size_t size = (c + 1) * kGranule;
  Region& r = region();
  if (static_cast<std::size_t>(t.end - t.bump) < size) {  // (null - null is 0: no arithmetic on null)
    if (!r.base) return nullptr;
    const std::size_t i = r.used.fetch_add(1, std::memory_order_relaxed);
    if (i >= kReserve / kChunk) return nullptr;
    t.bump = r.base + i * kChunk;  // the rest of the old chunk is left unused
    t.end = t.bump + kChunk;
  }
  std::byte* p = t.bump;
  t.bump += size;
  r.class_of[static_cast<std::size_t>(p - r.base) / kGranule] = static_cast<unsigned char>(c);
  return p;
}

void* allocate(std::size_t n) {
  if (n == 0) n = 1;
  if (n <= kClasses * kGranule)
    if (void* p = allocate_small((n - 1) / kGranule)) return p;
  if (void* p = std::malloc(n)) return p;
  throw std::bad_alloc();
}

void release(void* p) noexcept {
  if (!p) return;
  const Region& r = region();
  const auto* b = static_cast<std::byte*>(p);
  if (r.base && b >= r.base && b < r.base + kReserve) {
    const std::size_t c = r.class_of[static_cast<std::size_t>(b - r.base) / kGranule];
    auto* f = static_cast<FreeBlock*>(p);
    f->next = cache.free[c];
    cache.free[c] = f;
    return;
  }
  std::free(p);
}

}  // namespace

// The replaceable global forms; the array, nothrow and sized forms of the
// standard library call these.
void* operator new(std::size_t n) { return allocate(n); }
void* operator new[](std::size_t n) { return allocate(n); }
void operator delete(void* p) noexcept { release(p); }
void operator delete[](void* p) noexcept { release(p); }
void operator delete(void* p, std::size_t) noexcept { release(p); }
void operator delete[](void* p, std::size_t) noexcept { release(p); }

#endif
