// The executable's allocator (apps/gpuplan/alloc.cc), linked here on its own:
// every block is aligned, distinct from every other live block, keeps what is
// written into it, and may be freed by another thread than the one that took it.
#include <catch2/catch.hpp>

#include <cstdint>
#include <random>
#include <thread>
#include <vector>

#include "../apps/gpuplan/alloc.h"

namespace {

struct Block {
  unsigned char* p;
  std::size_t n;
  unsigned char fill;
};

void check(const Block& b) {
  for (std::size_t i = 0; i < b.n; ++i)
    if (b.p[i] != b.fill) FAIL("block of " << b.n << " bytes changed at " << i);
}

// Takes and frees blocks of random sizes (small classes, the 512-byte edge, malloc's sizes).
std::vector<Block> churn(unsigned seed, int rounds, std::vector<Block> keep = {}) {
  std::mt19937 rng(seed);
  std::vector<Block> live = std::move(keep);
  for (int i = 0; i < rounds; ++i) {
    if (!live.empty() && rng() % 3 == 0) {
      const std::size_t k = rng() % live.size();
      check(live[k]);
      ::operator delete(live[k].p);
      live[k] = live.back();
      live.pop_back();
      continue;
    }
    const std::size_t sizes[] = {0, 1, 15, 16, 17, 100, 511, 512, 513, 4096};
    const std::size_t n = rng() % 2 ? sizes[rng() % 10] : rng() % 700;
    auto* p = static_cast<unsigned char*>(::operator new(n));
    REQUIRE(reinterpret_cast<std::uintptr_t>(p) % 16 == 0);
    const auto fill = static_cast<unsigned char>(rng());
    for (std::size_t j = 0; j < n; ++j) p[j] = fill;
    live.push_back({p, n, fill});
  }
  return live;
}

}  // namespace

TEST_CASE("blocks are aligned, separate, keep their bytes, and are reused after free", "[alloc]") {
  std::vector<Block> live = churn(1, 20000);
  for (const Block& b : live) check(b);
  for (const Block& b : live) ::operator delete(b.p);
  // A freed small block is handed out again (a sanitizer's allocator holds it back instead).
  void* a = ::operator new(48);
  ::operator delete(a);
  void* b = ::operator new(48);
  if (GPUPLAN_OWN_ALLOCATOR) CHECK(a == b);
  ::operator delete(b);
}

TEST_CASE("blocks taken by one thread may be freed by another, all threads at once", "[alloc]") {
  std::vector<std::vector<Block>> handed(4);
  std::vector<std::thread> threads;
  for (unsigned t = 0; t < 4; ++t) threads.emplace_back([&, t] { handed[t] = churn(10 + t, 20000); });
  for (auto& th : threads) th.join();
  threads.clear();
  // Each thread now frees (and checks) what another took, while taking more.
  for (unsigned t = 0; t < 4; ++t)
    threads.emplace_back([&, t] {
      std::vector<Block> rest = churn(20 + t, 20000, std::move(handed[(t + 1) % 4]));
      for (const Block& b : rest) {
        check(b);
        ::operator delete(b.p);
      }
    });
  for (auto& th : threads) th.join();
}
