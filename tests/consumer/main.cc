// Uses the installed library the way a program embedding gpuplan would: the
// built-in catalog, units, money and the training model.
#include <cstdio>

#include "gpuplan/catalog.h"
#include "gpuplan/money.h"
#include "gpuplan/training.h"
#include "gpuplan/units.h"

int main() {
  const gpuplan::Catalog& cat = gpuplan::builtin_catalog();
  const gpuplan::Gpu* a100 = cat.find_gpu("A100-80G");
  if (a100 == nullptr) return 1;
  gpuplan::Job job;
  job.parameters = 7e9;
  job.tokens = 2e9;
  job.sequence_length = 4096;
  job.global_batch = 128;
  job.zero_stage = 1;
  gpuplan::Cluster cluster;
  cluster.gpu = a100;
  cluster.gpus = 8;
  cluster.network_bandwidth = gpuplan::parse_rate("25Gbps");
  const gpuplan::Estimate e = gpuplan::estimate(job, cluster);
  const gpuplan::Money price = gpuplan::Money::parse("9.87", gpuplan::kCny);
  std::printf("%zu offers; 7B on 8x A100-80G: %.1f h; 8 GPUs x that at 9.87 CNY/GPU-h: %s CNY\n", cat.offers.size(),
              e.wall.count() / 3600, gpuplan::to_plain_string(price.scaled(e.gpu_hours)).c_str());
  return 0;
}
