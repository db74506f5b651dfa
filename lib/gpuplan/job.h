// Job files for `estimate` (and, later, `plan`): YAML or nothing, plus --set
// overrides, resolved against the catalog into a Job and a Cluster. Values not
// given are defaults named in `defaults_used`. The schema is in examples/README.md.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "gpuplan/context.h"
#include "gpuplan/json.h"
#include "gpuplan/money.h"
#include "gpuplan/training.h"

namespace gpuplan {

/// What a plan optimises: the cost (default) or the finish time.
enum class Objective { kCost, kTime };

/// The `plan:` section of a job file (flags of `gpuplan plan` override it).
struct PlanSettings {
  std::optional<Seconds> deadline{};  ///< from now (see parse_deadline)
  std::string deadline_text{};        ///< as written, for titles
  std::optional<Money> budget{};      ///< in the display currency
  bool allow_spot = false, include_buy = false;
  bool exclude_restricted = false;  ///< leave out offers and cards restricted in the market
  int max_gpus = 0;
  Objective objective = Objective::kCost;
  double confidence = 0;
  std::vector<std::string> gpus{}, providers{}, regions{};
  std::string market{};  ///< region preferred for purchase prices and operating costs
};

/// What the job file is read for: `plan` searches GPUs and counts itself, so
/// cluster.gpu and cluster.gpus are neither defaulted nor checked against the precision.
enum class JobUse { kEstimate, kPlan };

struct ResolvedJob {
  Job job{};
  Cluster cluster{};
  std::string source{};
  std::vector<std::string> defaults_used{};
  std::vector<std::string> warnings{};  ///< values that are valid but probably mistyped (tokens: 1 for 1T)
  Json inputs{};
  double spot_interruptions_per_day = 0;  ///< for the spot cost rows
  Bytes dataset{};                        ///< kept in storage during the run (cost rows)
  double epochs = 1;                      ///< job.epochs: job.samples is per epoch, Job::samples the whole run
  BytesPerSecond upload_bandwidth{};      ///< to the provider, before a rental starts (plan)
  PlanSettings plan{};
  std::string cluster_gpu{};     ///< cluster.gpu as read (cluster.gpu points at its catalog entry)
  int data_storage = 0;          ///< data.storage: 0 local NVMe, 1 network disk, 2 object storage
  bool checkpoint_auto = false;  ///< checkpoint.interval: auto (Daly's optimum)
  int checkpoint_storage = 2;    ///< checkpoint.storage: local_nvme, network_disk, object_storage, parallel_fs
  /// checkpoint.storage, write_bandwidth and total_bandwidth as written (false: derived from the node count).
  struct {
    bool storage = false, write = false, total = false;
  } checkpoint_given{};
  std::string layout_text{};  ///< job.layout as written ("tp=2,pp=4"); "" = searched
  LayoutPin layout{};         ///< the same, parsed
};

/// Storage read bandwidth presets (assumptions, see job.cc).
BytesPerSecond storage_read_bandwidth(std::string_view tier);
/// Network presets: "ib_hdr" -> 200 Gb/s, ... (reference data §2). nullopt for unknown names.
std::optional<BytesPerSecond> network_bandwidth(std::string_view name);
/// The names of the network presets.
std::vector<std::string_view> network_names();
/// The cluster's network for people: its named network, or "custom N Gb/s"
/// in the reader's language when only a bandwidth was given (the data value,
/// echoed in JSON, stays English).
std::string network_shown(const Cluster& c);

/// Throws InputErrors naming file, line and field (or --set / the flag).
/// `text`: the file's content already in memory (`path` then only names it).
ResolvedJob load_job(const std::string& path, const std::vector<std::string>& sets, const Context& ctx,
                     JobUse use = JobUse::kEstimate, const std::string* text = nullptr);

/// A flag that stands for a --set override (`--mfu 35%` is `--set job.mfu=35%`).
struct FlagOverride {
  std::string flag;   ///< "--mfu"
  std::string path;   ///< "job.mfu"
  std::string value;  ///< as given
};

/// load_job with `flags` applied after `sets`; a problem with a flag's value is
/// reported at the flag ("--mfu 150%: job.mfu: ..."), not at an invisible --set.
ResolvedJob load_job_with_flags(const std::string& path, std::vector<std::string> sets,
                                const std::vector<FlagOverride>& flags, const Context& ctx,
                                JobUse use = JobUse::kEstimate);

/// Whether a YAML file is a job file (it has a job, cluster, data, checkpoint,
/// cost or plan section) rather than a buy-vs-rent scenario. Throws InputErrors
/// for an unreadable or malformed file.
bool is_job_file(const std::string& path);

/// A scaling fit saved by `gpuplan fit scaling --format json -o FILE`: the USL's
/// σ and κ (Amdahl's σ when the USL was not fitted, or when its AICc is worse).
/// Throws InputErrors naming the file, line and field.
MeasuredScaling load_scaling_fit(const std::string& path);

/// The `--deadline` / `plan.deadline` text: a duration ("36h", "10d"), or a
/// moment in local time: a date ("2026-12-20": the start of that day) or a
/// date and time ("2026-12-20T18:00", "2026-12-20 18:00"), counted from `now`.
/// Throws std::invalid_argument, also for a moment that has passed.
Seconds parse_deadline(std::string_view text, std::chrono::sys_seconds now);

}  // namespace gpuplan
