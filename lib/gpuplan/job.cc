#include "gpuplan/job.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <map>
#include <fmt/format.h>

#include "gpuplan/cost/spot.h"
#include "gpuplan/io.h"
#include "gpuplan/yaml_reader.h"

namespace gpuplan {
namespace {

using detail::Diagnostics;
using detail::Fields;

struct NetworkPreset {
  std::string_view name;
  double gbit;
};
// Nominal per-node link rates (reference data §2: InfiniBand EDR/HDR/NDR/XDR
// 4x, Ethernet/RoCE port speeds).
constexpr NetworkPreset kNetworks[] = {
    {"eth_1g", 1},      {"eth_10g", 10},     {"eth_25g", 25},     {"eth_100g", 100},
    {"roce_100g", 100}, {"roce_200g", 200},  {"roce_400g", 400},  {"ib_edr", 100},
    {"ib_hdr", 200},    {"ib_ndr", 400},     {"ib_xdr", 800}};

std::vector<std::string> network_names() {
  std::vector<std::string> v;
  for (const auto& n : kNetworks) v.emplace_back(n.name);
  return v;
}

}  // namespace

BytesPerSecond storage_read_bandwidth(std::string_view tier) {
  // Assumptions (no source in the reference data): a local NVMe SSD reads about
  // 2 GB/s in practice; the article says local NVMe loads "five times faster
  // than a network disk" (比直接读网络盘快五倍以上), so a network disk 400 MB/s;
  // object storage streamed to a node 200 MB/s.
  if (tier == "local_nvme") return BytesPerSecond(2e9);
  if (tier == "network_disk") return BytesPerSecond(400e6);
  return BytesPerSecond(200e6);
}

std::optional<BytesPerSecond> network_bandwidth(std::string_view name) {
  for (const auto& n : kNetworks)
    if (n.name == name) return BytesPerSecond(n.gbit * 1e9 / 8);
  return std::nullopt;
}

Seconds parse_deadline(std::string_view text, std::chrono::sys_seconds now) {
  // A date has dashes at 4 and 7; anything else is a duration.
  if (text.size() >= 10 && text[4] == '-' && text[7] == '-') {
    std::chrono::sys_seconds at = local_midnight(parse_date(text.substr(0, 10)));
    if (text.size() > 10) {
      // "T18:00" or " 18:00": a time of day, local.
      const std::string_view t = text.substr(11);
      int h = -1, m = -1;
      if ((text[10] != 'T' && text[10] != ' ') || t.size() != 5 || t[2] != ':' ||
          std::from_chars(t.data(), t.data() + 2, h).ptr != t.data() + 2 ||
          std::from_chars(t.data() + 3, t.data() + 5, m).ptr != t.data() + 5 || h > 23 || m > 59 || h < 0 || m < 0)
        throw std::invalid_argument(
            fmt::format("'{}' is not a date (2026-12-20), a date and time (2026-12-20T18:00) or a duration (36h)", text));
      at += std::chrono::hours(h) + std::chrono::minutes(m);
    }
    if (at <= now) throw std::invalid_argument(fmt::format("{} has passed", text));
    return std::chrono::duration_cast<Seconds>(at - now);
  }
  const Seconds d = parse_duration(text);
  if (!(d > Seconds(0))) throw std::invalid_argument(fmt::format("{} must be longer than zero", text));
  return d;
}

ResolvedJob load_job(const std::string& path, const std::vector<std::string>& sets, const Context& ctx, JobUse use,
                     const std::string* text) {
  const bool for_plan = use == JobUse::kPlan;
  ResolvedJob out;
  out.source = path.empty() ? "built-in defaults (full fine-tune of a 7B model on 8×A100-80G)" : path;
  Diagnostics diag(path.empty() ? "<defaults>" : path);
  YAML::Node root = detail::load_with_sets(path, sets, diag, text);
  const auto note = [&](const std::string& field, const std::string& value, const std::string& why) {
    out.defaults_used.push_back(fmt::format("{} = {} ({})", field, value, why));
  };

  Fields top(diag, root, "");
  if (!top.is_map()) throw InputErrors(std::move(diag.problems()));
  // Bare amounts in the file (plan.budget) are in its currency, CNY unless it names one.
  Currency file_currency = kCny;
  if (auto c = top.value("currency", false, [](const std::string& t) { return Currency(t); })) file_currency = *c;
  if (auto v = top.text("schema_version", false); v && *v != "1")
    top.fail(top.get("schema_version", false), "schema_version", fmt::format("{} is not supported (1 is)", *v));
  Job& j = out.job;
  Cluster& c = out.cluster;
  j.name = top.text("name", false).value_or(path.empty() ? "7B full fine-tune on 8×A100-80G (built-in defaults)" : path);

  // job
  {
    Fields f(diag, detail::section(top, "job"), "job");
    const bool vision = f.get("forward_flops_per_sample", false).IsDefined();
    // Bounds far beyond any real run (the largest models have ~2e12 parameters
    // and see ~2e13 tokens), so that absurd inputs are refused by name rather
    // than turned into runs of 1e20 days.
    if (auto v = detail::read_positive_count(f, "parameters", false, 1e15)) j.parameters = *v;
    else if (!vision) {
      j.parameters = 7e9;
      note("job.parameters", "7B", "default");
    }
    if (auto m = detail::read_choice(f, "method", {"pretrain", "full_finetune", "lora"})) {
      j.method = *m == "pretrain" ? Method::kPretrain : *m == "lora" ? Method::kLora : Method::kFullFinetune;
    } else {
      note("job.method", "full_finetune", "default");
    }
    if (auto v = detail::read_share_in(f, "lora_trainable", 1e-6, 1.0)) j.lora_trainable = *v;
    else if (j.method == Method::kLora) note("job.lora_trainable", "0.5%", "assumption: rank-16 adapters on a 7B model train about 0.5% of the parameters");
    if (auto p = detail::read_choice(f, "precision", {"fp32", "tf32", "bf16", "fp16", "fp8"})) j.precision = *parse_precision(*p);
    else note("job.precision", "bf16", "default: mixed precision");
    if (auto o = detail::read_choice(f, "optimizer", {"adamw", "sgd"})) j.optimizer = *o == "sgd" ? Optimizer::kSgd : Optimizer::kAdamW;
    if (auto z = detail::read_whole_in(f, "zero_stage", 0, 3)) j.zero_stage = *z;
    else note("job.zero_stage", "0", "default: plain data parallelism");
    if (auto r = detail::read_choice(f, "recompute", {"none", "selective", "full"})) {
      j.recompute = *r == "full" ? Recompute::kFull : *r == "selective" ? Recompute::kSelective : Recompute::kNone;
    } else {
      j.recompute = Recompute::kSelective;
      if (!vision)
        note("job.recompute", "selective",
             "default: FlashAttention-style kernels keep no attention matrices (Korthikanti et al. 2022's 34·s·b·h)");
    }
    if (auto v = detail::read_positive_count(f, "sequence_length", false, 1e8)) j.sequence_length = *v;
    else if (!vision) {
      j.sequence_length = 4096;
      note("job.sequence_length", "4096", "default");
    }
    if (auto v = detail::read_positive_count(f, "global_batch", false, 1e9)) j.global_batch = *v;
    else {
      j.global_batch = vision ? 256 : 128;
      note("job.global_batch", fmt::format("{:g}", j.global_batch), "default, sequences (samples) per step");
    }
    if (auto v = detail::read_whole_in(f, "micro_batch", 1, 65536)) j.micro_batch = *v;
    if (auto v = detail::read_positive_count(f, "forward_flops_per_sample", false, 1e18)) j.forward_flops_per_sample = *v;
    if (auto v = detail::read_size_in(f, "activation_memory_per_sample")) j.activation_bytes_per_sample = v->value();
    // Tokens: given, or samples × epochs × sequence length.
    const auto tokens = detail::read_positive_count(f, "tokens", false, 1e17);
    const auto samples = detail::read_positive_count(f, "samples", false, 1e17);
    const auto epochs = f.value("epochs", false, [](const std::string& t) {
      const double v = parse_number(t);
      if (!(v > 0)) throw std::invalid_argument(fmt::format("{} must be greater than zero", t));
      return v;
    });
    if (vision) {
      if (!samples) f.fail(f.node(), "job.samples", "is required with forward_flops_per_sample");
      j.samples = samples.value_or(0) * epochs.value_or(1.0);
    } else if (tokens) {
      j.tokens = *tokens;
      if (samples) f.fail(f.get("samples", false), "job.samples", "give tokens or samples (× epochs), not both");
    } else if (samples) {
      j.tokens = *samples * epochs.value_or(1.0) * j.sequence_length;
    } else {
      const YAML::Node given = f.get("tokens", false);
      if (given.IsDefined()) {
        // a bad value was already reported
      } else {
        j.tokens = 2e9;
        note("job.tokens", "2B", "default: a fine-tuning corpus");
      }
    }
    if (vision) j.samples_per_second_per_worker = 0;
    if (auto v = f.value("mfu", false, [](const std::string& t) {
          const double x = parse_share(t);
          if (!(x > 0 && x <= 1)) throw std::invalid_argument(fmt::format("{} is outside (0%, 100%]", t));
          return x;
        }))
      j.mfu = *v;
    const YAML::Node arch = f.get("architecture", false);
    if (arch.IsDefined()) {
      Fields af(diag, arch, "job.architecture");
      if (auto v = detail::read_whole_in(af, "layers", 1, 10000, true)) j.arch.layers = *v;
      if (auto v = detail::read_whole_in(af, "hidden", 1, 1000000, true)) j.arch.hidden = *v;
      if (auto v = detail::read_whole_in(af, "heads", 1, 10000, true)) j.arch.heads = *v;
      af.finish();
      j.arch.given = af.ok();
    }
    f.finish();
  }

  // data
  {
    Fields f(diag, detail::section(top, "data"), "data");
    if (auto v = detail::read_size_in(f, "bytes_per_sample")) j.bytes_per_sample = *v;
    std::string tier = "local_nvme";
    if (auto t = detail::read_choice(f, "storage", {"local_nvme", "network_disk", "object_storage"})) tier = *t;
    else if (j.bytes_per_sample.value() > 0) note("data.storage", tier, "default");
    j.read_bandwidth = storage_read_bandwidth(tier);
    if (auto r = detail::read_rate_in(f, "read_bandwidth")) j.read_bandwidth = *r;
    else if (j.bytes_per_sample.value() > 0)
      note("data.read_bandwidth", fmt::format("{:g}MB/s", j.read_bandwidth.value() / 1e6),
           "assumption for " + tier + " (local NVMe ≈ 5× a network disk, per the article)");
    if (auto w = detail::read_whole_in(f, "workers", 1, 1024)) j.workers = *w;
    f.value("samples_per_second_per_worker", false, [&](const std::string& t) {
      const double v = parse_number(t);
      if (!(v > 0)) throw std::invalid_argument(fmt::format("{} must be greater than zero", t));
      j.samples_per_second_per_worker = v;
      return v;
    });
    f.finish();
  }

  // checkpoint
  bool auto_interval = false;
  {
    Fields f(diag, detail::section(top, "checkpoint"), "checkpoint");
    if (auto r = detail::read_rate_in(f, "write_bandwidth")) j.checkpoint_bandwidth = *r;
    else {
      j.checkpoint_bandwidth = BytesPerSecond(1e9);
      note("checkpoint.write_bandwidth", "1GB/s", "assumption");
    }
    if (auto t = f.text("interval", false)) {
      if (*t != "auto") {
        try {
          // A plain number is a step count; with a unit, a duration.
          if (t->find_first_not_of("0123456789") == std::string::npos) {
            const double steps = parse_number(*t);
            if (!(steps >= 1)) throw std::invalid_argument("must be at least one step");
            j.checkpoint_every_steps = steps;
          } else {
            const Seconds d = parse_duration(*t);
            if (!(d > Seconds(0))) throw std::invalid_argument("must be longer than zero");
            j.checkpoint_every = d;
          }
        } catch (const std::invalid_argument& e) {
          f.fail(f.get("interval", false), "checkpoint.interval",
                 fmt::format("{} (write steps like 200, a duration like 30min, or auto)", e.what()));
        }
      }
    } else {
      note("checkpoint.interval", "200 steps", "the article: \"每200步存一次checkpoint\"");
    }
    if (auto d = detail::read_duration_in(f, "mtbf", true)) j.mtbf = *d;
    auto_interval = f.text("interval", false).value_or("") == "auto";
    f.finish();
  }

  // cluster
  {
    Fields f(diag, detail::section(top, "cluster"), "cluster");
    std::string gpu = "A100-80G";
    if (auto g = f.text("gpu", false)) {
      if (!ctx.catalog().find_gpu(*g)) f.fail(f.get("gpu", false), "cluster.gpu", fmt::format("unknown GPU id '{}'", *g));
      else gpu = ctx.catalog().find_gpu(*g)->id;
    } else if (!for_plan) {
      note("cluster.gpu", gpu, "default");
    }
    c.gpu = ctx.catalog().find_gpu(gpu);
    if (auto n = detail::read_whole_in(f, "gpus", 1, 100000)) c.gpus = *n;
    else if (!for_plan) note("cluster.gpus", "8", "default");
    if (auto n = detail::read_whole_in(f, "gpus_per_node", 1, 64)) c.gpus_per_node = *n;
    c.network = "eth_25g";
    const auto named = detail::read_choice(f, "network", network_names());
    const auto given = detail::read_rate_in(f, "network_bandwidth");
    if (named && given) {
      f.fail(f.get("network_bandwidth", false), "cluster.network_bandwidth", "give network or network_bandwidth, not both");
    } else if (given) {
      c.network_bandwidth = *given;
      c.network = fmt::format("custom {:g} Gb/s", given->value() * 8 / 1e9);
    } else {
      if (named) c.network = *named;
      else if (for_plan || c.gpus > c.gpus_per_node)
        note("cluster.network", c.network,
             for_plan ? "assumption: 25 GbE between instances, for offers that state no network"
                      : "assumption: 25 GbE between nodes");
      c.network_bandwidth = *network_bandwidth(c.network);
    }
    if (auto v = detail::read_share_in(f, "comm_overlap", 0.0, 1.0)) c.comm_overlap = *v;
    else if (c.gpus > 1) note("cluster.comm_overlap", "50%", "assumption: half the backward pass hides gradient all-reduce");
    f.finish();
  }

  // cost (for the cost rows)
  {
    Fields f(diag, detail::section(top, "cost"), "cost");
    if (auto v = f.value("spot_interruptions_per_day", false, [](const std::string& t) {
          const double x = parse_number(t);
          if (x < 0 || x > 1000) throw std::invalid_argument(fmt::format("{} is outside 0..1000", t));
          return x;
        }))
      out.spot_interruptions_per_day = *v;
    else
      note("cost.spot_interruptions_per_day", "1", std::string(kSpotRateAssumption));
    if (auto v = detail::read_size_in(f, "dataset")) out.dataset = *v;
    if (auto v = detail::read_rate_in(f, "upload_bandwidth")) out.upload_bandwidth = *v;
    else if (for_plan && out.dataset.value() > 0)
      note("cost.upload_bandwidth", "100MB/s", "the article's minimum acceptable upload rate (百兆每秒)");
    f.finish();
  }

  // plan (read by `gpuplan plan`; accepted, unused, by estimate)
  {
    Fields f(diag, detail::section(top, "plan"), "plan");
    PlanSettings& p = out.plan;
    p.deadline = f.value("deadline", false, [&](const std::string& t) { return parse_deadline(t, ctx.now); });
    if (p.deadline) p.deadline_text = *f.text("deadline", false);
    p.budget = f.value("budget", false, [&](const std::string& t) {
      Money m = parse_money(t, file_currency);
      if (m.micros() <= 0) throw std::invalid_argument(fmt::format("{} must be a positive amount", t));
      if (m.units() >= Money::kMaxPlausibleUnits)
        throw std::invalid_argument(fmt::format("{} is a trillion or more: not an amount gpuplan can plan with", t));
      if (m.currency() != ctx.currency) {
        try {
          m = CurrencyConverter(ctx.catalog(), ctx.currency).convert(m);
        } catch (const InputError& e) {
          throw std::invalid_argument(e.message());
        }
      }
      return m;
    });
    p.allow_spot = detail::read_bool(f, "allow_spot");
    p.include_buy = detail::read_bool(f, "include_buy");
    p.max_gpus = detail::read_whole_in(f, "max_gpus", 1, 65536);
    p.objective = detail::read_choice(f, "objective", {"cost", "time"});
    p.confidence = detail::read_share_in(f, "confidence", 0.01, 1.0);
    if (auto v = detail::read_list(f, "gpus")) p.gpus = *v;
    if (auto v = detail::read_list(f, "providers")) p.providers = *v;
    if (auto v = detail::read_list(f, "regions")) p.regions = *v;
    if (auto v = f.text("market", false)) p.market = *v;
    f.finish();
  }
  top.finish();
  // interval: auto takes the MTBF, else the spot interruption rate (MTBF = 1 / rate).
  if (auto_interval && !j.mtbf) {
    if (out.spot_interruptions_per_day > 0) {
      j.mtbf = Seconds(86400.0 / out.spot_interruptions_per_day);
      note("checkpoint.mtbf", format_duration(*j.mtbf),
           fmt::format("1 / cost.spot_interruptions_per_day ({:g} a day), for interval auto (Young/Daly)",
                       out.spot_interruptions_per_day));
    } else {
      j.mtbf = Days(1);
      note("checkpoint.mtbf", "1d", "assumption, for interval auto (Young/Daly)");
    }
  }

  // Valid but probably a missing suffix: say so (the run is still computed).
  if (j.forward_flops_per_sample == 0) {
    if (j.parameters > 0 && j.parameters < 1e6)
      out.warnings.push_back(fmt::format("Warning: job.parameters is {:g}, not millions or billions: did you mean {:g}B?",
                                         j.parameters, j.parameters));
    if (j.tokens > 0 && j.tokens < 1e6)
      out.warnings.push_back(fmt::format("Warning: job.tokens is {:g}, less than a million: did you mean {:g}B or {:g}T?",
                                         j.tokens, j.tokens, j.tokens));
  }
  // Cross-field checks, reported at the field that is wrong.
  if (!for_plan && c.gpu && diag.count() == 0 && !c.gpu->dense_tflops.contains(j.precision)) {
    YAML::Node n = root["job"] && root["job"].IsMap() ? root["job"]["precision"] : YAML::Node();
    diag.fail(n ? n : root, "job.precision",
              fmt::format("{} has no {} tensor rate (it has: {})", c.gpu->id, to_string(j.precision), [&] {
                std::string s;
                for (const auto& [p, v] : c.gpu->dense_tflops) s += (s.empty() ? "" : ", ") + std::string(to_string(p));
                return s;
              }()));
  }
  diag.throw_if_any();

  Json in = Json::object();
  in["job_file"] = out.source;
  in["name"] = j.name;
  Json jj = Json::object();
  jj["parameters"] = j.parameters;
  jj["tokens"] = j.tokens;
  jj["samples"] = j.samples;
  jj["method"] = std::string(to_string(j.method));
  jj["precision"] = std::string(to_string(j.precision));
  jj["optimizer"] = j.optimizer == Optimizer::kAdamW ? "adamw" : "sgd";
  jj["zero_stage"] = j.zero_stage;
  jj["recompute"] = std::string(to_string(j.recompute));
  jj["global_batch"] = j.global_batch;
  jj["sequence_length"] = j.sequence_length;
  jj["micro_batch"] = j.micro_batch;
  jj["mfu"] = j.mfu ? Json(*j.mfu) : Json();
  in["job"] = std::move(jj);
  Json cl = Json::object();
  if (!for_plan) {  // plan searches GPUs and counts itself
    cl["gpu"] = c.gpu ? c.gpu->id : "";
    cl["gpus"] = c.gpus;
  }
  cl["gpus_per_node"] = c.gpus_per_node;
  cl["network"] = c.network;
  cl["network_gbit_s"] = c.network_bandwidth.value() * 8 / 1e9;
  cl["comm_overlap"] = c.comm_overlap;
  in["cluster"] = std::move(cl);
  Json d = Json::array();
  for (const auto& x : out.defaults_used) d.push_back(x);
  in["defaults_used"] = std::move(d);
  out.inputs = std::move(in);
  return out;
}

ResolvedJob load_job_with_flags(const std::string& path, std::vector<std::string> sets,
                                const std::vector<FlagOverride>& flags, const Context& ctx, JobUse use) {
  for (const FlagOverride& f : flags) sets.push_back(f.path + "=" + f.value);
  try {
    return load_job(path, sets, ctx, use);
  } catch (const InputErrors& e) {
    std::vector<InputError> named;
    for (const InputError& p : e.problems()) {
      SourceLocation where = p.where();
      for (const FlagOverride& f : flags)
        if (where.file == fmt::format("--set {}={}", f.path, f.value)) where.file = fmt::format("{} {}", f.flag, f.value);
      named.emplace_back(where, p.field(), p.message());
    }
    throw InputErrors(std::move(named));
  }
}

bool is_job_file(const std::string& path) {
  Diagnostics diag(path);
  const YAML::Node root = detail::load_with_sets(path, {}, diag);
  if (!root.IsMap()) return false;
  for (const char* key : {"job", "cluster", "data", "checkpoint", "cost", "plan"})
    if (root[key]) return true;
  return false;
}

MeasuredScaling load_scaling_fit(const std::string& path) {
  Diagnostics diag(path);
  const std::string text = read_input_file(path);
  const std::optional<YAML::Node> doc = detail::load_document(text, diag);
  diag.throw_if_any();
  const YAML::Node root = doc.value_or(YAML::Node());
  // A missing key of a const node is a "zombie" that throws on most calls: look it up safely.
  const auto child = [](const YAML::Node& map, const char* key) {
    if (map.IsDefined() && map.IsMap())
      for (auto it = map.begin(); it != map.end(); ++it)
        if (it->first.IsScalar() && it->first.Scalar() == key) return YAML::Node(it->second);
    return YAML::Node(YAML::NodeType::Undefined);
  };
  const auto scalar = [&](const YAML::Node& map, const char* key, const std::string& field) -> std::optional<std::string> {
    const YAML::Node n = child(map, key);
    if (!n.IsDefined() || !n.IsScalar()) {
      diag.fail(n.IsDefined() ? n : map, field, "is required");
      return std::nullopt;
    }
    return n.Scalar();
  };
  if (!root.IsDefined() || !root.IsMap() || scalar(root, "command", "command").value_or("") != "fit scaling") {
    diag.fail(root, "command", "is not 'fit scaling': save the fit with gpuplan fit scaling FILE --format json -o FILE");
    diag.throw_if_any();
  }
  // Coefficients by model, and each model's AICc.
  std::map<std::string, std::map<std::string, double>> coef;
  std::map<std::string, std::optional<double>> aicc;
  const auto number = [&](const YAML::Node& n, const std::string& field) -> std::optional<double> {
    try {
      return parse_number(n.Scalar());
    } catch (const std::invalid_argument& e) {
      diag.fail(n, field, e.what());
      return std::nullopt;
    }
  };
  const YAML::Node coefs = child(root, "coefficients");
  if (!coefs.IsDefined() || !coefs.IsSequence()) diag.fail(coefs.IsDefined() ? coefs : root, "coefficients", "must be a list");
  else
    for (std::size_t i = 0; i < coefs.size(); ++i) {
      const std::string at = detail::item_path("coefficients", i);
      const auto model = scalar(coefs[i], "model", at + ".model");
      const auto param = scalar(coefs[i], "parameter", at + ".parameter");
      const YAML::Node est = child(coefs[i], "estimate");
      if (!model || !param) continue;
      if (!est.IsScalar()) {
        diag.fail(coefs[i], at + ".estimate", "is required");
        continue;
      }
      if (auto v = number(est, at + ".estimate")) coef[*model][*param] = *v;
    }
  const YAML::Node models = child(root, "models");
  if (models.IsDefined() && models.IsSequence())
    for (std::size_t i = 0; i < models.size(); ++i) {
      const YAML::Node name = child(models[i], "model"), a = child(models[i], "aicc");
      if (!name.IsDefined() || !name.IsScalar()) continue;
      aicc[name.Scalar()] = a.IsDefined() && a.IsScalar() && a.Scalar() != "null"
                                ? number(a, detail::item_path("models", i) + ".aicc")
                                : std::nullopt;
    }
  double max_gpus = 0;
  const YAML::Node points = child(root, "points");
  if (points.IsDefined() && points.IsSequence())
    for (std::size_t i = 0; i < points.size(); ++i)
      if (const YAML::Node g = child(points[i], "gpus"); g.IsDefined() && g.IsScalar())
        if (auto v = number(g, detail::item_path("points", i) + ".gpus")) max_gpus = std::max(max_gpus, *v);
  diag.throw_if_any();
  // The USL unless Amdahl fits clearly better by AICc (fewer parameters, same data).
  std::string pick = coef.contains("usl") ? "usl" : "amdahl";
  if (coef.contains("usl") && coef.contains("amdahl") && aicc["usl"] && aicc["amdahl"] && *aicc["amdahl"] < *aicc["usl"])
    pick = "amdahl";
  if (!coef.contains(pick) || !coef[pick].contains("sigma")) {
    diag.fail(coefs.IsDefined() ? coefs : root, "coefficients", "has no usl or amdahl sigma");
    diag.throw_if_any();
  }
  MeasuredScaling m;
  m.sigma = coef[pick]["sigma"];
  m.kappa = pick == "usl" ? coef[pick]["kappa"] : 0.0;
  m.max_measured_gpus = max_gpus;
  m.source = fmt::format("{}, {}", path, pick == "usl" ? "USL" : "Amdahl");
  if (!(m.sigma >= 0 && m.sigma < 1) || !(m.kappa >= 0 && m.kappa < 1))
    throw InputError(SourceLocation{path}, "coefficients",
                     fmt::format("σ = {:g}, κ = {:g} are outside [0, 1): not a scaling law", m.sigma, m.kappa));
  return m;
}

}  // namespace gpuplan
