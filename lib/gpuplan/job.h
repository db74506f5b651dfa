// Job files for `estimate` (and, later, `plan`): YAML or nothing, plus --set
// overrides, resolved against the catalog into a Job and a Cluster. Values not
// given are defaults named in `defaults_used`. The schema is in examples/README.md.
#pragma once

#include <string>
#include <vector>

#include "gpuplan/context.h"
#include "gpuplan/json.h"
#include "gpuplan/training.h"

namespace gpuplan {

struct ResolvedJob {
  Job job{};
  Cluster cluster{};
  std::string source{};
  std::vector<std::string> defaults_used{};
  Json inputs{};
  double spot_interruptions_per_day = 1.0;  ///< for the spot cost rows
  Bytes dataset{};                          ///< kept in storage during the run (cost rows)
};

/// Storage read bandwidth presets (assumptions, see job.cc).
BytesPerSecond storage_read_bandwidth(std::string_view tier);
/// Network presets: "ib_hdr" -> 200 Gb/s, ... (reference data §2). nullopt for unknown names.
std::optional<BytesPerSecond> network_bandwidth(std::string_view name);

/// Throws InputErrors naming file, line and field (or --set / the flag).
ResolvedJob load_job(const std::string& path, const std::vector<std::string>& sets, const Context& ctx);

}  // namespace gpuplan
