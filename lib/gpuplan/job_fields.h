// The input fields of a job file (`estimate`, `plan`, `sensitivity`), one row
// each: see fields.h for what a row holds. The schema for people is in
// examples/README.md; lib/gpuplan/schemas/{estimate,plan}.schema.json describe
// the echo, and a test checks both against these rows.
#pragma once

#include <span>
#include <string_view>

#include "gpuplan/fields.h"
#include "gpuplan/job.h"

namespace gpuplan {

/// Every section of a job file, in reading order: "" (the top level), job,
/// job.architecture, data, checkpoint, cluster, cost, plan.
std::span<const Section<ResolvedJob>> job_sections();

/// One section by name; throws std::logic_error for an unknown name.
const Section<ResolvedJob>& job_section(std::string_view name);

/// The JSON Schema of what load_job echoes (the `inputs` of estimate; of plan
/// with `for_plan`, where the cluster's GPU and count are searched, not read,
/// and the plan section is added), from the rows.
Json job_echo_schema(bool for_plan);

/// The job as it runs on `instances` of an offer rather than on cluster.*:
/// checkpoint storage and bandwidths the file leaves to defaults follow that
/// count (one instance writes to object storage, several to a parallel file
/// system), as they would had the cluster been given that way. `changed_tier`
/// is set to the checkpoint.storage used when it differs from cluster.*'s.
Job job_on_instances(const ResolvedJob& r, int instances, std::string_view* changed_tier = nullptr);

/// Whether a job has no transformer: it gives forward FLOPs per sample.
bool is_vision_job(const Job& j);

}  // namespace gpuplan
