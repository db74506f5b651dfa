// Whole commands, run as a user runs them: the release binary started as a
// process, its wall time next to a reference started just before it (a bare
// process, /bin/true; numpy + scipy for the large fit), and its peak RSS.
// Ratios, not seconds, because a shared machine drifts; interleaving puts
// both runs of a pair on the same machine state.
//
//   build/release/tests/bench/bench_commands build/release/apps/gpuplan [runs] [--huge] [--only TEXT]   (from the source tree)
//
// Targets (speed issue): every command on every example <= 2x a bare start
// and <= 16 MB peak RSS; `fit scaling` on 1M rows with JSON output >= 20x
// faster than numpy loadtxt + scipy curve_fit, <= 16 MB, output size
// independent of the rows; --huge: 100M rows piped in, in the same memory.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <fmt/format.h>
#include <random>
#include <spawn.h>
#include <string>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

extern char** environ;

namespace {

namespace fs = std::filesystem;

struct Run {
  double ms = 0;
  long max_rss_kb = 0;
  int status = 0;  ///< the exit code
};

// Spawns argv with stdout and stderr to /dev/null (stdin from `stdin_fd` when
// given) and waits; the peak RSS is the child's own (wait4's rusage).
pid_t spawn(const std::vector<std::string>& argv, int stdin_fd) {
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  if (stdin_fd >= 0) posix_spawn_file_actions_adddup2(&fa, stdin_fd, 0);
  posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
  pid_t pid = 0;
  const int err = posix_spawnp(&pid, args[0], &fa, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&fa);
  if (err != 0) {
    fmt::print(stderr, "cannot start {}: {}\n", argv[0], std::strerror(err));
    std::exit(1);
  }
  return pid;
}

Run finish(pid_t pid, std::chrono::steady_clock::time_point t0) {
  int status = 0;
  struct rusage ru {};
  wait4(pid, &status, 0, &ru);
  const auto t1 = std::chrono::steady_clock::now();
  return {std::chrono::duration<double, std::milli>(t1 - t0).count(), ru.ru_maxrss,
          WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status)};
}

Run checked(const Run& r, const std::vector<std::string>& argv) {
  if (r.status != 0) {
    fmt::print(stderr, "{} exited with {}\n", fmt::join(argv, " "), r.status);
    std::exit(1);
  }
  return r;
}

Run run_once(const std::vector<std::string>& argv) {
  const auto t0 = std::chrono::steady_clock::now();
  return checked(finish(spawn(argv, -1), t0), argv);
}

// Every command on every example it takes (the one that exits 0), so a new
// example is measured without editing this list.
std::vector<std::vector<std::string>> example_cases(const std::string& gpuplan) {
  std::vector<std::vector<std::string>> cases = {
      {"prices"},
      {"prices", "--gpu", "A100-80G", "--format", "json"},
      {"prices", "--catalog", "examples/team-quotes.yaml"},
      {"gpus", "--format", "csv"},
      {"catalog", "validate", "examples/team-quotes.yaml"},
      {"compare"},
  };
  std::vector<fs::path> files;
  for (const auto& e : fs::directory_iterator("examples"))
    if (e.path().extension() == ".yaml") files.push_back(e.path());
  std::sort(files.begin(), files.end());
  for (const char* command : {"compare", "estimate", "plan", "sensitivity", "serve"})
    for (const fs::path& f : files) {
      const std::vector<std::string> c = {command, f.string()};
      std::vector<std::string> argv = {gpuplan};
      argv.insert(argv.end(), c.begin(), c.end());
      const auto t0 = std::chrono::steady_clock::now();
      if (finish(spawn(argv, -1), t0).status == 0) cases.push_back(c);
    }
  cases.push_back({"compare", "examples/qingdao-8xa100.yaml", "--monthly", "--format", "csv"});
  cases.push_back({"fit", "scaling", "examples/scaling-a100.csv", "--predict", "32,64"});
  cases.push_back({"fit", "progress", "examples/trial-progress.csv", "--total-steps", "20000"});
  return cases;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

struct Pairs {
  double ms = 0, reference_ms = 0;
  long max_rss_kb = 0, reference_rss_kb = 0;
};

// Medians of `runs` interleaved pairs (reference, then command), after warm-up runs.
Pairs pairs(const std::vector<std::string>& cmd, const std::vector<std::string>& reference, int runs, int warm) {
  for (int i = 0; i < warm; ++i) run_once(reference), run_once(cmd);
  std::vector<double> a, b;
  Pairs p;
  for (int i = 0; i < runs; ++i) {
    const Run r = run_once(reference), c = run_once(cmd);
    b.push_back(r.ms);
    a.push_back(c.ms);
    p.max_rss_kb = std::max(p.max_rss_kb, c.max_rss_kb);
    p.reference_rss_kb = std::max(p.reference_rss_kb, r.max_rss_kb);
  }
  p.ms = median(a);
  p.reference_ms = median(b);
  return p;
}

// USL measurements with 2% noise (λ = 1000, σ = 0.03, κ = 0.0005, N = 1..128),
// as in the issue's usl1m.csv: one "gpus,throughput" line per row.
class UslRows {
 public:
  std::string next() {
    const double n = gpus_(rng_);
    return fmt::format("{:g},{:.2f}\n", n, 1000 * n / (1 + 0.03 * (n - 1) + 0.0005 * n * (n - 1)) * noise_(rng_));
  }

 private:
  std::mt19937 rng_{42};
  std::uniform_int_distribution<int> gpus_{1, 128};
  std::normal_distribution<double> noise_{1.0, 0.02};
};

void write_rows(const fs::path& path, long rows) {
  std::FILE* f = std::fopen(path.c_str(), "w");
  UslRows gen;
  std::string block = "gpus,throughput\n";
  for (long i = 0; i < rows; ++i) {
    block += gen.next();
    if (block.size() > (1 << 20)) std::fputs(block.c_str(), f), block.clear();
  }
  std::fputs(block.c_str(), f);
  std::fclose(f);
}

// numpy + scipy, the way an analyst would fit the same file.
const char* kPythonFit = R"(
import json, sys
import numpy as np
from scipy.optimize import curve_fit
d = np.loadtxt(sys.argv[1], delimiter=",", skiprows=1)
n, x = d[:, 0], d[:, 1]
usl = lambda n, l, s, k: l * n / (1 + s * (n - 1) + k * n * (n - 1))
p, cov = curve_fit(usl, n, x, p0=[x[n == n.min()].mean() / n.min(), 0.01, 0.0001])
json.dump({"lambda": p[0], "sigma": p[1], "kappa": p[2], "se": np.sqrt(np.diag(cov)).tolist()}, open(sys.argv[2], "w"))
)";

bool have_numpy_scipy(const std::string& python) {
  const std::string cmd = python + " -c 'import numpy, scipy' >/dev/null 2>&1";
  return std::system(cmd.c_str()) == 0;
}

// Single-shot commands must cost about a process start; plan and
// sensitivity search or sweep, so only their memory has a target.
void print_command(const std::vector<std::string>& c, const Pairs& p) {
  const bool single_shot = c[0] != "plan" && c[0] != "sensitivity";
  const bool over = (single_shot && p.ms / p.reference_ms > 2) || p.max_rss_kb > 16 * 1024;
  fmt::print("{:<66} {:>7.2f} ms  x{:<6.2f} {:>5.1f} MB{}\n", fmt::format("gpuplan {}", fmt::join(c, " ")), p.ms,
             p.ms / p.reference_ms, static_cast<double>(p.max_rss_kb) / 1024, over ? "  <-- over" : "");
}

// `only`: measure just the commands whose text contains it (empty: all).
void examples(const std::string& gpuplan, int runs, const std::string& only) {
  const std::vector<std::vector<std::string>> cases = example_cases(gpuplan);
  const std::vector<std::string> bare = {"/bin/true"};
  const Run b = run_once(bare);
  fmt::print(
      "Each command on the examples: median wall time of {} runs, interleaved with a bare process start\n"
      "(/bin/true); ratio to it (target <= 2 for single-shot commands) and peak RSS (target <= 16 MB; an\n"
      "upper bound: a spawned process starts from its parent's peak, so /bin/true shows {:.1f} MB).\n\n",
      runs, static_cast<double>(b.max_rss_kb) / 1024);
  for (const auto& c : cases) {
    if (!only.empty() && fmt::format("{}", fmt::join(c, " ")).find(only) == std::string::npos) continue;
    std::vector<std::string> argv = {gpuplan};
    argv.insert(argv.end(), c.begin(), c.end());
    print_command(c, pairs(argv, bare, runs, 5));
  }
  const Pairs p = pairs(bare, bare, runs, 5);
  fmt::print("{:<66} {:>7.2f} ms\n\n", "/bin/true (bare start)", p.ms);
}

void large_fits(const std::string& gpuplan, const std::string& python, bool huge) {
  const fs::path dir = fs::temp_directory_path() / fmt::format("gpuplan-bench-{}", ::getpid());
  fs::create_directories(dir);
  const bool py = have_numpy_scipy(python);
  fmt::print("fit scaling on USL data with 2% noise, end to end with --format json -o FILE{}:\n\n",
             py ? fmt::format(", against {} with numpy loadtxt + scipy curve_fit on the same file", python)
                : " (numpy/scipy not found: no Python column)");
  for (const long rows : {1'000'000L, 10'000'000L}) {
    const fs::path csv = dir / fmt::format("usl{}.csv", rows), out = dir / "fit.json", pyout = dir / "py.json";
    write_rows(csv, rows);
    const std::vector<std::string> cmd = {gpuplan,    "fit",  "scaling", csv.string(),
                                          "--format", "json", "-o",      out.string()};
    const std::vector<std::string> ref =
        py ? std::vector<std::string>{python, "-c", kPythonFit, csv.string(), pyout.string()}
           : std::vector<std::string>{"/bin/true"};
    const int runs = rows > 1'000'000 ? 1 : 7;  // the 1M ratio is a target: a median of 7 pairs
    const Pairs p = pairs(cmd, ref, runs, 0);
    fmt::print("  {:>10} rows ({:5.1f} MB): gpuplan {:7.3f} s, {:5.1f} MB RSS, JSON {} bytes", rows,
               static_cast<double>(fs::file_size(csv)) / 1e6, p.ms / 1000, static_cast<double>(p.max_rss_kb) / 1024,
               fs::file_size(out));
    if (py)
      fmt::print("; numpy+scipy {:7.3f} s, {:5.0f} MB RSS: gpuplan {:.1f}x faster", p.reference_ms / 1000,
                 static_cast<double>(p.reference_rss_kb) / 1024, p.reference_ms / p.ms);
    fmt::print("\n");
    fs::remove(csv);
  }
  if (huge) {
    // 100M rows piped in: never on disk, never in memory.
    const long rows = 100'000'000L;
    int fds[2];
    if (::pipe2(fds, O_CLOEXEC) != 0) std::exit(1);  // the child must not hold the write end open
    const fs::path out = dir / "fit.json";
    const std::vector<std::string> cmd = {gpuplan, "fit", "scaling", "-", "--format", "json", "-o", out.string()};
    const auto t0 = std::chrono::steady_clock::now();
    const pid_t pid = spawn(cmd, fds[0]);
    ::close(fds[0]);
    UslRows gen;
    std::string block = "gpus,throughput\n";
    for (long i = 0; i < rows; ++i) {
      block += gen.next();
      if (block.size() > (1 << 20) || i + 1 == rows) {
        for (std::size_t done = 0; done < block.size();) {
          const ssize_t n = ::write(fds[1], block.data() + done, block.size() - done);
          if (n <= 0) std::exit(1);
          done += static_cast<std::size_t>(n);
        }
        block.clear();
      }
    }
    ::close(fds[1]);
    const Run r = checked(finish(pid, t0), cmd);
    fmt::print(
        "  {:>10} rows piped through standard input: {:.1f} s (with generating them), {:.1f} MB RSS, JSON {} bytes\n",
        rows, r.ms / 1000, static_cast<double>(r.max_rss_kb) / 1024, fs::file_size(out));
  }
  fs::remove_all(dir);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s PATH/TO/gpuplan [runs] [--huge] [--python PATH] [--only TEXT]\n", argv[0]);
    return 2;
  }
  int runs = 100;
  bool huge = false;
  std::string python = "/usr/bin/python3";  // Debian's, where python3-numpy and python3-scipy install
  std::string only;  // just these commands, and no large fits
  for (int i = 2; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--huge") huge = true;
    else if (a == "--python" && i + 1 < argc) python = argv[++i];
    else if (a == "--only" && i + 1 < argc) only = argv[++i];
    else runs = std::max(5, std::atoi(argv[i]));
  }
  const std::string gpuplan = fs::absolute(argv[1]).string();
  examples(gpuplan, runs, only);
  if (only.empty()) large_fits(gpuplan, python, huge);
}
