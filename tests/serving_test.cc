// Serving: the KV cache, the batch that fits, decode and prefill time, the
// batch under latency targets, replicas and cost per million tokens, each
// against arithmetic written out here; continuous batching against a
// step-by-step simulation; and properties over inputs.
#include <catch2/catch.hpp>
#include <fmt/format.h>

#include <deque>
#include <map>
#include <memory>
#include <random>

#include "fixture.h"
#include "gpuplan/commands/serve.h"
#include "gpuplan/compare.h"
#include "gpuplan/scenario.h"
#include "gpuplan/error.h"
#include "gpuplan/serving.h"
#include "gpuplan/serving_input.h"
#include "gpuplan/serving_plan.h"

using namespace gpuplan;

namespace {

// A card of 80 GB at 2,000 GB/s and 300 TFLOP/s bf16.
Gpu card() {
  Gpu g;
  g.id = "CARD";
  g.memory = Bytes(80e9);
  g.memory_bandwidth = BytesPerSecond(2000e9);
  g.dense_tflops = {{Precision::kBf16, 300}};
  return g;
}

// Llama 2 7B's shape (32 layers, 4,096 wide, 32 heads, no GQA), 6.74B weights in bf16.
ServedModel llama7b() {
  ServedModel m;
  m.parameters = 6.74e9;
  m.layers = 32;
  m.hidden = 4096;
  m.heads = 32;
  m.kv_heads = 32;
  return m;
}

ServingEfficiency efficiency() {
  return {.prefill_mfu = 0.5, .decode_bandwidth = 0.68, .memory_share = 0.9, .peak_load = 0.8};
}

Traffic traffic() {
  return {.requests_per_second = 1, .prompt_tokens = 1000, .output_tokens = 300, .peak_to_average = 3};
}

using testing::fixture_context;

}  // namespace

TEST_CASE("KV cache bytes per token: 2 · layers · kv_heads · head size · bytes, GQA included") {
  ServedModel m;
  m.layers = 80;
  m.hidden = 8192;
  m.heads = 64;
  m.kv_heads = 8;  // Llama 2 70B: grouped-query attention, 8 KV heads of 128
  // 2 × 80 × 8 × 128 × 2 bytes = 327,680
  CHECK(kv_bytes_per_token(m).value() == Approx(327680));
  m.kv_heads = 64;  // without GQA: eight times as much
  CHECK(kv_bytes_per_token(m).value() == Approx(2621440));
  m.kv_heads = 8;
  m.kv_cache = Storage::kFp8;  // one byte a value
  CHECK(kv_bytes_per_token(m).value() == Approx(163840));
}

TEST_CASE("Weights by storage: 2, 1 and half a byte a parameter") {
  ServedModel m = llama7b();
  CHECK(weight_bytes(m).value() == Approx(13.48e9));
  m.weights = Storage::kInt8;
  CHECK(weight_bytes(m).value() == Approx(6.74e9));
  m.weights = Storage::kInt4;
  CHECK(weight_bytes(m).value() == Approx(3.37e9));
}

TEST_CASE("The largest batch that fits: cache room over one request's whole context") {
  const Gpu g = card();
  const ReplicaShape r{&g, 1};
  const ReplicaRun run = replica_at(llama7b(), traffic(), efficiency(), r, 1);
  // 80e9 × 0.9 = 72e9 usable; − 13.48e9 weights = 58.52e9 for the cache.
  CHECK(run.kv_capacity.value() == Approx(58.52e9));
  // A request holds 1,000 + 300 tokens × 524,288 bytes = 681,574,400 bytes:
  // 58.52e9 / 681,574,400 = 85.86 → 85 requests.
  CHECK(run.max_batch == 85);
  CHECK(run.fits);
  // The same on two cards (TP2): 144e9 − 13.48e9 = 130.52e9 → 191.5 → 191.
  const ReplicaShape two{&g, 2, BytesPerSecond(300e9), "NVLink"};
  CHECK(replica_at(llama7b(), traffic(), efficiency(), two, 1).max_batch == 191);
}

TEST_CASE("A model bigger than the card does not fit") {
  Gpu g = card();
  g.memory = Bytes(24e9);
  ServedModel m = llama7b();
  m.parameters = 13e9;  // 26 GB of bf16 weights on a 24 GB card
  const ReplicaRun run = replica_at(m, traffic(), efficiency(), ReplicaShape{&g, 1}, 1);
  CHECK_FALSE(run.fits);
  CHECK(run.max_batch == 0);
  CHECK_FALSE(size_replica(m, traffic(), {Seconds(2), Seconds(0.1)}, efficiency(), ReplicaShape{&g, 1}).meets_targets);
}

TEST_CASE("Decode step at batch 1 is bytes over bandwidth times efficiency") {
  const Gpu g = card();
  const ReplicaShape r{&g, 1};
  bool memory_bound = false;
  // Context 1,150 tokens (1,000 prompt + half of 300 output):
  // (13.48e9 + 1,150 × 524,288) / (2,000e9 × 0.68) = 14,082,931,200 / 1.36e12 = 10.355 ms.
  const Seconds step = decode_step_time(llama7b(), efficiency(), r, 1, 1150, &memory_bound);
  CHECK(step.count() == Approx(14082931200.0 / 1.36e12));
  CHECK(memory_bound);
  // The FLOPs of that step: 2 × 6.74e9 + 4 × 32 × 1,150 × 4,096 = 1.4083e10 at 150 TFLOP/s: 0.094 ms, far less.
}

TEST_CASE("Decode turns compute-bound at a large batch") {
  const Gpu g = card();
  const ReplicaShape r{&g, 1};
  bool memory_bound = true;
  const double context = 100;
  const int batch = 4000;
  const Seconds step = decode_step_time(llama7b(), efficiency(), r, batch, context, &memory_bound);
  // FLOPs: 4,000 × (2 × 6.74e9 + 4 × 32 × 100 × 4,096) = 5.4130e13 at 1.5e14 FLOP/s = 0.36087 s;
  // bytes: 13.48e9 + 4,000 × 100 × 524,288 = 2.2319e11 at 1.36e12 = 0.16411 s.
  CHECK_FALSE(memory_bound);
  CHECK(step.count() == Approx(4000 * (2 * 6.74e9 + 4.0 * 32 * 100 * 4096) / 1.5e14));
}

TEST_CASE("Prefill is the prompt's FLOPs over the achieved rate") {
  const Gpu g = card();
  // 1,000 tokens: 2 × 6.74e9 × 1,000 + 2 × 32 × 1,000² × 4,096 = 1.348e13 + 2.62144e11 = 1.3742144e13
  // at 300e12 × 0.5 = 1.5e14 FLOP/s: 91.6 ms.
  CHECK(prefill_time(llama7b(), efficiency(), ReplicaShape{&g, 1}, 1000).count() == Approx(1.3742144e13 / 1.5e14));
}

TEST_CASE("Tensor parallel adds two ring all-reduces a layer") {
  const Gpu g = card();
  const ReplicaShape two{&g, 2, BytesPerSecond(100e9), "NVLink"};
  const ServingEfficiency e = efficiency();
  // Batch 8: each all-reduce carries 8 × 4,096 × 2 bytes = 65,536 bytes; a ring of 2 moves 2(2−1)/2 of it
  // at 100 GB/s: 0.65536 µs, plus 20 µs to start; 2 × 32 layers of them = 1.322 ms. Bytes over two cards' bandwidth.
  const double bytes = 13.48e9 + 8 * 1150.0 * 524288;
  CHECK(decode_step_time(llama7b(), e, two, 8, 1150).count() ==
        Approx(bytes / (2 * 2000e9 * 0.68) + 64 * (65536 / 100e9 + 20e-6)));
}

TEST_CASE("Continuous batching: throughput and latency of one replica") {
  const Gpu g = card();
  const ReplicaShape r{&g, 1};
  const ReplicaRun run = replica_at(llama7b(), traffic(), efficiency(), r, 16);
  const double step = run.decode_step.count(), prefill = run.prefill.count();
  // A cycle: 300 steps of the batch and the 16 newcomers' prompts; it serves 16 requests.
  const double cycle = 300 * step + 16 * prefill;
  CHECK(run.requests_per_second == Approx(16 / cycle));
  CHECK(run.output_tokens_per_second == Approx(16 * 300 / cycle));
  CHECK(run.tokens_per_second == Approx(16 * 1300 / cycle));
  // Between two of its tokens: a step, and its share of the other 15 newcomers' prompts.
  CHECK(run.time_per_output_token.count() == Approx(step + 15 * prefill / 300));
  CHECK(run.time_to_first_token.count() == Approx(prefill + step));
}

// An independent model of continuous batching: slots that free up when a
// request has its last token, each refilled by running the newcomer's prompt
// before the next step. Its long-run rate must match the closed form.
TEST_CASE("Continuous batching matches a step-by-step simulation") {
  for (const auto& [batch, output, step, prefill] :
       {std::tuple{16, 300, 0.010, 0.09}, std::tuple{1, 50, 0.02, 0.5}, std::tuple{64, 20, 0.03, 0.01}}) {
    std::deque<int> left(static_cast<std::size_t>(batch), 0);  // tokens each slot still owes; 0 = free
    double t = 0;
    double done = 0;
    for (int s = 0; s < 200000; ++s) {
      for (int& l : left)
        if (l == 0) {
          t += prefill;
          l = output;
        }
      t += step;
      for (int& l : left)
        if (--l == 0) ++done;
    }
    const double closed = batch / (output * step + batch * prefill);
    INFO(fmt::format("batch {} output {}", batch, output));
    CHECK(done / t == Approx(closed).epsilon(0.01));
  }
}

TEST_CASE("Lengths: the lognormal with the mean and 95th percentile given, against samples drawn from it") {
  for (const auto& [mean, p95] : {std::pair{2000.0, 6000.0}, std::pair{300.0, 400.0}, std::pair{100.0, 386.8}}) {
    const Lengths l = Lengths::of(mean, p95);
    INFO(fmt::format("mean {} p95 {}", mean, p95));
    CHECK(l.quantile(0.95) == Approx(p95).epsilon(1e-9));  // the 95th is the one given
    CHECK(l.moment(1) == Approx(mean));
    // Drawn with the standard library's lognormal: its mean, 95th percentile and E[X²] are the closed form's.
    std::mt19937_64 rng(7);
    std::lognormal_distribution<double> draw(std::log(mean) - l.sigma * l.sigma / 2, l.sigma);
    std::vector<double> x(400000);
    double sum = 0, sum2 = 0;
    for (double& v : x) {
      v = draw(rng);
      sum += v;
      sum2 += v * v;
    }
    std::nth_element(x.begin(), x.begin() + 380000, x.end());
    CHECK(sum / 400000 == Approx(mean).epsilon(0.01));
    CHECK(x[380000] == Approx(p95).epsilon(0.01));
    // E[X²] only where samples pin it (its sample error grows as exp(2σ²)).
    if (l.sigma < 1) CHECK(sum2 / 400000 == Approx(l.moment(2)).epsilon(0.03));
  }
  // The 95th at the mean: no spread; at 3.868 × the mean: σ at its largest, z = 1.645.
  CHECK(Lengths::of(500, 500).sigma == 0);
  CHECK(Lengths::of(500, 500).quantile(0.99) == 500);
  CHECK(Lengths::of(100, 386.8).sigma == Approx(1.6449).epsilon(0.01));
}

// An independent model of continuous batching with lengths that vary: every
// request draws its prompt and reply from the lognormals; a slot that frees is
// refilled by running the newcomer's prompt before the next step. Its rate and
// the percentiles of each request's mean gap between tokens (vLLM's TPOT:
// (last token − first) ÷ (O − 1)) must match replica_at's closed forms.
TEST_CASE("Lengths that vary: throughput and the TPOT percentile against a step-by-step simulation") {
  const Gpu g = card();
  const ReplicaShape r{&g, 1};
  // A moderate tail, and prompts at the lognormal's longest (p95 = 3.85 × the mean) with short replies.
  const auto [prompt_p95, output_mean, output_p95, tolerance] =
      GENERATE(std::tuple{6000.0, 300.0, 900.0, 0.06}, std::tuple{7700.0, 600.0, 1200.0, 0.12});
  Traffic t = traffic();
  t.prompt_tokens = 2000;
  t.prompt_tokens_p95 = prompt_p95;
  t.output_tokens = output_mean;
  t.output_tokens_p95 = output_p95;
  const ServedModel m = llama7b();
  const Lengths pl = prompt_lengths(t), ol = output_lengths(t);
  for (const int batch : {4, 8, 32}) {
    const ReplicaRun run = replica_at(m, t, efficiency(), r, batch, 95);
    const double step = run.decode_step.count();
    std::mt19937_64 rng(11);
    std::lognormal_distribution<double> prompt(std::log(pl.mean) - pl.sigma * pl.sigma / 2, pl.sigma);
    std::lognormal_distribution<double> reply(std::log(ol.mean) - ol.sigma * ol.sigma / 2, ol.sigma);
    struct Slot {
      long left = 0, length = 0;
      double first = 0;
    };
    std::vector<Slot> slots(static_cast<std::size_t>(batch));
    std::vector<double> gaps;
    double clock = 0, prompt_time = 0;
    long done = 0;
    while (done < 40000) {
      for (Slot& s : slots)
        if (s.left == 0) {
          const double p = std::max(1.0, std::round(prompt(rng)));
          prompt_time += prefill_time(m, efficiency(), r, p).count();
          clock += prefill_time(m, efficiency(), r, p).count();
          s.length = s.left = std::max(1L, std::lround(reply(rng)));
          s.first = -1;
        }
      clock += step;
      for (Slot& s : slots) {
        if (s.first < 0) s.first = clock;
        if (--s.left == 0) {
          ++done;
          if (s.length > 1) gaps.push_back((clock - s.first) / static_cast<double>(s.length - 1));
        }
      }
    }
    INFO(fmt::format("prompt p95 {}, batch {}", prompt_p95, batch));
    // The rate: the extreme tail's mean prompt is one 40,000 draws see only in part.
    CHECK(static_cast<double>(done) / clock == Approx(run.requests_per_second).epsilon(tolerance / 3));
    const auto at = [&](double q) {
      std::vector<double> v = gaps;
      const auto k = static_cast<std::ptrdiff_t>(q * static_cast<double>(v.size()));
      std::nth_element(v.begin(), v.begin() + k, v.end());
      return v[static_cast<std::size_t>(k)];
    };
    INFO(fmt::format("TPOT p95: model {:.4f}, simulation {:.4f}", run.time_per_output_token.count(), at(0.95)));
    CHECK(run.time_per_output_token.count() == Approx(at(0.95)).epsilon(tolerance));
    CHECK(replica_at(m, t, efficiency(), r, batch, 50).time_per_output_token.count() ==
          Approx(at(0.50)).epsilon(tolerance));
    // The first token: the step in flight and the prompt at the percentile.
    CHECK(run.time_to_first_token.count() ==
          Approx(prefill_time(m, efficiency(), r, prompt_p95).count() + step).epsilon(1e-6));
  }
}

TEST_CASE("Properties: a longer tail or a higher percentile never a larger batch nor fewer replicas") {
  const Gpu g = card();
  const ReplicaShape r{&g, 1};
  const auto sized = [&](double prompt_p95, double output_p95, double percentile) {
    Traffic t = traffic();
    t.prompt_tokens_p95 = prompt_p95;
    t.output_tokens_p95 = output_p95;
    return size_replica(llama7b(), t, {Seconds(1), Seconds(0.05), percentile}, efficiency(), r);
  };
  for (const double percentile : {50.0, 90.0, 99.0}) {
    int last_batch = 1 << 30, last_replicas = 0;
    for (double tail = 1; tail <= 3.8; tail += 0.4) {
      const ReplicaRun run = sized(1000 * tail, 300 * tail, percentile);
      INFO(fmt::format("percentile {} tail {}", percentile, tail));
      CHECK(run.batch <= last_batch);
      const int n = replicas_for(traffic(), efficiency(), run).value();
      CHECK(n >= last_replicas);
      last_batch = run.batch;
      last_replicas = n;
    }
  }
  int last = 1 << 30;
  for (const double percentile : {50.0, 75.0, 90.0, 95.0, 99.0, 99.9}) {
    const ReplicaRun run = sized(3000, 900, percentile);
    CHECK(run.batch <= last);
    last = run.batch;
  }
  // No tail: every percentile is the mean's answer; a tail at the 99th costs batch.
  CHECK(sized(1000, 300, 99).batch == sized(1000, 300, 50).batch);
  CHECK(sized(3000, 900, 99).batch < sized(1000, 300, 50).batch);
}

TEST_CASE("The batch under the targets: the largest that meets both") {
  const Gpu g = card();
  const ReplicaShape r{&g, 1};
  const ServiceTargets s{Seconds(2), Seconds(0.03)};
  const ReplicaRun best = size_replica(llama7b(), traffic(), s, efficiency(), r);
  REQUIRE(best.meets_targets);
  CHECK(best.time_per_output_token <= s.time_per_output_token);
  CHECK(best.limit == BatchLimit::kTimePerToken);
  const ReplicaRun next = replica_at(llama7b(), traffic(), efficiency(), r, best.batch + 1);
  CHECK(next.time_per_output_token > s.time_per_output_token);
  // Loose targets: memory is the limit.
  const ReplicaRun loose = size_replica(llama7b(), traffic(), {Seconds(60), Seconds(1)}, efficiency(), r);
  CHECK(loose.batch == loose.max_batch);
  CHECK(loose.limit == BatchLimit::kMemory);
  // Targets no batch can meet: batch 1, said so.
  const ReplicaRun tight = size_replica(llama7b(), traffic(), {Seconds(2), Seconds(0.001)}, efficiency(), r);
  CHECK_FALSE(tight.meets_targets);
  CHECK(tight.batch == 1);
  CHECK(tight.limit == BatchLimit::kTimePerToken);
}

TEST_CASE("Replicas for the busiest hour: peak rate over a replica's rate at peak_load, rounded up") {
  ReplicaRun r;
  r.requests_per_second = 0.5;
  Traffic t = traffic();  // 1 request/s × 3 = 3 at peak; 0.5 × 0.8 = 0.4 a replica → 7.5 → 8
  CHECK(replicas_for(t, efficiency(), r) == 8);
  t.requests_per_second = 0.4 / 3;  // exactly one replica's worth at peak
  CHECK(replicas_for(t, efficiency(), r) == 1);
  t.requests_per_second = 1e7;  // 3e7 / 0.4 = 75 million replicas: no plan anyone has
  CHECK_FALSE(replicas_for(t, efficiency(), r).has_value());
}

TEST_CASE("Properties: more load never needs fewer replicas — looser targets never a smaller batch") {
  const Gpu g = card();
  const ReplicaShape r{&g, 1};
  int last_replicas = 0;
  for (double rps = 0.05; rps < 100; rps *= 1.7) {
    Traffic t = traffic();
    t.requests_per_second = rps;
    const ReplicaRun run = size_replica(llama7b(), t, {Seconds(2), Seconds(0.05)}, efficiency(), r);
    const int n = replicas_for(t, efficiency(), run).value();
    CHECK(n >= last_replicas);
    last_replicas = n;
  }
  int last_batch = 0;
  for (double tpot = 0.011; tpot < 0.5; tpot *= 1.3) {
    const ReplicaRun run = size_replica(llama7b(), traffic(), {Seconds(10), Seconds(tpot)}, efficiency(), r);
    CHECK(run.batch >= last_batch);
    last_batch = run.batch;
  }
  // More bandwidth: never a slower step.
  Gpu fast = card();
  fast.memory_bandwidth = BytesPerSecond(4000e9);
  CHECK(decode_step_time(llama7b(), efficiency(), ReplicaShape{&fast, 1}, 8, 1150) <
        decode_step_time(llama7b(), efficiency(), r, 8, 1150));
}

TEST_CASE("serve: cost per million output tokens at capacity is the hourly price over tokens an hour") {
  const Context ctx = fixture_context();
  const ServeOutcome out = serve_report(ctx, {"", {"serve.gpus=RTX4090"}});
  const Table& offers = out.report.tables.at(1);
  REQUIRE(offers.name == "offers");
  const auto col = [&](std::string_view key) {
    for (std::size_t i = 0; i < offers.columns.size(); ++i)
      if (offers.columns[i].key == key) return i;
    FAIL("no column " << key);
    return std::size_t{0};
  };
  const ServedModel m = load_serving("", {"serve.gpus=RTX4090"}, ctx).serving.model;
  REQUIRE_FALSE(offers.rows.empty());
  int checked = 0;
  for (const auto& row : offers.rows) {
    if (std::get<std::string>(row[col("mode")]) != "hourly" ||
        std::get<std::int64_t>(row[col("gpus_per_instance")]) != 1)
      continue;
    // One RTX 4090 an instance, TP1: price an hour / (output tokens/s × 3,600) × 10⁶.
    const double price = std::get<Money>(row[col("price")]).units();
    const Gpu& g = *ctx.catalog().find_gpu("RTX4090");
    const ReplicaRun run = replica_at(
        m, {.requests_per_second = 0.1, .prompt_tokens = 1000, .output_tokens = 300, .peak_to_average = 3},
        {0.5, 0.68, 0.9, 0.8}, ReplicaShape{&g, 1}, static_cast<int>(std::get<std::int64_t>(row[col("batch")])));
    const double expected = price / (run.output_tokens_per_second * 3600) * 1e6;
    CHECK(std::get<Money>(row[col("per_million_output_tokens_at_capacity")]).units() == Approx(expected).epsilon(1e-5));
    // Always on a month: hourly × 730 per instance; per million tokens of the month's load.
    const double monthly = std::get<Money>(row[col("monthly")]).units();
    CHECK(monthly ==
          Approx(price * 730 * static_cast<double>(std::get<std::int64_t>(row[col("instances")]))).epsilon(1e-6));
    CHECK(std::get<Money>(row[col("per_million_tokens")]).units() ==
          Approx(monthly / (0.1 * 1300 * 730 * 3600) * 1e6).epsilon(1e-5));
    ++checked;
  }
  CHECK(checked > 0);
}

TEST_CASE("serve: a price up never lowers a row's monthly cost — more traffic never lowers it") {
  const Context ctx = fixture_context();
  const auto monthly_of = [](const Context& c, const std::vector<std::string>& sets) {
    std::map<std::string, double> out;
    const ServeOutcome o = serve_report(c, {"", sets});
    const Table& t = o.report.tables.at(1);
    const auto col = [&](std::string_view key) {
      for (std::size_t i = 0; i < t.columns.size(); ++i)
        if (t.columns[i].key == key) return i;
      throw std::logic_error("no column");
    };
    for (const auto& row : t.rows)
      if (const auto* m = std::get_if<Money>(&row[col("monthly")]))
        out[std::get<std::string>(row[col("offer")]) + " " + std::get<std::string>(row[col("mode")])] = m->units();
    return out;
  };
  const auto base = monthly_of(ctx, {});
  REQUIRE(base.size() > 5);
  const auto compare_rows = [&](const std::map<std::string, double>& higher) {
    int compared = 0;
    for (const auto& [k, v] : base)
      if (higher.contains(k)) {
        INFO(k);
        CHECK(higher.at(k) >= v - 1e-6);
        ++compared;
      }
    CHECK(compared > 5);
  };
  compare_rows(monthly_of(ctx, {"traffic.requests_per_second=3"}));
  // Every rental price 10% up (owned rows pay the cheapest rental while their cards are on the way).
  Context dearer = ctx;
  auto catalog = std::make_shared<Catalog>(ctx.catalog());
  for (Offer& o : catalog->offers)
    for (auto* p : {&o.hourly, &o.monthly})
      if (*p) (*p)->amount = (*p)->amount.scaled(1.1);
  dearer.catalog_ptr = catalog;
  compare_rows(monthly_of(dearer, {}));
}

TEST_CASE("serve file: a shape given in part is an error naming the field, never the built-in model's rest") {
  const Context ctx = fixture_context();
  try {
    load_serving("", {"model.parameters=70B", "model.layers=80", "model.hidden=8192", "model.heads=64"}, ctx);
    FAIL("no error");
  } catch (const InputErrors& e) {
    REQUIRE(e.problems().size() == 1);
    CHECK(e.problems()[0].field() == "model.kv_heads");
    CHECK_THAT(std::string(e.problems()[0].message()), Catch::Matchers::Contains("num_key_value_heads"));
  }
  // Only the storage given: the built-in model stays, stored in int4.
  const ResolvedServing rs = load_serving("", {"model.weights=int4"}, ctx);
  CHECK(rs.serving.model.parameters == Approx(6.74e9));
  CHECK(rs.serving.efficiency.decode_bandwidth == Approx(0.40));
}

TEST_CASE("serve file: shapes a transformer cannot have are refused") {
  const Context ctx = fixture_context();
  const std::vector<std::string> shape = {"model.parameters=7B", "model.layers=32", "model.hidden=4096"};
  const auto problem = [&](std::vector<std::string> more) {
    std::vector<std::string> sets = shape;
    sets.insert(sets.end(), more.begin(), more.end());
    try {
      load_serving("", sets, ctx);
    } catch (const InputErrors& e) {
      return e.problems().at(0).field() + ": " + e.problems().at(0).message();
    }
    return std::string("accepted");
  };
  CHECK_THAT(problem({"model.heads=30", "model.kv_heads=30"}),
             Catch::Matchers::StartsWith("model.hidden: 4096 is not a multiple of the 30 heads"));
  CHECK(problem({"model.heads=30", "model.kv_heads=30", "model.head_size=128"}) == "accepted");
  CHECK_THAT(problem({"model.heads=32", "model.kv_heads=5"}),
             Catch::Matchers::StartsWith("model.kv_heads: 5 must divide"));
  CHECK_THAT(problem({"model.heads=32", "model.kv_heads=8", "model.active_parameters=9B"}),
             Catch::Matchers::StartsWith("model.active_parameters"));
  CHECK(problem({"model.heads=32", "model.kv_heads=8"}) == "accepted");
  CHECK_THAT(problem({"model.heads=32", "model.kv_heads=8", "targets.time_per_output_token=50"}),
             Catch::Matchers::Contains("needs a unit"));
}

// One key, one meaning: every echoed number given back under its key (with the
// unit its suffix names) changes nothing.
TEST_CASE("serve echo: --set KEY=<echoed value> changes nothing") {
  const Context ctx = fixture_context();
  // With the built-in day, and with a profile of its own (the peak then follows from it: 2.2018…).
  const std::vector<std::string> given =
      GENERATE(std::vector<std::string>{},
               std::vector<std::string>{"traffic.daily_profile=1,1,1,1,1,1,2,4,8,10,10,8,6,8,10,10,8,6,4,3,2,2,1,1",
                                        "traffic.requests_per_second=3", "serve.min_replicas=0"},
               std::vector<std::string>{"api.offer=fixture-8b-usd"});
  const ResolvedServing base = load_serving("", given, ctx);
  std::vector<std::string> sets;
  for (const Section<ResolvedServing>& s : serving_sections()) {
    if (s.name.empty()) continue;
    const Json* sec = base.inputs.find(std::string(s.name));
    REQUIRE(sec);
    for (const auto& [key, value] : *sec->as_object()) {
      std::string text = value.dump_compact();
      if (value.is_null() || text == "[]") continue;
      if (text.starts_with("[")) text = "\"" + text.substr(1, text.size() - 2) + "\"";  // a list: comma-separated
      std::string k = key, unit;
      if (k.ends_with("_s")) {
        k.resize(k.size() - 2);
        unit = "s";
      }
      std::string v = text.starts_with("\"") ? text.substr(1, text.size() - 2) : text;
      sets.push_back(fmt::format("{}.{}={}{}", s.name, k, v, unit));
    }
  }
  CHECK(sets.size() >= 15);
  const ServeOutcome a = serve_report(ctx, {"", given});
  std::vector<std::string> all = given;
  all.insert(all.end(), sets.begin(), sets.end());
  const ServeOutcome b = serve_report(ctx, {"", all});
  CHECK(render(a.report, Format::kCsv) == render(b.report, Format::kCsv));
  const Json ea = a.report.inputs, eb = b.report.inputs;
  for (const char* sec : {"model", "traffic", "targets", "serve"})
    CHECK(ea.find(sec)->dump_compact() == eb.find(sec)->dump_compact());
}

namespace {

// A column of serve's offers table by key.
std::size_t column(const Table& t, std::string_view key) {
  for (std::size_t i = 0; i < t.columns.size(); ++i)
    if (t.columns[i].key == key) return i;
  throw std::logic_error("no column");
}

}  // namespace

TEST_CASE("serve: the API break-even by hand — one instance all day, a second in the busy hours") {
  const Context ctx = fixture_context();
  // tests/data/serve-7b.yaml: 0.05 requests/s, 4 × that in the 6 busy hours from 9:00; the fixture API at
  // 0.5 CNY a million prompt tokens, 1 CNY a million output tokens.
  const std::vector<std::string> sets = {"serve.gpus=RTX4090", "serve.providers=suanjiayun"};
  const ResolvedServing rs = load_serving(GPUPLAN_TEST_DATA "/serve-7b.yaml", sets, ctx);
  const CurrencyConverter fx(ctx.catalog(), ctx.currency);
  const auto quotes = rental_quotes(ctx.catalog(), fx, rs.serving);
  REQUIRE(quotes.size() == 1);
  const RentalQuote& q = quotes[0];
  // The API for 1 request/s a month: (2,000 × 0.5 + 600 × 1) ÷ 10⁶ × 730 × 3,600 = 4,204.8 CNY.
  const double per_rps = (2000 * 0.5 + 600 * 1.0) / 1e6 * 730 * 3600;
  CHECK(per_rps == Approx(4204.8));
  // One RTX 4090 at 1.24 CNY an hour all day: 905.20 a month, against the API from 905.2 ÷ 4,204.8 = 0.215 …
  CHECK(q.price.units() == Approx(1.24));
  const double one = 1.24 * 730, second = 1.24 * 6 * 730 / 24;      // … but an instance carries the busy hours' rate
  const double carries = q.plan.run.requests_per_second * 0.8 / 4;  // on average, busiest hour at 80%
  REQUIRE(one / per_rps < carries);                                 // the first crossing: 0.215
  REQUIRE((one + second) / per_rps > carries);                      // past it a second instance runs 6 h a day
  // … so the API is cheaper again just above what one carries, and the rental cheaper for good from
  // (905.2 + 226.3) ÷ 4,204.8 = 0.2691: each further instance adds 226.3 for another `carries` of load,
  // which the API charges 4,204.8 × carries for.
  CHECK(*api_break_even(rs.serving, q, per_rps) == Approx((one + second) / per_rps));
  CHECK((one + second) / per_rps == Approx(0.2691).epsilon(1e-3));
  CHECK(second < per_rps * carries);
  // The report says the same to 3 significant figures, rounded up (0.2691 → 0.270): at the load printed the
  // rental already costs less.
  const ServeOutcome out = serve_report(ctx, {GPUPLAN_TEST_DATA "/serve-7b.yaml", sets});
  const Table& t = out.report.tables.at(1);
  CHECK(std::get<double>(t.rows.at(0)[column(t, "api_break_even_rps")]) == Approx(0.27));
  // Without an API price: no break-even anywhere.
  const ServeOutcome none = serve_report(ctx, {"", {"serve.gpus=RTX4090"}});
  for (const auto& row : none.report.tables.at(1).rows)
    CHECK(std::holds_alternative<std::monostate>(row[column(t, "api_break_even_rps")]));
}

TEST_CASE("serve: an API price needs both halves") {
  const Context ctx = fixture_context();
  try {
    load_serving("", {"api.input_price_per_million=1"}, ctx);
    FAIL("accepted");
  } catch (const InputErrors& e) {
    CHECK(e.problems().at(0).field() == "api.output_price_per_million");
  }
}

// Owning is compare's buy option for the same cards and busy share: the row
// and `compare --set buy.gpu=… --set buy.cards=…` agree to the cent.
TEST_CASE("serve: owning costs what compare's buy option costs, per month of its horizon") {
  const Context ctx = fixture_context();
  const ServeOutcome out = serve_report(ctx, {"", {"serve.gpus=A800"}});
  const Table& t = out.report.tables.at(1);
  const Table& replicas = out.report.tables.at(0);
  // The lead time is served by the cheapest rental row: compare's delay cost.
  std::optional<double> cheapest;
  for (const auto& row : t.rows)
    if (std::get<std::string>(row[column(t, "mode")]) != "own" &&
        std::holds_alternative<Money>(row[column(t, "monthly")]))
      cheapest = std::min(cheapest.value_or(1e18), std::get<Money>(row[column(t, "monthly")]).units());
  REQUIRE(cheapest);
  bool found = false;
  for (const auto& row : t.rows) {
    if (std::get<std::string>(row[column(t, "mode")]) != "own") continue;
    found = true;
    const auto cards = std::get<std::int64_t>(row[column(t, "gpus_per_instance")]);
    const double busy = std::get<double>(replicas.rows.at(0)[column(replicas, "busy_share")]);
    const ResolvedScenario rs =
        load_scenario("",
                      {"buy.gpu=A800-80G", fmt::format("buy.cards={}", cards), fmt::format("workload.gpus={}", cards),
                       fmt::format("workload.utilisation={:.6f}", busy), "buy.lead_time_cover=delay_cost",
                       fmt::format("buy.delay_cost_per_month={:.2f}", *cheapest)},
                      ctx);
    const Comparison c = compare(rs.scenario);
    CHECK(c.options.at(0).key == "buy");
    CHECK(std::get<Money>(row[column(t, "monthly")]).units() ==
          Approx(c.options.at(0).total.units() / rs.scenario.horizon_months).epsilon(1e-3));
  }
  CHECK(found);
}

// ---- compare with a served model (workload.serving) ----

namespace {

const std::string kServingFile = GPUPLAN_TEST_DATA "/serve-7b.yaml";

Comparison compare_with(const Context& ctx, std::vector<std::string> sets) {
  return compare(load_scenario("", sets, ctx).scenario);
}

const OptionResult& option(const Comparison& c, std::string_view key) {
  for (const OptionResult& o : c.options)
    if (o.key == key) return o;
  throw std::logic_error("no option");
}

}  // namespace

TEST_CASE("compare with a serving load gives the busy share serve reports") {
  const Context ctx = fixture_context();
  // serve on one RTX 4090: its replicas, tensor parallel and busy share.
  const ServeOutcome served = serve_report(ctx, {kServingFile, {"serve.gpus=RTX4090"}});
  const Table& t = served.report.tables.at(0);
  REQUIRE(t.rows.size() == 1);
  const auto cards = std::get<std::int64_t>(t.rows[0][column(t, "gpus")]);
  const double busy = std::get<double>(t.rows[0][column(t, "busy_share")]);
  // compare owning exactly those cards, the same file as its serving load.
  const ResolvedScenario rs =
      load_scenario("",
                    {"buy.gpu=RTX4090", fmt::format("buy.cards={}", cards), fmt::format("workload.gpus={}", cards),
                     "workload.serving=" + kServingFile},
                    ctx);
  CHECK(rs.scenario.workload.serving_share == Approx(busy));
  CHECK(busy > 0);
}

TEST_CASE("compare with a serving load: every rental pays the rented serving, owning its power and the wait") {
  const Context ctx = fixture_context();
  const std::vector<std::string> base = {"buy.gpu=A800-80G", "buy.cards=8", "workload.gpus=8", "rent.price_trend=0"};
  std::vector<std::string> with = base;
  with.push_back("workload.serving=" + kServingFile);
  const ResolvedScenario rs = load_scenario("", with, ctx);
  const Money rented = rs.scenario.workload.serving_rented.value();
  const Comparison a = compare_with(ctx, base), b = compare(rs.scenario);
  const int months = rs.scenario.horizon_months;
  int rentals = 0;
  for (const OptionResult& o : b.options) {
    if (o.key == "buy" || o.key == "hybrid") continue;
    CHECK(o.total.units() == Approx(option(a, o.key).total.units() + rented.units() * months));
    ++rentals;
  }
  CHECK(rentals > 0);
  // Buying pays the rented serving only until its cards arrive, and more power for the serving share.
  const double lead = rs.scenario.own.lead_time / Months(1);
  const double extra = option(b, "buy").total.units() - option(a, "buy").total.units();
  CHECK(extra >= rented.units() * std::min(lead, static_cast<double>(months)) - 0.05);
  CHECK(extra < rented.units() * months);
}

TEST_CASE("compare with a serving load: a file relative to the scenario, and its problems at its own place") {
  const Context ctx = fixture_context();
  const ResolvedScenario rs = load_scenario(GPUPLAN_SOURCE_DIR "/examples/qingdao-8xa100.yaml",
                                            {"workload.serving=../tests/data/serve-7b.yaml"}, ctx);
  CHECK(rs.scenario.workload.serving_share > 0);
  CHECK_THROWS_WITH(load_scenario("", {"workload.serving=no-such-serving.yaml"}, ctx),
                    Catch::Matchers::Contains("no-such-serving.yaml: no such file"));
  // Cards that cannot hold the model within the targets: said at workload.serving.
  try {
    load_scenario("",
                  {"buy.gpu=RTX4090", "buy.cards=1", "workload.gpus=1",
                   "workload.serving=" GPUPLAN_SOURCE_DIR "/tests/data/serve-70b.yaml"},
                  ctx);
    FAIL("accepted");
  } catch (const InputErrors& e) {
    CHECK(e.problems().at(0).field() == "workload.serving");
    CHECK_THAT(std::string(e.problems().at(0).message()), Catch::Matchers::Contains("cannot serve it"));
  }
}

TEST_CASE("A one-token reply has no time between tokens: only its first token counts") {
  const Gpu g = card();
  Traffic t = traffic();
  t.output_tokens = 1;
  // Batch 1: no other request's prompt between its tokens; the step alone.
  const ReplicaRun one = replica_at(llama7b(), t, efficiency(), ReplicaShape{&g, 1}, 1);
  CHECK(one.time_per_output_token == one.decode_step);
  // A tight time per token does not bind a one-token reply; the first token does.
  const ReplicaRun best = size_replica(llama7b(), t, {Seconds(2), Seconds(0.001)}, efficiency(), ReplicaShape{&g, 1});
  CHECK(best.meets_targets);
  CHECK(best.limit != BatchLimit::kTimePerToken);
}

TEST_CASE("A mixture of experts reads the experts a step's tokens reach, not all of them") {
  ServedModel m = llama7b();
  m.parameters = 46.7e9;  // Mixtral 8x7B: 8 experts, top-2, 12.9B active
  m.active_parameters = 12.9e9;
  m.experts = 8;
  m.experts_per_token = 2;
  // One expert: (46.7 − 12.9) / 6 = 5.633B; shared: 12.9 − 2 × 5.633 = 1.633B.
  // Batch 1 reaches 2 experts: 1.633 + 2 × 5.633 = 12.9B, the active parameters, × 2 bytes.
  CHECK(weights_read(m, 1).value() == Approx(12.9e9 * 2));
  // Batch 4 reaches 8 × (1 − (6/8)^4) = 5.469 experts on average.
  CHECK(weights_read(m, 4).value() == Approx((1.6333e9 + 8 * (1 - std::pow(0.75, 4)) * 5.6333e9) * 2).epsilon(1e-4));
  // A large batch reaches them all.
  CHECK(weights_read(m, 1000).value() == Approx(46.7e9 * 2).epsilon(1e-6));
  // Experts not stated: every expert, as for a dense model.
  m.experts = 0;
  m.experts_per_token = 0;
  CHECK(weights_read(m, 1).value() == Approx(46.7e9 * 2));
}

TEST_CASE("A head size of its own sets the cache and the attention width") {
  ServedModel m;
  m.layers = 48;
  m.hidden = 2048;
  m.heads = 32;
  m.kv_heads = 4;
  m.head_size = 128;  // Qwen3-30B-A3B: 32 × 128 = 4,096, wider than its 2,048 residual stream
  // 2 × 48 × 4 × 128 × 2 bytes = 98,304 (hidden ÷ heads would give 64 and half of it).
  CHECK(kv_bytes_per_token(m).value() == Approx(98304));
  CHECK(m.attention_width() == Approx(4096));
}

TEST_CASE("compare leaves buying out when the cards cannot carry training and serving") {
  const Context ctx = fixture_context();
  const ResolvedScenario rs = load_scenario("",
                                            {"buy.gpu=A800-80G", "buy.cards=8", "workload.gpus=8",
                                             "workload.utilisation=100%", "workload.serving=" + kServingFile},
                                            ctx);
  CHECK_THAT(rs.scenario.workload.serving_overload, Catch::Matchers::Contains("more than a month holds"));
  const Comparison c = compare(rs.scenario);
  CHECK_FALSE(option(c, "buy").available);
  CHECK(c.cheapest != "buy");
  CHECK_THAT(c.recommendation, Catch::Matchers::Contains("buying is left out: training (100% of the month)"));
}

// A light load keeps a replica busy far more than load ÷ capacity: each
// request holds it for its whole reply. Against a Monte Carlo of Poisson
// arrivals, each holding the replica for W: the share of time it holds one.
TEST_CASE("Busy share: the chance a replica holds a request, hour by hour, against a Monte Carlo") {
  const Context ctx = fixture_context();
  const Gpu& g = *ctx.catalog().find_gpu("A800-80G");
  const ReplicaShape shape{&g, 1};
  // A day of Poisson arrivals at each hour's rate (none in a quiet hour), each request holding the replica W.
  const auto simulate = [](const std::array<double, 24>& rates, double w) {
    std::mt19937_64 rng(7);
    double busy_until = 0, busy = 0;
    const int days = 400;
    for (int d = 0; d < days; ++d)
      for (int h = 0; h < 24; ++h) {
        if (!(rates[static_cast<std::size_t>(h)] > 0)) continue;
        std::exponential_distribution<double> gap(rates[static_cast<std::size_t>(h)]);
        const double start = (d * 24.0 + h) * 3600, end = start + 3600;
        for (double t = start + gap(rng); t < end; t += gap(rng)) {
          const double from = std::max(t, busy_until);
          if (t + w > busy_until) {
            busy += t + w - from;
            busy_until = t + w;
          }
        }
      }
    return busy / (days * 24.0 * 3600);
  };
  // 0.05 requests/s; W: a request alone on the replica (first token + output × a batch-1 step).
  const auto serving = [&](const char* peak) {
    return load_serving("", {"traffic.requests_per_second=0.05", peak}, ctx).serving;
  };
  const Serving flat = serving("traffic.peak_to_average=1"), day = serving("traffic.peak_to_average=3");
  const ReplicaRun run = size_replica(flat.model, flat.traffic, flat.targets, flat.efficiency, shape);
  const ReplicaRun alone = replica_at(flat.model, flat.traffic, flat.efficiency, shape, 1);
  const double w = (alone.time_to_first_token + alone.decode_step * flat.traffic.output_tokens).count();
  for (const Serving* s : {&flat, &day}) {
    INFO(s->traffic.peak_to_average);
    CHECK(busy_share(*s, shape, run, 1) == Approx(simulate(hourly_rates(s->traffic), w)).epsilon(0.02));
    CHECK(busy_share(*s, shape, run, 1) > 0.05 / run.requests_per_second);  // far above load ÷ capacity
  }
  // A flat day: 1 − e^(−λW); the two-level day of peak 3: a third of the day at 3λ, the rest idle.
  CHECK(busy_share(flat, shape, run, 1) == Approx(1 - std::exp(-0.05 * w)));
  CHECK(busy_share(day, shape, run, 1) == Approx((1 - std::exp(-0.15 * w)) / 3));
}

TEST_CASE("Latent attention caches one latent a layer: DeepSeek-V3") {
  ServedModel m;
  m.layers = 61;
  m.hidden = 7168;
  m.heads = 128;
  m.kv_heads = 128;
  m.latent_cache = 576;  // kv_lora_rank 512 + qk_rope_head_dim 64 (its config.json)
  // 61 × 576 × 2 bytes = 70,272 bytes a token; keys and values per head would be
  // 2 × 61 × 128 × 56 × 2 = 1,748,992, about 25× more.
  CHECK(kv_bytes_per_token(m).value() == Approx(70272));
  m.kv_cache = Storage::kFp8;
  CHECK(kv_bytes_per_token(m).value() == Approx(35136));
}

TEST_CASE("serve file: a request longer than the model's context is refused at its place") {
  const Context ctx = fixture_context();
  try {
    load_serving("", {"model.context_length=4096", "traffic.prompt_tokens=4000"}, ctx);
    FAIL("accepted");
  } catch (const InputErrors& e) {
    CHECK(e.problems().at(0).field() == "traffic.prompt_tokens");
    CHECK_THAT(std::string(e.problems().at(0).message()), Catch::Matchers::Contains("4000 prompt + 300 output"));
  }
  CHECK_NOTHROW(load_serving("", {"model.context_length=4096", "traffic.prompt_tokens=3796"}, ctx));
}

TEST_CASE("The day hour by hour: 24 ÷ p busy hours from 9:00 at p × the average, or the profile scaled to it") {
  Traffic t = traffic();  // 1 request/s on average, peak 3
  auto r = hourly_rates(t);
  // 24 ÷ 3 = 8 busy hours, 9:00 to 16:00, at 3 requests/s; no requests the other 16.
  for (int h = 0; h < 24; ++h) CHECK(r[static_cast<std::size_t>(h)] == Approx(h >= 9 && h < 17 ? 3.0 : 0.0));
  // 24 ÷ 2.5 = 9.6: nine full hours at 2.5, the tenth (18:00) at 0.6 × 2.5 = 1.5.
  t.peak_to_average = 2.5;
  r = hourly_rates(t);
  CHECK(r[17] == Approx(2.5));
  CHECK(r[18] == Approx(1.5));
  CHECK(r[19] == 0);
  // 24: the whole day in the hour from 9:00.
  t.peak_to_average = 24;
  r = hourly_rates(t);
  CHECK(r[9] == Approx(24));
  CHECK(r[10] == 0);
  // Any peak: the day's mean is the average, its busiest hour p × the average.
  for (double p = 1; p <= 24; p += 0.37) {
    t.peak_to_average = p;
    r = hourly_rates(t);
    double sum = 0, most = 0;
    for (double x : r) {
      sum += x;
      most = std::max(most, x);
    }
    INFO(p);
    CHECK(sum / 24 == Approx(t.requests_per_second));
    CHECK(most == Approx(p * t.requests_per_second));
  }
  // A profile: 2 at midnight, 1 elsewhere (sum 25): 24 × 2 ÷ 25 = 1.92 at 0:00, 0.96 at the other hours.
  t.daily_profile.assign(24, 1.0);
  t.daily_profile[0] = 2;
  r = hourly_rates(t);
  CHECK(r[0] == Approx(1.92));
  CHECK(r[5] == Approx(0.96));
  // …and read from a file, the peak follows from it.
  const ResolvedServing rs =
      load_serving("", {"traffic.daily_profile=2,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1"}, fixture_context());
  CHECK(rs.serving.traffic.peak_to_average == Approx(1.92));
}

TEST_CASE("serve: hourly rentals follow the day — each hour's replicas counted by hand, at least min_replicas") {
  const Context ctx = fixture_context();
  const auto check = [&](int min_replicas) {
    const ResolvedServing rs = load_serving(
        "", {"serve.gpus=RTX4090", "traffic.requests_per_second=3", fmt::format("serve.min_replicas={}", min_replicas)},
        ctx);
    const Serving& s = rs.serving;
    const CurrencyConverter fx(ctx.catalog(), ctx.currency);
    int checked = 0;
    for (const RentalQuote& q : rental_quotes(ctx.catalog(), fx, s)) {
      // A monthly base with the rise by the hour (mixed) is counted in its own test.
      if (!q.monthly || q.offer->gpus != 1 || q.plan.shape.tp != 1 || q.mixed()) continue;
      // Replicas an hour: the fewest n ≥ min_replicas with n × a replica's rate × 80% ≥ the hour's rate,
      // counted up one by one (the model divides and rounds up). The default day: 8 hours at 9 requests/s.
      const double cap = q.plan.run.requests_per_second * 0.8;
      int busy = min_replicas;
      while (busy * cap < 9 * (1 - 1e-12)) ++busy;
      const int quiet = min_replicas;
      INFO(q.offer->id << " " << to_string(q.mode));
      CHECK(q.plan.replicas == std::max(1, busy));
      const int expected_hours = q.mode == BillingMode::kHourly ? 8 * busy + 16 * quiet : 24 * q.plan.replicas;
      CHECK(q.instance_hours() == expected_hours);
      // Hourly: the price × instance-hours a day × 730 ÷ 24; monthly: the month's price × the busiest hour's.
      const double month = q.mode == BillingMode::kHourly ? q.price.units() * expected_hours * 730.0 / 24
                                                          : q.price.units() * q.plan.instances;
      CHECK(q.monthly->units() == Approx(month).epsilon(1e-9));
      // Following the day never costs more than running the busiest hour's instances all month.
      if (q.mode == BillingMode::kHourly) CHECK(q.monthly->units() <= q.price.units() * 730 * q.plan.instances + 1e-6);
      ++checked;
    }
    CHECK(checked >= 4);
  };
  check(1);
  check(0);
  check(3);
}

TEST_CASE("serve: more replicas kept up at quiet hours, or a busier day, never lowers an hourly row") {
  const Context ctx = fixture_context();
  const auto months = [&](const std::vector<std::string>& sets) {
    std::map<std::string, double> out;
    const ResolvedServing rs = load_serving("", sets, ctx);
    const CurrencyConverter fx(ctx.catalog(), ctx.currency);
    for (const RentalQuote& q : rental_quotes(ctx.catalog(), fx, rs.serving))
      if (q.monthly && q.mode == BillingMode::kHourly) out[q.offer->id] = q.monthly->units();
    return out;
  };
  const std::string profile = "traffic.daily_profile=1,1,1,1,1,1,2,4,8,10,10,8,6,8,10,10,8,6,4,3,2,2,1,1";
  std::map<std::string, double> last;
  for (int n : {0, 1, 2, 5}) {
    const auto now = months({profile, "traffic.requests_per_second=4", fmt::format("serve.min_replicas={}", n)});
    REQUIRE(now.size() > 3);
    for (const auto& [id, v] : last) CHECK(now.at(id) >= v - 1e-6);
    last = now;
  }
  last.clear();
  for (double rps : {0.5, 1.0, 2.0, 4.0, 8.0}) {
    const auto now = months({profile, fmt::format("traffic.requests_per_second={}", rps)});
    for (const auto& [id, v] : last)
      if (now.contains(id)) CHECK(now.at(id) >= v - 1e-6);
    last = now;
  }
}

TEST_CASE("serve: monthly for the base, hourly for the rise — the cheapest base, by brute force") {
  const Context ctx = fixture_context();
  for (const std::vector<std::string>& sets :
       {std::vector<std::string>{"serve.gpus=RTX4090", "traffic.requests_per_second=3"},
        std::vector<std::string>{"serve.gpus=RTX4090", "traffic.requests_per_second=5", "serve.min_replicas=0",
                                 "traffic.daily_profile=1,1,1,1,1,1,2,4,8,10,10,8,6,8,10,10,8,6,4,3,2,2,1,1"}}) {
    const ResolvedServing rs = load_serving("", sets, ctx);
    const CurrencyConverter fx(ctx.catalog(), ctx.currency);
    const std::vector<RentalQuote> quotes = rental_quotes(ctx.catalog(), fx, rs.serving);
    int mixed = 0;
    for (const RentalQuote& q : quotes) {
      if (!q.mixed()) continue;
      INFO(q.offer->id);
      const RentalQuote* hourly = nullptr;
      const RentalQuote* monthly = nullptr;
      for (const RentalQuote& o : quotes)
        if (o.offer == q.offer && !o.mixed()) (o.mode == BillingMode::kHourly ? hourly : monthly) = &o;
      REQUIRE(hourly);
      REQUIRE(monthly);
      // Every base from none to the busiest hour's: b × the month's price + Σ max(0, n_h − b) × the hour's × 730 ÷ 24.
      const auto month = [&](int b) {
        double rise = 0;
        for (int n : hourly->by_hour) rise += n > b ? n - b : 0;
        return b * monthly->price.units() + rise * hourly->price.units() * 730 / 24;
      };
      const int most = *std::max_element(hourly->by_hour.begin(), hourly->by_hour.end());
      int best = 0;
      for (int b = 1; b <= most; ++b)
        if (month(b) < month(best)) best = b;
      CHECK(q.base == best);
      CHECK(q.monthly->units() == Approx(month(best)).epsilon(1e-9));
      // Cheaper than either mode alone, or it would not be offered.
      CHECK(*q.monthly < *hourly->monthly);
      CHECK(*q.monthly < *monthly->monthly);
      ++mixed;
    }
    CHECK(mixed > 0);
  }
}

TEST_CASE("serve: spot only when asked, following the day at the spot price") {
  const Context ctx = fixture_context();
  const CurrencyConverter fx(ctx.catalog(), ctx.currency);
  const auto quotes = [&](const std::vector<std::string>& sets) {
    return rental_quotes(ctx.catalog(), fx, load_serving("", sets, ctx).serving);
  };
  const std::vector<std::string> load = {"traffic.requests_per_second=3"};
  for (const RentalQuote& q : quotes(load)) CHECK(q.mode != BillingMode::kSpot);
  std::vector<std::string> asked = load;
  asked.push_back("serve.spot=true");
  int spot = 0;
  for (const RentalQuote& q : quotes(asked)) {
    if (q.mode != BillingMode::kSpot || !q.monthly) continue;
    INFO(q.offer->id);
    // The spot price an instance-hour × instance-hours a day × 730 ÷ 24, the same hours as the hourly row.
    CHECK(q.monthly->units() == Approx(q.price.units() * q.instance_hours() * 730.0 / 24).epsilon(1e-9));
    CHECK(q.by_hour == instances_by_hour(load_serving("", asked, ctx).serving, q.plan, q.offer->gpus));
    ++spot;
  }
  CHECK(spot > 0);
}

TEST_CASE("serve: api.offer takes the catalog's dated prices, converted and cited, and says when they are stale") {
  const Context ctx = fixture_context();  // today 2026-12-02, stale after 180 days
  const ResolvedServing usd = load_serving("", {"api.offer=fixture-8b-usd"}, ctx);
  // 0.1 and 0.2 USD at 7.1 CNY a dollar: 0.71 and 1.42 CNY a million tokens.
  CHECK(usd.serving.api.name == "fixture-8b-instant");
  CHECK(usd.serving.api.input_per_million->units() == Approx(0.71));
  CHECK(usd.serving.api.output_per_million->units() == Approx(1.42));
  const auto line = [](const ResolvedServing& r, std::string_view key) {
    for (const std::string& l : r.defaults_used)
      if (l.starts_with(key)) return l;
    return std::string();
  };
  // Each price cites its own record: the output price has a source and date of its own.
  CHECK_THAT(line(usd, "api.input_price_per_million"),
             Catch::Contains("catalog api fixture-8b-usd: test fixture, as_of 2026-11-01"));
  CHECK_THAT(line(usd, "api.output_price_per_million"), Catch::Contains("output price page, as_of 2026-11-15"));
  CHECK_THAT(line(usd, "api.output_price_per_million"), !Catch::Contains("stale"));
  // 2025-01-01 is 700 days before 2026-12-02: stale, and said so beside the price.
  const ResolvedServing old = load_serving("", {"api.offer=fixture-moe-old"}, ctx);
  CHECK_THAT(line(old, "api.input_price_per_million"), Catch::Contains("stale: 700 days old"));
  // A price given beside the offer is the user's: it wins, and is not a default.
  const ResolvedServing mine = load_serving("", {"api.offer=fixture-7b-cny", "api.input_price_per_million=0.3"}, ctx);
  CHECK(mine.serving.api.input_per_million->units() == Approx(0.3));
  CHECK(mine.serving.api.output_per_million->units() == Approx(1.0));
  CHECK(line(mine, "api.input_price_per_million").empty());
  // The report weighs it as if the prices were typed in.
  const ServeOutcome a = serve_report(ctx, {"", {"api.offer=fixture-7b-cny"}});
  const ServeOutcome b = serve_report(
      ctx, {"", {"api.name=fixture-7b-chat", "api.input_price_per_million=0.5", "api.output_price_per_million=1"}});
  CHECK(render(a.report, Format::kCsv) == render(b.report, Format::kCsv));
}

TEST_CASE("serve: an API the catalog does not price is refused, with the nearest id") {
  const Context ctx = fixture_context();
  try {
    load_serving("", {"api.offer=fixture-7b"}, ctx);
    FAIL("no error");
  } catch (const InputErrors& e) {
    REQUIRE(e.problems().size() == 1);
    CHECK_THAT(e.problems()[0].what(), Catch::Contains("did you mean 'fixture-7b-cny'?"));
  }
  try {
    load_serving("", {"api.offer=zzz"}, ctx);
    FAIL("no error");
  } catch (const InputErrors& e) {
    CHECK_THAT(e.problems()[0].what(), Catch::Contains("fixture-7b-cny, fixture-8b-usd, fixture-moe-old"));
  }
}

TEST_CASE("serve: without an API, the catalog's for a model of about the size are named") {
  const Context ctx = fixture_context();
  const ServeOutcome out = serve_report(ctx, {"", {}});  // the built-in Llama 2 7B: 3.4B to 13.5B
  std::string hint;
  for (const std::string& n : out.report.notes)
    if (n.starts_with("No API compared")) hint = n;
  CHECK_THAT(hint, Catch::Contains("fixture-7b-cny") && Catch::Contains("fixture-8b-usd"));
  CHECK_THAT(hint, !Catch::Contains("fixture-moe-old"));
}

TEST_CASE("serve: the API break-even, against the whole model re-run at loads around it") {
  const Context ctx = fixture_context();
  const CurrencyConverter fx(ctx.catalog(), ctx.currency);
  const std::vector<std::string> api = {"serve.gpus=RTX4090,A800", "api.input_price_per_million=0.5",
                                        "api.output_price_per_million=1"};
  // The API's month for 1 request/s: (1,000 × 0.5 + 300 × 1) ÷ 10⁶ × 730 × 3,600 = 2,102.4 CNY.
  const double per_rps = (1000 * 0.5 + 300 * 1.0) / 1e6 * 730 * 3600;
  // Each offer's month in a mode at the average load `rps`; a monthly+hourly row is the cheaper of all three.
  const auto month = [&](std::vector<std::string> sets, double rps, const Offer* o, std::string_view mode) {
    sets.push_back(fmt::format("traffic.requests_per_second={}", rps));
    double best = std::numeric_limits<double>::infinity();
    for (const RentalQuote& q : rental_quotes(ctx.catalog(), fx, load_serving("", sets, ctx).serving))
      if (q.offer == o && q.monthly && (q.mode_name() == mode || mode == "monthly+hourly"))
        best = std::min(best, q.monthly->units());
    return best;
  };
  for (const std::vector<std::string>& day :
       {std::vector<std::string>{}, std::vector<std::string>{"serve.min_replicas=0"},
        std::vector<std::string>{"traffic.daily_profile=5,4,3,3,3,3,4,6,8,10,10,10,9,10,10,10,10,9,9,10,10,9,8,6"}}) {
    std::vector<std::string> sets = api;
    sets.insert(sets.end(), day.begin(), day.end());
    const Serving s = load_serving("", sets, ctx).serving;
    int found = 0, never = 0;
    for (const RentalQuote& q : rental_quotes(ctx.catalog(), fx, s)) {
      if (!q.monthly) continue;
      INFO(q.offer->id << " " << q.mode_name() << " " << (day.empty() ? "" : day[0]));
      const std::optional<double> be = api_break_even(s, q, per_rps);
      if (!be) {
        // The API stays cheaper as the load grows: a request/s more costs at least as much rented.
        CHECK(month_per_rps(s, q) >= per_rps * (1 - 1e-9));
        ++never;
        continue;
      }
      // Above it, at every load tried (up to 8 times it), the rental costs less; just below, the API at some load.
      for (double x = 1.001; x < 8; x *= 1.037)
        CHECK(month(sets, *be * x, q.offer, q.mode_name()) <= *be * x * per_rps * (1 + 1e-9));
      bool api_cheaper = false;
      for (double x = 0.999; x > 0.5 && !api_cheaper; x *= 0.995)
        api_cheaper = month(sets, *be * x, q.offer, q.mode_name()) > *be * x * per_rps;
      CHECK(api_cheaper);
      ++found;
    }
    CHECK(found > 0);
  }
}

TEST_CASE("serve: a committed term is a monthly row at its price, alone and under an hourly rise") {
  const Context ctx = fixture_context();
  const CurrencyConverter fx(ctx.catalog(), ctx.currency);
  const ResolvedServing rs =
      load_serving("", {"serve.gpus=A100-80G", "serve.providers=aws", "traffic.requests_per_second=20"}, ctx);
  std::map<std::string, const RentalQuote*> by_mode;
  const auto quotes = rental_quotes(ctx.catalog(), fx, rs.serving);
  for (const RentalQuote& q : quotes)
    if (q.offer->id == "aws-us-east-1-p4de.24xlarge") by_mode[q.mode_name()] = &q;
  REQUIRE(by_mode.contains("hourly"));
  REQUIRE(by_mode.contains("monthly 1y"));
  const RentalQuote& hourly = *by_mode.at("hourly");
  const RentalQuote& term = *by_mode.at("monthly 1y");
  // 17.401365 USD an hour committed for a year, at 7.1 CNY a dollar, × 730 h: an instance-month.
  CHECK(term.price.units() == Approx(17.401365 * 7.1 * 730).epsilon(1e-9));
  CHECK(term.commitment_months == 12);
  // All month at the busiest hour's instances.
  CHECK(term.monthly->units() == Approx(term.price.units() * term.plan.instances).epsilon(1e-9));
  CHECK(*std::min_element(term.by_hour.begin(), term.by_hour.end()) == term.plan.instances);
  // Under an hourly rise (it pays here: 3 instances in the busy hours, 1 at night): the base committed, the rest
  // by the hour.
  REQUIRE(by_mode.contains("monthly 1y+hourly"));
  {
    const RentalQuote& mixed = *by_mode.at("monthly 1y+hourly");
    CHECK(mixed.monthly->units() == Approx(mixed.base * term.price.units() +
                                           rise_hours(hourly.by_hour, mixed.base) * hourly.price.units() * 730 / 24)
                                        .epsilon(1e-9));
    CHECK(*mixed.monthly < *term.monthly);
    CHECK(*mixed.monthly < *hourly.monthly);
  }
  // The report says the term in its note.
  const ServeOutcome out =
      serve_report(ctx, {"", {"serve.gpus=A100-80G", "serve.providers=aws", "traffic.requests_per_second=20"}});
  const Table& t = out.report.tables.at(1);
  bool said = false;
  for (const auto& row : t.rows)
    if (std::get<std::string>(row[column(t, "mode")]) == "monthly 1y")
      said = std::get<std::string>(row[column(t, "note")]).find("committed for 12 months") != std::string::npos;
  CHECK(said);
}

TEST_CASE("serve file: a load as tokens a day is that many requests of the mean lengths — two loads are refused") {
  const Context ctx = fixture_context();
  // 26M tokens a day of 1,000 + 300-token requests: 20,000 requests, ÷ 86,400 s = 0.2315 a second.
  const ResolvedServing rs = load_serving("", {"traffic.tokens_per_day=26M"}, ctx);
  CHECK(rs.serving.traffic.requests_per_second == Approx(20000.0 / 86400));
  const auto named = [&](std::string_view key) {
    return std::any_of(rs.defaults_used.begin(), rs.defaults_used.end(),
                       [&](const std::string& l) { return l.find(key) != std::string::npos; });
  };
  CHECK(named("traffic.requests_per_second = 0.231481 (from traffic.tokens_per_day"));
  // The echoed rate set back is the same load; another rate is a second load.
  CHECK_NOTHROW(load_serving(
      "", {"traffic.tokens_per_day=26M", fmt::format("traffic.requests_per_second={:.17g}", 20000.0 / 86400)}, ctx));
  try {
    load_serving("", {"traffic.tokens_per_day=26M", "traffic.requests_per_second=1"}, ctx);
    FAIL("accepted");
  } catch (const InputErrors& e) {
    CHECK(e.problems().at(0).field() == "traffic.requests_per_second");
    CHECK_THAT(std::string(e.problems().at(0).message()), Catch::Matchers::Contains("state two loads"));
  }
  // Without tokens a day, nothing changes: the echo has it as null.
  CHECK_FALSE(load_serving("", {}, ctx).serving.traffic.tokens_per_day.has_value());
}

TEST_CASE("Sizing remembers its last answers only for the same numbers: a card changed in place is sized anew") {
  Gpu g = card();
  const ReplicaShape r{&g, 1};
  const ServiceTargets s{Seconds(2), Seconds(0.03)};
  const ReplicaRun first = size_replica(llama7b(), traffic(), s, efficiency(), r);
  CHECK(size_replica(llama7b(), traffic(), s, efficiency(), r).batch == first.batch);
  g.memory_bandwidth = BytesPerSecond(4000e9);  // same address, twice the bandwidth: a faster step, a larger batch
  const ReplicaRun faster = size_replica(llama7b(), traffic(), s, efficiency(), r);
  CHECK(faster.decode_step < first.decode_step);
  CHECK(faster.batch > first.batch);
  Traffic longer = traffic();
  longer.output_tokens_p95 = 900;  // a tail: another answer
  CHECK(size_replica(llama7b(), longer, {Seconds(2), Seconds(0.03), 99}, efficiency(), r).batch < faster.batch);
}
