// Median wall time of `gpuplan prices` next to a trivial process spawn.
// SPEC: budget scripts call gpuplan in loops, so a query must cost about as
// much as starting a process. Target (foundation issue): ratio <= 2.
//
//   build/release/tests/bench/bench_startup build/release/apps/gpuplan [runs]   (from the source tree)
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fcntl.h>
#include <fmt/format.h>
#include <spawn.h>
#include <string>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

extern char** environ;

namespace {

double run_once(const std::vector<std::string>& argv) {
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
  const auto t0 = std::chrono::steady_clock::now();
  pid_t pid = 0;
  if (posix_spawn(&pid, args[0], &fa, nullptr, args.data(), environ) != 0) {
    std::perror("posix_spawn");
    std::exit(1);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  const auto t1 = std::chrono::steady_clock::now();
  posix_spawn_file_actions_destroy(&fa);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    std::fprintf(stderr, "%s exited with %d\n", args[0], WEXITSTATUS(status));
    std::exit(1);
  }
  return std::chrono::duration<double, std::milli>(t1 - t0).count();
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s PATH/TO/gpuplan [runs]\n", argv[0]);
    return 2;
  }
  const int runs = argc > 2 ? std::max(5, std::atoi(argv[2])) : 200;
  const std::vector<std::string> trivial = {"/bin/true"};
  const std::vector<std::vector<std::string>> cases = {
      {argv[1], "prices"},
      {argv[1], "prices", "--gpu", "A100-80G", "--format", "json"},
      {argv[1], "gpus", "--format", "csv"},
      // compare on each scenario example (issue 18: each within 2x a bare start); run from the source tree.
      {argv[1], "compare"},
      {argv[1], "compare", "examples/qingdao-8xa100.yaml"},
      {argv[1], "compare", "examples/qingdao-hybrid.yaml"},
      {argv[1], "compare", "examples/startup-4090-spot.yaml"},
      {argv[1], "compare", "examples/qingdao-8xa100.yaml", "--monthly", "--format", "csv"},
  };
  // Interleaved: each gpuplan run is paired with a /bin/true run just before
  // it, so that both see the same machine (load on a shared VM drifts).
  for (int i = 0; i < 10; ++i) run_once(trivial);  // warm the page cache
  for (const auto& c : cases) {
    std::vector<double> base, t;
    for (int i = 0; i < 10; ++i) run_once(c);
    for (int i = 0; i < runs; ++i) {
      base.push_back(run_once(trivial));
      t.push_back(run_once(c));
    }
    std::string name;
    for (std::size_t i = 1; i < c.size(); ++i) name += (i > 1 ? " " : "") + c[i];
    const double b = median(base), m = median(t);
    fmt::print("gpuplan {:<55} {:>7.3f} ms vs /bin/true {:>6.3f} ms: ratio {:.2f} (target <= 2.00; medians of {})\n",
               name, m, b, m / b, runs);
  }
}
