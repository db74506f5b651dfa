#include "gpuplan/job.h"
#include "gpuplan/i18n.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <map>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include "gpuplan/catalog.h"
#include "gpuplan/cost/spot.h"
#include "gpuplan/io.h"
#include "gpuplan/job_fields.h"
#include <functional>
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
constexpr NetworkPreset kNetworks[] = {{"eth_1g", 1},      {"eth_10g", 10},    {"eth_25g", 25},    {"eth_100g", 100},
                                       {"roce_100g", 100}, {"roce_200g", 200}, {"roce_400g", 400}, {"ib_edr", 100},
                                       {"ib_hdr", 200},    {"ib_ndr", 400},    {"ib_xdr", 800}};

}  // namespace

std::vector<std::string_view> network_names() {
  std::vector<std::string_view> v;
  for (const auto& n : kNetworks) v.push_back(n.name);
  return v;
}

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
            trf("'{}' is not a date (2026-12-20), a date and time (2026-12-20T18:00) or a duration (36h)", text));
      at += std::chrono::hours(h) + std::chrono::minutes(m);
    }
    if (at <= now) throw std::invalid_argument(trf("{} has passed", text));
    return std::chrono::duration_cast<Seconds>(at - now);
  }
  const Seconds d = parse_duration(text);
  if (!(d > Seconds(0))) throw std::invalid_argument(trf("{} must be longer than zero", text));
  return d;
}

namespace {

/// What the file says beyond its table rows: resolved by hand.
struct JobDraft {
  std::vector<Given> given{};  ///< one per job_sections() entry
  std::optional<double> tokens{}, samples{}, epochs{};
  bool tokens_key = false;    ///< job.tokens was written (a bad value is already a problem)
  bool architecture = false;  ///< job.architecture was given
  std::optional<BytesPerSecond> network_bandwidth{};
};

std::size_t section_index(std::string_view name) {
  const auto sections = job_sections();
  for (std::size_t i = 0; i < sections.size(); ++i)
    if (sections[i].name == name) return i;
  throw std::logic_error(fmt::format("no job section '{}'", name));
}

std::vector<std::string_view> known_keys(std::string_view section, std::initializer_list<std::string_view> more = {}) {
  std::vector<std::string_view> keys = keys_of(job_section(section).rows);
  keys.insert(keys.end(), more);
  return keys;
}

template <class T>
std::optional<T> as(const std::optional<Value>& v) {
  if (!v || std::holds_alternative<std::monostate>(*v)) return std::nullopt;
  return std::get<T>(*v);
}

bool was_given(const JobDraft& d, std::string_view section, std::string_view key) {
  const auto rows = job_section(section).rows;
  const Given& g = d.given[section_index(section)];
  for (std::size_t i = 0; i < rows.size() && i < g.size(); ++i)
    if (rows[i].key == key) return g[i];
  return false;
}

// ---- reading (YAML → ResolvedJob + draft) ----

void read_job(Fields& top, ResolvedJob& out, JobDraft& d, const FieldContext& ctx) {
  const auto rows = job_section("job").rows;
  Fields f(top.diagnostics(), detail::section(top, "job"), "job", known_keys("job"));
  d.given[section_index("job")] = detail::read_fields(f, out, rows, ctx);
  d.tokens = as<double>(detail::read_row(f, rows, "tokens", ctx));
  d.tokens_key = f.get("tokens", false).defined();
  d.samples = as<double>(detail::read_row(f, rows, "samples", ctx));
  d.epochs = as<double>(detail::read_row(f, rows, "epochs", ctx));
  if (const detail::Node arch = f.get("architecture", false); arch.defined()) {
    d.architecture = true;
    Fields af(top.diagnostics(), arch, "job.architecture", known_keys("job.architecture"));
    d.given[section_index("job.architecture")] =
        detail::read_fields(af, out, job_section("job.architecture").rows, ctx);
    af.finish();
  }
  f.finish();
}

// A GPU, provider or region the catalog does not know is a typo at its place
// in the file (or at the flag that gave it), never "no offers".
void check_plan_filters(Fields& f, const PlanSettings& p, const Catalog& catalog) {
  const std::array<std::pair<const char*, const std::vector<std::string>*>, 3> lists{
      {{"gpus", &p.gpus}, {"providers", &p.providers}, {"regions", &p.regions}}};
  for (std::size_t i = 0; i < lists.size(); ++i)
    if (const auto problem = filter_problem(catalog, static_cast<FilterKind>(i), *lists[i].second)) {
      const detail::Node n = f.get(lists[i].first, false);  // a list in a file; one text from a flag
      f.fail(n.is_sequence() && problem->index < n.size() ? n[problem->index] : n, f.field(lists[i].first),
             problem->message);
    }
}

void read_section(Fields& top, std::string_view name, ResolvedJob& out, JobDraft& d, const FieldContext& ctx) {
  Fields f(top.diagnostics(), detail::section(top, name), std::string(name), known_keys(name));
  d.given[section_index(name)] = detail::read_fields(f, out, job_section(name).rows, ctx);
  if (name == "cluster") {
    d.network_bandwidth = as<BytesPerSecond>(detail::read_row(f, job_section(name).rows, "network_bandwidth", ctx));
    if (d.network_bandwidth) out.cluster.network_bandwidth = *d.network_bandwidth;  // no network default then
  }
  if (name == "plan") {
    out.plan.deadline = f.value("deadline", false, [&](const std::string& t) { return parse_deadline(t, ctx.now); });
    if (out.plan.deadline) out.plan.deadline_text = *f.text("deadline", false);
    if (ctx.catalog) check_plan_filters(f, out.plan, *ctx.catalog);
  }
  f.finish();
}

JobDraft read_draft(const detail::Node& root, Diagnostics& diag, ResolvedJob& out, const FieldContext& ctx) {
  JobDraft d;
  d.given.assign(job_sections().size(), Given{});
  Fields top(diag, root, "", known_keys(""));
  for (const Section<ResolvedJob>& section : job_sections())  // the sections are keys of the top level
    if (!section.name.empty() && section.name.find('.') == std::string_view::npos) top.declare({section.name});
  if (!top.is_map()) throw InputErrors(std::move(diag.problems()));
  d.given[section_index("")] = detail::read_fields(top, out, job_section("").rows, ctx);
  top.value("currency", false, [](const std::string& t) { return Currency(t); });
  if (auto v = top.text("schema_version", false); v && *v != "1")
    top.fail(top.get("schema_version", false), "schema_version", trf("{} is not supported (1 is)", *v));
  read_job(top, out, d, ctx);
  for (const char* name : {"data", "checkpoint", "cluster", "cost", "plan"}) read_section(top, name, out, d, ctx);
  top.finish();
  return d;
}

// ---- resolving: defaults and the fields that depend on each other ----

using Report = std::function<void(const std::string& field, const std::string& message)>;

void defaults(ResolvedJob& out, std::string_view section, const JobDraft& d, const FieldContext& ctx,
              DefaultNotes& notes, const Report& report) {
  for (const MissingField& m : apply_defaults(out, job_section(section), d.given[section_index(section)], ctx, notes))
    report(m.field, m.message);
}

// Tokens: given, or samples × epochs × sequence length; a vision job counts samples.
// A mixture of experts: active parameters, experts and top-k together, and
// consistent: N_a/N ≥ k/E, or the routed experts would outweigh the model.
void check_moe(const Job& j, const Report& report) {
  const int given = (j.active_parameters > 0) + (j.experts > 0) + (j.experts_per_token > 0);
  if (given == 0) return;
  if (given < 3) {
    for (const auto& [key, set] :
         {std::pair{"job.active_parameters", j.active_parameters > 0}, std::pair{"job.experts", j.experts > 0},
          std::pair{"job.experts_per_token", j.experts_per_token > 0}})
      if (!set)
        report(key,
               std::string(tr(
                   "a mixture of experts needs active_parameters, experts and experts_per_token together (or none)")));
    return;
  }
  if (j.experts_per_token >= j.experts)
    return report("job.experts_per_token", trf("{} is not fewer than the {} experts", j.experts_per_token, j.experts));
  if (j.active_parameters >= j.parameters)
    return report("job.active_parameters",
                  trf("{:g} is not fewer than job.parameters ({:g})", j.active_parameters, j.parameters));
  if (j.active_parameters * j.experts < j.parameters * j.experts_per_token)
    report("job.active_parameters",
           trf("{:g} of {:g} parameters with {} of {} experts a token: the routed experts alone would "
               "hold more than the model (need active/total >= experts_per_token/experts)",
               j.active_parameters, j.parameters, j.experts_per_token, j.experts));
}

void resolve_tokens(ResolvedJob& out, const JobDraft& d, DefaultNotes& notes, const Report& report) {
  Job& j = out.job;
  const double epochs = d.epochs.value_or(1.0);
  out.epochs = epochs;
  if (is_vision_job(j)) {
    if (!d.samples) report("job.samples", std::string(tr("is required with forward_flops_per_sample")));
    j.samples = d.samples.value_or(0) * epochs;
  } else if (d.tokens) {
    j.tokens = *d.tokens;
    if (d.samples) report("job.samples", std::string(tr("give tokens or samples (× epochs), not both")));
  } else if (d.samples) {
    j.tokens = *d.samples * epochs * j.sequence_length;
  } else if (!d.tokens_key) {
    const Field<ResolvedJob>& row = *find_field(job_section("job").rows, "tokens");
    j.tokens = parse_count(row.fallback);
    notes.add("job.tokens", std::string(row.fallback), std::string(tr(row.why)), row.why);
  }
}

void resolve_cluster(ResolvedJob& out, const JobDraft& d, const FieldContext& ctx, const Report& report) {
  Cluster& c = out.cluster;
  c.gpu = out.cluster_gpu.empty() ? nullptr : ctx.catalog->find_gpu(out.cluster_gpu);
  if (!d.network_bandwidth) return;
  if (was_given(d, "cluster", "network"))
    return report("cluster.network_bandwidth", std::string(tr("give network or network_bandwidth, not both")));
  c.network_bandwidth = *d.network_bandwidth;
  c.network = fmt::format("custom {:g} Gb/s", d.network_bandwidth->value() * 8 / 1e9);
}

// A given dense architecture holds a parameter count of its own: per layer the
// attention's Q and O (h² each) and K, V (h × the KV heads' width each), and an
// MLP of two (GELU) or three (SwiGLU) h × ffn matrices; the embeddings tied or
// not. A job.parameters far outside that range (a 70B count over a 7B file's
// shape, say) times one model and sizes another: said, with the shape's range.
void warn_shape(ResolvedJob& out) {
  const Job& j = out.job;
  const Architecture& a = j.arch;
  if (!a.given || j.experts > 0 || a.layers <= 0 || a.hidden <= 0 || a.heads <= 0 || !(j.parameters > 0)) return;
  const double h = a.hidden, kv = (a.kv_heads > 0 ? a.kv_heads : a.heads) * (h / a.heads);
  const double attention = 2 * h * h + 2 * h * kv;
  const double ffn = a.ffn > 0 ? a.ffn : 4 * h;
  // An unknown vocabulary (0) may be as large as Gemma 3's 262,144 tokens: small
  // models with large vocabularies hold most of their parameters there.
  const double lo = a.layers * (attention + 2 * h * ffn) + a.vocab * h;
  const double hi = a.layers * (attention + 3 * h * ffn) + 2 * (a.vocab > 0 ? a.vocab : 262144) * h;
  if (j.parameters >= lo / 1.5 && j.parameters <= hi * 1.5) return;
  out.warnings.push_back(
      trf("job.parameters is {:.3g}B but job.architecture ({} layers, hidden {}) holds {:.3g}B to {:.3g}B: the FLOPs "
          "and weights follow job.parameters, the activations and their traffic the architecture. Give the "
          "architecture of the model you train, or leave it out to have it estimated from job.parameters.",
          j.parameters / 1e9, a.layers, a.hidden, lo / 1e9, hi / 1e9));
}

// Valid but probably a missing suffix: say so (the run is still computed).
void warn_sizes(ResolvedJob& out) {
  const Job& j = out.job;
  if (is_vision_job(j)) return;
  if (j.parameters > 0 && j.parameters < 1e6)
    out.warnings.push_back(
        trf("job.parameters is {:g}, not millions or billions: did you mean {:g}B?", j.parameters, j.parameters));
  if (j.tokens > 0 && j.tokens < 1e6)
    out.warnings.push_back(
        trf("job.tokens is {:g}, less than a million: did you mean {:g}B or {:g}T?", j.tokens, j.tokens, j.tokens));
  warn_shape(out);
}

// The GPU must have a tensor rate at the job's precision (plan drops the GPUs that do not).
void check_precision(const ResolvedJob& out, const Report& report) {
  const Cluster& c = out.cluster;
  const Job& j = out.job;
  if (!c.gpu || c.gpu->dense_tflops.contains(j.precision)) return;
  std::string has;
  for (const auto& [p, v] : c.gpu->dense_tflops) has += (has.empty() ? "" : ", ") + std::string(to_string(p));
  report("job.precision", trf("{} has no {} tensor rate (it has: {})", c.gpu->id, to_string(j.precision), has));
}

void resolve(ResolvedJob& out, const JobDraft& d, const FieldContext& ctx, DefaultNotes& notes, const Report& report) {
  defaults(out, "", d, ctx, notes, report);
  defaults(out, "job", d, ctx, notes, report);
  if (d.architecture) {
    // Layers, hidden and heads come together or not at all (no defaults: they are estimated otherwise).
    const auto missing =
        apply_defaults(out, job_section("job.architecture"), d.given[section_index("job.architecture")], ctx, notes);
    for (const MissingField& m : missing) report(m.field, m.message);
    out.job.arch.given = missing.empty();
  }
  resolve_tokens(out, d, notes, report);
  check_moe(out.job, report);
  for (const char* section : {"data", "checkpoint", "cluster", "cost"}) defaults(out, section, d, ctx, notes, report);
  out.checkpoint_given = {.storage = was_given(d, "checkpoint", "storage"),
                          .write = was_given(d, "checkpoint", "write_bandwidth"),
                          .total = was_given(d, "checkpoint", "total_bandwidth")};
  resolve_cluster(out, d, ctx, report);
  if (!out.layout_text.empty()) out.layout = parse_layout(out.layout_text);
  if (ctx.for_plan) defaults(out, "plan", d, ctx, notes, report);
  warn_sizes(out);
}

Json echo_job(const ResolvedJob& out, const FieldContext& ctx, Currency currency) {
  Json in = Json::object();
  in["job_file"] = out.source;
  in["name"] = out.job.name;
  in["job"] = echo_fields(out, job_section("job").rows, currency);
  Json cl = echo_fields(out, job_section("cluster").rows, currency);
  if (ctx.for_plan) {  // plan searches GPUs and counts itself
    Json kept = Json::object();
    for (const auto& [k, v] : *cl.as_object())
      if (k != "gpu" && k != "gpus") kept[k] = v;
    cl = std::move(kept);
  }
  in["cluster"] = std::move(cl);
  in["defaults_used"] = Json::strings(out.defaults_used);
  return in;
}

}  // namespace

namespace {
// A name says what the file or the defaults describe; --set job.* may describe
// another model ("7B" over 70B parameters), so the title carries what was set.
std::string set_job_keys(const std::vector<std::string>& sets) {
  std::vector<std::string_view> shown;
  for (const std::string& s : sets) {
    if (s.starts_with("name=")) return {};  // a name given on the command line is the user's title
    if (s.starts_with("job.")) shown.push_back(s);
  }
  if (shown.empty()) return {};
  constexpr std::size_t kShown = 3;
  const std::size_t more = shown.size() > kShown ? shown.size() - kShown : 0;
  shown.resize(shown.size() - more);
  std::string out = fmt::format(" ({}", fmt::join(shown, ", "));
  if (more > 0) out += trf(" and {} more", more);
  return out + ")";
}
}  // namespace

ResolvedJob load_job(const std::string& path, const std::vector<std::string>& sets, const Context& ctx, JobUse use,
                     const std::string* text) {
  ResolvedJob out;
  out.source = path.empty() ? "built-in defaults (full fine-tune of a 7B model on 8×A100-80G)" : path;
  Diagnostics diag(path.empty() ? "<defaults>" : path);
  const detail::Node root = detail::load_with_sets(path, echo_keys_as_sets(sets, job_sections()), diag, text, &sets);
  detail::check_unsets(diag, job_sections());
  diag.throw_if_any();
  // Bare amounts in the file (plan.budget) are in its currency, CNY unless it names one.
  Currency file_currency = kCny;
  if (root.is_map() && root.child("currency").is_scalar()) try {
      file_currency = Currency(root.child("currency").scalar());
      require_conversion(ctx.catalog(), file_currency, ctx.currency);
    } catch (const std::invalid_argument& e) {
      // A bad code is reported where the top level is read; a code without a rate here.
      if (file_currency != kCny) diag.fail(root.child("currency"), "currency", e.what());
    }
  const CurrencyConverter fx(ctx.catalog(), ctx.currency);
  FieldContext fctx;
  fctx.catalog = &ctx.catalog();
  fctx.fx = &fx;
  fctx.file_currency = file_currency;
  fctx.for_plan = use == JobUse::kPlan;
  fctx.now = ctx.now;
  const JobDraft d = read_draft(root, diag, out, fctx);
  // The cluster is not in the name: --set and --gpu change it, and titles say "on N× GPU" themselves.
  const std::string set_keys = set_job_keys(sets);
  if (out.job.name.empty() && path.empty())  // the built-in job is no longer a 7B one once job.* is set
    out.job.name =
        set_keys.empty() ? std::string(tr("7B full fine-tune (built-in defaults)")) : std::string(tr("built-in job"));
  else if (out.job.name.empty()) out.job.name = path;
  out.job.name += set_keys;
  DefaultNotes notes;
  const Report report = [&](const std::string& field, const std::string& message) {
    diag.fail(detail::node_at(root, field), field, message);
  };
  resolve(out, d, fctx, notes, report);
  if (!fctx.for_plan && diag.count() == 0) check_precision(out, report);
  diag.throw_if_any();
  out.defaults_used = std::move(notes.lines);
  out.inputs = echo_job(out, fctx, ctx.currency);
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
        if (where.file == fmt::format("--set {}={}", f.path, f.value))
          where.file = fmt::format("{} {}", f.flag, f.value);
      named.emplace_back(where, p.field(), p.message());
    }
    throw InputErrors(std::move(named));
  }
}

bool is_job_file(const std::string& path) {
  Diagnostics diag(path);
  const detail::Node root = detail::load_with_sets(path, {}, diag);
  if (!root.is_map()) return false;
  for (const Section<ResolvedJob>& section : job_sections())
    if (!section.name.empty() && section.name.find('.') == std::string_view::npos && root.child(section.name).defined())
      return true;
  return false;
}

MeasuredScaling load_scaling_fit(const std::string& path) {
  Diagnostics diag(path);
  const std::string text = read_input_file(path);
  const std::optional<detail::Node> doc = detail::load_document(text, diag);
  diag.throw_if_any();
  const detail::Node root = doc.value_or(detail::Node());
  const auto child = [](const detail::Node& map, const char* key) { return map.child(key); };
  const auto scalar = [&](const detail::Node& map, const char* key,
                          const std::string& field) -> std::optional<std::string> {
    const detail::Node n = child(map, key);
    if (!n.defined() || !n.is_scalar()) {
      diag.fail(n.defined() ? n : map, field, std::string(tr("is required")));
      return std::nullopt;
    }
    return n.scalar();
  };
  if (!root.defined() || !root.is_map() || scalar(root, "command", "command").value_or("") != "fit scaling") {
    diag.fail(
        root, "command",
        std::string(tr("is not 'fit scaling': save the fit with gpuplan fit scaling FILE --format json -o FILE")));
    diag.throw_if_any();
  }
  // Coefficients by model, and each model's AICc.
  std::map<std::string, std::map<std::string, double>> coef;
  std::map<std::string, std::optional<double>> aicc, r2;
  const auto number = [&](const detail::Node& n, const std::string& field) -> std::optional<double> {
    try {
      return parse_number(n.scalar());
    } catch (const std::invalid_argument& e) {
      diag.fail(n, field, e.what());
      return std::nullopt;
    }
  };
  const detail::Node coefs = child(root, "coefficients");
  if (!coefs.defined() || !coefs.is_sequence())
    diag.fail(coefs.defined() ? coefs : root, "coefficients", std::string(tr("must be a list")));
  else
    for (std::size_t i = 0; i < coefs.size(); ++i) {
      const std::string at = detail::item_path("coefficients", i);
      const auto model = scalar(coefs[i], "model", at + ".model");
      const auto param = scalar(coefs[i], "parameter", at + ".parameter");
      const detail::Node est = child(coefs[i], "estimate");
      if (!model || !param) continue;
      if (!est.is_scalar()) {
        diag.fail(coefs[i], at + ".estimate", std::string(tr("is required")));
        continue;
      }
      if (auto v = number(est, at + ".estimate")) coef[*model][*param] = *v;
    }
  const detail::Node models = child(root, "models");
  if (models.defined() && models.is_sequence())
    for (std::size_t i = 0; i < models.size(); ++i) {
      const detail::Node name = child(models[i], "model"), a = child(models[i], "aicc"),
                         r = child(models[i], "r_squared");
      if (!name.defined() || !name.is_scalar()) continue;
      if (r.defined() && r.is_scalar() && r.scalar() != "null")
        r2[name.scalar()] = number(r, detail::item_path("models", i) + ".r_squared");
      aicc[name.scalar()] = a.defined() && a.is_scalar() && a.scalar() != "null"
                                ? number(a, detail::item_path("models", i) + ".aicc")
                                : std::nullopt;
    }
  double max_gpus = 0;
  const detail::Node points = child(root, "points");
  if (points.defined() && points.is_sequence())
    for (std::size_t i = 0; i < points.size(); ++i)
      if (const detail::Node g = child(points[i], "gpus"); g.defined() && g.is_scalar())
        if (auto v = number(g, detail::item_path("points", i) + ".gpus")) max_gpus = std::max(max_gpus, *v);
  diag.throw_if_any();
  // The USL unless Amdahl fits clearly better by AICc (fewer parameters, same data).
  std::string pick = coef.contains("usl") ? "usl" : "amdahl";
  if (coef.contains("usl") && coef.contains("amdahl") && aicc["usl"] && aicc["amdahl"] &&
      *aicc["amdahl"] < *aicc["usl"])
    pick = "amdahl";
  if (!coef.contains(pick) || !coef[pick].contains("sigma")) {
    diag.fail(coefs.defined() ? coefs : root, "coefficients", std::string(tr("has no usl or amdahl sigma")));
    diag.throw_if_any();
  }
  MeasuredScaling m;
  m.sigma = coef[pick]["sigma"];
  m.kappa = pick == "usl" ? coef[pick]["kappa"] : 0.0;
  m.max_measured_gpus = max_gpus;
  m.source = fmt::format("{}, {}", path, pick == "usl" ? "USL" : "Amdahl");
  m.r_squared = r2[pick];
  if (!(m.sigma >= 0 && m.sigma < 1) || !(m.kappa >= 0 && m.kappa < 1))
    throw InputError(SourceLocation{path}, "coefficients",
                     trf("σ = {:g}, κ = {:g} are outside [0, 1): not a scaling law", m.sigma, m.kappa));
  return m;
}

std::string network_shown(const Cluster& c) {
  // resolve_cluster's label for a bandwidth given without a named network.
  if (!c.network.starts_with("custom ")) return c.network;
  return trf("custom {:g} Gb/s", c.network_bandwidth.value() * 8 / 1e9);
}

}  // namespace gpuplan
