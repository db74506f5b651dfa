#include "gpuplan/i18n.h"
#include "gpuplan/commands/estimate.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <fmt/format.h>

#include "gpuplan/cost/rent.h"
#include "gpuplan/cost/run.h"
#include "gpuplan/cost/spot.h"
#include "gpuplan/efficiency.h"
#include "gpuplan/error.h"
#include "gpuplan/fields.h"
#include "gpuplan/job.h"
#include "gpuplan/job_fields.h"

namespace gpuplan {
namespace {

std::string human_seconds(Seconds s) {
  const double v = s.count();
  if (v < 1e-3) return fmt::format("{:.0f} µs", v * 1e6);
  if (v < 1) return fmt::format("{:.0f} ms", v * 1e3);
  if (v < 120) return fmt::format("{:.2f} s", v);
  if (v < 7200) return fmt::format("{:.1f} min", v / 60);
  if (v < 3 * 86400) return fmt::format("{:.1f} h", v / 3600);
  return trf("{:.1f} days", v / 86400);
}

struct CostRow {
  const Offer* offer;
  std::string mode;
  int instances;
  std::string layout;  ///< the layout this offer's shape runs
  double run_hours;    ///< this configuration's run time (spot: with interruptions)
  double billed_hours;
  Money compute;
  Money storage;
  Money support;
  Money total;
  std::string note;
  EstimateCostLine line;      ///< the same row for the workbook
  bool link_assumed = false;  ///< timed over a link between instances the catalog does not state
  double shape_ratio = 1;     ///< its run time over the job's own cluster's, spot reclaims aside
};

// An offer whose shape cannot run the job, and why (never priced).
struct LeftOut {
  const Offer* offer;
  int instances;
  std::string why;
};

// Flags are --set overrides with a name of their own.
ResolvedJob resolve_estimate(const Context& ctx, const EstimateQuery& q) {
  std::vector<FlagOverride> flags;
  if (q.mfu) flags.push_back({"--mfu", "job.mfu", *q.mfu});
  if (q.gpu) flags.push_back({"--gpu", "cluster.gpu", *q.gpu});
  if (q.gpus) flags.push_back({"--gpus", "cluster.gpus", *q.gpus});
  if (q.layout) flags.push_back({"--layout", "job.layout", *q.layout});
  return load_job_with_flags(q.job_file, q.sets, flags, ctx);
}

// "124.8 TFLOP/s of 312.0 peak bf16", and for fp8 the speed-up that takes it past the bf16 basis.
std::string achieved_text(const Estimate& e, const Job& job, const Gpu& gpu) {
  const Precision basis = mfu_basis(gpu, job.precision);
  std::string s = trf("{:.1f} TFLOP/s of {:.1f} peak {}", e.per_gpu.value() / 1e12, mfu_peak_tflops(gpu, job.precision),
                      to_string(basis));
  if (job.precision == Precision::kFp8) s += trf(" (MFU × fp8 speed-up {:g}×)", job.fp8_speedup);
  return s;
}

// Model FLOPs over the whole wall time and every GPU's peak (efficiency.h's
// basis); full recompute's extra forward pass is work, not model FLOPs.
double end_to_end_mfu(const Estimate& e, const Job& job, const Cluster& cl) {
  const double peak = mfu_peak_tflops(*cl.gpu, job.precision) * 1e12 * cl.gpus;
  Job model = job;
  model.recompute = Recompute::kSelective;
  const double useful = training_flops_multiplier(model) / training_flops_multiplier(job);
  return peak > 0 && e.wall.count() > 0 ? e.total_flops.value() * useful / (e.wall.count() * peak) : 0.0;
}

std::string gpu_hours_text(double h) { return h < 100 ? fmt::format("{:.1f}", h) : fmt::format("{:.0f}", h); }

// What the default MFU's band (efficiency.h: about ±1σ of published runs)
// makes of the answer; none when the MFU is given (measured).
struct Band {
  MfuDefault mfu{};
  Estimate slow{}, fast{};  ///< at the band's low and high MFU
  std::optional<Money> cheapest{}, cheapest_slow{}, cheapest_fast{};
};

Table summary_table(const Estimate& e, const Job& job, const Cluster& cl, const std::optional<Band>& band) {
  const Gpu& gpu = *cl.gpu;
  Table sum;
  sum.name = "summary";
  sum.columns = {{.key = "item", .label = tr_noop("item"), .words = true}, {"value", tr_noop("value")}};
  const auto add = [&](const std::string& k, const std::string& v) { sum.add_row({k, v}); };
  if (e.flops_per_token > 0) add(tr_noop("FLOPs per token"), fmt::format("{:.3g}", e.flops_per_token));
  add(tr_noop("training FLOPs"), fmt::format("{:.3g}", e.total_flops.value()));
  add(tr_noop("MFU"),
      !band ? trf("{:.3g}% ({})", e.mfu * 100, e.mfu_source == "given" ? tr("given") : tr("default"))
      : band->mfu.stack.empty()
          ? trf("{:.0f}% (default; its band {:.0f}–{:.0f}%)", e.mfu * 100, band->mfu.low * 100, band->mfu.high * 100)
          : trf("{:.0f}% (default for job.stack {}; its band {:.0f}–{:.0f}%)", e.mfu * 100, band->mfu.stack,
                band->mfu.low * 100, band->mfu.high * 100));
  add(tr_noop("achieved per GPU"), achieved_text(e, job, gpu));
  if (e.wall.count() > 0 && e.flops_per_token > 0)
    add(tr_noop("end-to-end MFU"), trf("{:.0f}% (model FLOPs over the whole run: communication, bubbles, "
                                       "checkpoints and failures included)",
                                       end_to_end_mfu(e, job, cl) * 100));
  add(tr_noop("layout"), to_string(e.layout));
  add(tr_noop("memory per GPU"), trf("{:.1f} GB of {:.1f} GB usable: {}", e.memory.total.value() / kGB,
                                     e.memory.usable.value() / kGB, e.memory.fits ? tr("fits") : tr("DOES NOT FIT")));
  add(tr_noop("steps"), fmt::format("{:.0f}", std::ceil(e.steps)));
  add(tr_noop("step time"), human_seconds(e.step.step));
  add(tr_noop("bottleneck"), trf("{} ({:.0f}% GPU utilisation)", tr(e.step.bottleneck), e.step.gpu_utilisation * 100));
  const int nodes = (cl.gpus + cl.gpus_per_node - 1) / cl.gpus_per_node;
  if (nodes > 1)
    add(tr_noop("scaling"), trf("{:.2f}× one node's throughput on {} nodes ({:.0f}% efficiency, {})",
                                e.speedup_vs_one_node, nodes, e.scaling_efficiency * 100, network_shown(cl)));
  if (band) {
    add(tr_noop("wall time"), trf("{} ({} to {} over the MFU band)", human_seconds(e.wall),
                                  human_seconds(band->fast.wall), human_seconds(band->slow.wall)));
    add(tr_noop("GPU-hours"), trf("{} ({} to {})", gpu_hours_text(e.gpu_hours), gpu_hours_text(band->fast.gpu_hours),
                                  gpu_hours_text(band->slow.gpu_hours)));
  } else {
    add(tr_noop("wall time"), human_seconds(e.wall));
    add(tr_noop("GPU-hours"), gpu_hours_text(e.gpu_hours));
  }
  if (e.checkpoint_interval_steps && *e.checkpoint_interval_steps >= e.steps)
    add(tr_noop("checkpoints"),
        trf("{:.1f} GB once, at the end (the interval is longer than the run)", e.checkpoint_size.value() / kGB));
  else if (e.checkpoint_interval_steps)
    add(tr_noop("checkpoints"),
        trf("{:.1f} GB every {:.0f} steps", e.checkpoint_size.value() / kGB, *e.checkpoint_interval_steps));
  return sum;
}

Table memory_table(const Estimate& e, const Cluster& cl) {
  Table mem;
  mem.name = "memory";
  mem.title = trf("Memory per GPU on {}× {} ({})", cl.gpus, cl.gpu->id, to_string(e.layout));
  mem.columns = {{.key = "component", .label = tr_noop("component"), .words = true},
                 {"gb_per_gpu", tr_noop("GB/GPU"), 2}};
  mem.add_row({std::string(tr_noop("weights")), e.memory.weights.value() / kGB});
  mem.add_row({std::string(tr_noop("gradients")), e.memory.gradients.value() / kGB});
  mem.add_row({std::string(tr_noop("optimizer states")), e.memory.optimizer.value() / kGB});
  mem.add_row({std::string(tr_noop("activations")), e.memory.activations.value() / kGB});
  mem.add_row({std::string(tr_noop("total")), e.memory.total.value() / kGB});
  mem.add_row({std::string(tr_noop("usable VRAM")), e.memory.usable.value() / kGB});
  return mem;
}

// The minimum card count on every catalog GPU with a rate at the job's
// precision, in servers of the cluster's size, with the layout that fits.
Table fit_table(const Catalog& catalog, const Job& job, const Cluster& cl, const LayoutPin& pin) {
  Table fit;
  fit.name = "fit";
  fit.title = trf("Fit on every catalog GPU with {} (servers of {})", to_string(job.precision), cl.gpus_per_node);
  fit.columns = {{"gpu", tr_noop("gpu")},
                 {"memory_gb", tr_noop("mem GB"), 1},
                 {"need_gb_per_gpu", trf("GB/GPU at {}", cl.gpus), 1},
                 {"fits", trf("fits at {}", cl.gpus)},
                 {"minimum_gpus", tr_noop("min GPUs")},
                 {"layout", tr_noop("layout at the minimum")}};
  const TrainingModel model(job);
  for (const Gpu& g : catalog.gpus) {
    if (!g.dense_tflops.contains(job.precision)) continue;
    // The layout estimate() would choose on this GPU with the cluster's network,
    // so the cluster's own GPU shows the memory of the estimate above.
    const Configuration c{&g, cl.gpus, server_shape(g, cl.gpus_per_node, cl.network_bandwidth, fabric_of(cl.network)),
                          cl.comm_overlap};
    const auto at = model.best_layout(c, model.achieved_flops(g), cl.usable_memory, pin);
    const auto min = minimum_gpus(job, g, cl.gpus_per_node, 4096, cl.usable_memory);
    fit.add_row({g.id, g.memory.value() / kGB, at ? Cell{at->memory.total.value() / kGB} : Cell{},
                 at && at->memory.fits, min ? Cell{static_cast<std::int64_t>(min->first)} : Cell{},
                 min ? Cell{to_string(min->second)} : Cell{std::string(tr("does not fit on 4,096"))}});
  }
  return fit;
}

// "compute" is a cost item elsewhere (算力); in a step it is the time spent computing.
constexpr const char* kStepPart = "step part: ";
[[maybe_unused]] constexpr const char* kStepPartWords[] = {tr_noop("step part: compute")};

Table step_table(const Estimate& e) {
  Table step;
  step.name = "step";
  step.title = tr_noop("Step time");
  step.columns = {{.key = "part", .label = tr_noop("part"), .words = true, .context = kStepPart},
                  {"seconds", tr_noop("seconds"), 4},
                  {"share", tr_noop("share of step"), 3}};
  const auto part = [&](const char* name, Seconds s) {
    step.add_row({std::string(name), s.count(), e.step.step.count() > 0 ? s / e.step.step : 0.0});
  };
  part(tr_noop("compute"), e.step.compute);
  part(tr_noop("pipeline bubble"), e.step.bubble);
  part(tr_noop("data loading (overlapped)"), e.step.data);
  part(tr_noop("data-parallel traffic"), e.step.communication);
  part(tr_noop("tensor-parallel all-reduces"), e.step.tensor_parallel);
  part(tr_noop("pipeline transfers"), e.step.pipeline);
  part(tr_noop("expert all-to-alls (MoE)"), e.step.expert_parallel);
  part(tr_noop("context-parallel K/V passes"), e.step.context_parallel);
  part(tr_noop("exposed communication"), e.step.exposed_communication);
  part(tr_noop("checkpointing (amortised)"), e.step.checkpoint);
  part(tr_noop("interruptions (amortised)"), e.step.interruptions);
  part(tr_noop("step"), e.step.step);
  return step;
}

// The cost of the run on every offer of the GPU and every mode it sells,
// each priced from its own configuration: the offer's instance shape, the
// instances the job's GPUs need and the best layout on them; cheapest first.
struct CostRows {
  std::vector<CostRow> rows{};
  std::vector<LeftOut> left_out{};
  int out_of_range = 0;  ///< amounts beyond a trillion: left out, and said so
  bool spot = false;     ///< some offer sells spot
  // Each offer's run time over the job's own cluster's (spot reclaims aside).
  double fastest = std::numeric_limits<double>::infinity(), slowest = 0;
  int assumed_links = 0;  ///< offers timed over a link between instances the catalog does not state
};

std::string join_notes(std::string a, const std::string& b) { return a.empty() ? b : b.empty() ? a : a + "; " + b; }

void add_cost_row(CostRows& out, const Offer& o, const OfferPrices& prices, BillingMode mode, double hours, int n,
                  double wall_h, double dataset_gb, const std::string& layout, std::string note) {
  const std::optional<RunCost> c = run_cost(prices, mode, hours, n, dataset_gb);
  if (!c) {
    ++out.out_of_range;  // not a plan anyone runs; say so instead of failing
    return;
  }
  if (mode == BillingMode::kMonthly) note = join_notes(trf("{:g} month(s), paid whether used or not", c->months), note);
  EstimateCostLine line{o.id,
                        o.provider,
                        o.region,
                        std::string(to_string(mode)),
                        o.gpus,
                        n,
                        prices.price(mode)->units(),
                        o.billing_granularity.count() / 3600.0,
                        o.minimum_billing.count() / 3600.0,
                        wall_h > 0 ? hours / wall_h : 1.0,
                        prices.storage_priced ? prices.storage_per_gb_month.units() : 0.0,
                        prices.support_share,
                        c->billed_instance_hours,
                        c->compute.units(),
                        c->storage.units(),
                        c->support.units(),
                        c->total.units()};
  out.rows.push_back(CostRow{&o, std::string(to_string(mode)), n, layout, hours, c->billed_instance_hours, c->compute,
                             c->storage, c->support, c->total, std::move(note), std::move(line)});
}

// Why an offer's shape cannot run the job, or "" when it can.
std::string cannot_run(const OfferShape& shape, int instances, const std::optional<LayoutChoice>& choice) {
  if (instances > shape.shape.max_instances)
    return shape.shape.fabric == "none"
               ? trf("needs {} instances; single instances cannot be joined{}", instances,
                     shape.assumed.empty() ? "" : tr(" (assumed: the catalog states no fabric)"))
               : trf("needs {} instances; the offer lets one job join {}", instances, shape.shape.max_instances);
  if (!choice) return std::string(tr("no layout gives every data-parallel rank a micro-batch"));
  if (!choice->memory.fits)
    return trf("does not fit even with TP/PP/ZeRO-3: {:.1f} GB per GPU at best", choice->memory.total.value() / kGB);
  return {};
}

// What a row's numbers rest on that its columns do not show: the checkpoint
// storage its own instance count defaults to (when not the summary's), the link
// between instances when assumed, and GPUs rented but left idle.
std::string row_notes(const ResolvedJob& rj, const Offer& o, int n, std::optional<BytesPerSecond> assumed_link,
                      std::string_view tier) {
  std::string out;
  if (!tier.empty())
    out = n == 1 ? trf("checkpoints to {} (checkpoint.storage's default for one instance)", tier)
                 : trf("checkpoints to {} (checkpoint.storage's default for {} instances)", tier, n);
  if (assumed_link)
    out = join_notes(out, trf("{} instances linked at {:g} Gb/s per instance (assumed: the offer states none)", n,
                              assumed_link->value() * 8 / 1e9));
  // Instances are rented whole: a job smaller than them pays for GPUs it leaves idle.
  if (n * o.gpus > rj.cluster.gpus)
    out = join_notes(out, trf("uses {} of the {} GPUs rented: billed whole", rj.cluster.gpus, n * o.gpus));
  return out;
}

void offer_rows(CostRows& out, const Context& ctx, const CurrencyConverter& fx, const ResolvedJob& rj,
                const Estimate& e, const Offer& o) {
  const Cluster& cl = rj.cluster;
  const OfferShape shape = offer_shape(o, *cl.gpu, ctx.catalog());
  const Configuration cfg{cl.gpu, cl.gpus, shape.shape, cl.comm_overlap};
  const int n = cfg.instances();
  std::string_view tier;
  const TrainingModel model(job_on_instances(rj, n, &tier));
  std::optional<LayoutChoice> choice;
  if (n <= shape.shape.max_instances) choice = model.best_layout(cfg, e.per_gpu.value(), cl.usable_memory, rj.layout);
  if (const std::string why = cannot_run(shape, n, choice); !why.empty()) {
    out.left_out.push_back(LeftOut{&o, n, join_notes(ctx.catalog().instance_if_ambiguous(o), why)});
    return;
  }
  const double wall_h = e.wall.count() / 3600.0;
  const double run_h = choice->step.step.count() * model.steps() / 3600.0;
  const std::string layout = to_string(choice->layout);
  const OfferPrices prices = offer_prices(o, ctx.catalog(), fx);
  const double dataset_gb = rj.dataset.value() / kGB;
  // A link between instances the catalog does not state decides a multi-instance row's time: said on the row.
  const bool assumed = n > 1 && !shape.assumed.empty();
  const std::string named = ctx.catalog().instance_if_ambiguous(o);
  const std::string notes = row_notes(rj, o, n, assumed ? std::optional(shape.shape.network) : std::nullopt, tier);
  const double ratio = wall_h > 0 ? run_h / wall_h : 1;
  const std::size_t first = out.rows.size();
  const std::string note = join_notes(named, notes);
  if (o.hourly) add_cost_row(out, o, prices, BillingMode::kHourly, run_h, n, wall_h, dataset_gb, layout, note);
  if (o.spot) {
    // Any instance's reclaim stops the job: λ = failures + rate per instance × instances.
    const StepBreakdown& st = choice->step;
    const double rate = st.interruptions_per_hour + rj.spot_interruptions_per_day / 24.0 * n;
    const double spot_h =
        st.work.count() * model.steps() * spot_overhead(model.interruptions(st, rate)).wall_per_work / 3600.0;
    out.spot = true;
    add_cost_row(
        out, o, prices, BillingMode::kSpot, spot_h, n, wall_h, dataset_gb, layout,
        join_notes(named, join_notes(trf("+{:.1f}% time for spot reclaims", (spot_h / run_h - 1) * 100), notes)));
  }
  if (o.monthly) add_cost_row(out, o, prices, BillingMode::kMonthly, run_h, n, wall_h, dataset_gb, layout, note);
  if (out.rows.size() == first) return;  // every amount beyond range: nothing shown, nothing to say
  for (std::size_t i = first; i < out.rows.size(); ++i)
    out.rows[i].link_assumed = assumed, out.rows[i].shape_ratio = ratio;
  out.fastest = std::min(out.fastest, ratio), out.slowest = std::max(out.slowest, ratio);
  if (assumed) ++out.assumed_links;
}

CostRows cost_rows(const Context& ctx, const CurrencyConverter& fx, const ResolvedJob& rj, const Estimate& e) {
  CostRows out;
  for (const Offer& o : ctx.catalog().offers)
    if (o.gpu == rj.cluster.gpu->id) offer_rows(out, ctx, fx, rj, e, o);
  std::stable_sort(out.rows.begin(), out.rows.end(),
                   [](const CostRow& a, const CostRow& b) { return a.total < b.total; });
  return out;
}

Table costs_table(const CostRows& costs, const Gpu& gpu, Currency currency) {
  const std::string CUR(currency.code());
  Table t;
  t.name = "costs";
  t.currency = currency;
  t.title = trf("Cost on every {} offer, each on its own shape and layout, cheapest first", gpu.id);
  t.columns = {{"offer", tr_noop("offer"), 0, false},
               {"provider", tr_noop("provider")},
               {"region", tr_noop("region")},
               {.key = "mode", .label = tr_noop("mode"), .words = true},
               {"instances", tr_noop("inst")},
               {"layout", tr_noop("layout")},
               {"run_hours", tr_noop("run h"), 1},
               {"billed_instance_hours", tr_noop("billed inst-h"), 1},
               {"compute", tr_noop("compute") + (" " + CUR), 2},
               {"storage", tr_noop("storage"), 2},
               {"support", tr_noop("support"), 2},
               {"total", tr_noop("total") + (" " + CUR), 2},
               {"note", tr_noop("note")}};
  for (const CostRow& r : costs.rows)
    t.add_row({r.offer->id, r.offer->provider, r.offer->region, r.mode, static_cast<std::int64_t>(r.instances),
               r.layout, r.run_hours, r.billed_hours, r.compute, r.storage, r.support, r.total,
               r.note.empty() ? Cell{} : Cell{r.note}});
  // Offers whose shape cannot run the job: listed with the reason, never priced.
  for (const LeftOut& x : costs.left_out)
    t.add_row({x.offer->id, x.offer->provider, x.offer->region, Cell{}, static_cast<std::int64_t>(x.instances), Cell{},
               Cell{}, Cell{}, Cell{}, Cell{}, Cell{}, Cell{}, x.why});
  return t;
}

// ---- charts (HTML and --format svg) ----

// The cheapest offers' cost of the run, by item: one bar an offer and mode.
Chart cost_chart(const CostRows& costs, Currency currency) {
  constexpr std::size_t kMostBars = 12;  // the cheapest; the table lists them all
  Chart ch;
  ch.kind = Chart::Kind::kStackedBars;
  ch.name = "offer_costs";
  ch.title = tr_noop("What the run costs on each offer, by item (the cheapest first)");
  ch.words = true;
  ch.y_label = std::string(currency.code());
  ChartSeries compute{tr_noop("compute"), {}}, storage{tr_noop("storage"), {}}, support{tr_noop("support"), {}};
  for (std::size_t k = 0; k < costs.rows.size() && k < kMostBars; ++k) {
    const CostRow& r = costs.rows[k];
    ch.categories.push_back(fmt::format("{} {} {}", r.offer->provider, r.offer->region, tr(r.mode)));
    const double x = static_cast<double>(k);
    compute.points.emplace_back(x, r.compute.units());
    storage.points.emplace_back(x, r.storage.units());
    support.points.emplace_back(x, r.support.units());
  }
  ch.series = {std::move(compute), std::move(storage), std::move(support)};
  return ch;
}

// Where a step's time goes: the parts that add up to it (overlapped work left out).
Chart step_chart(const Estimate& e) {
  const StepBreakdown& st = e.step;
  Chart ch;
  ch.kind = Chart::Kind::kBars;
  ch.name = "step_time";
  ch.title = trf("Where a step's {:.3g} s go", st.step.count());
  ch.x_label = tr("seconds a step");  // built in the reader's language: a step's parts read as in the table
  const Seconds busy = st.compute + st.bubble;
  ChartSeries seconds{std::string(tr("seconds a step")), {}};
  for (const auto& [name, part] : {std::pair{tr_noop("compute"), st.compute},
                                   {tr_noop("pipeline bubble"), st.bubble},
                                   {tr_noop("waiting for data"), st.data > busy ? st.data - busy : Seconds(0)},
                                   {tr_noop("exposed communication"), st.exposed_communication},
                                   {tr_noop("checkpointing (amortised)"), st.checkpoint},
                                   {tr_noop("interruptions (amortised)"), st.interruptions}}) {
    seconds.points.emplace_back(static_cast<double>(ch.categories.size()), part.count());
    ch.categories.push_back(translate_word({.key = "part", .label = "", .words = true, .context = kStepPart}, name));
  }
  ch.series = {std::move(seconds)};
  return ch;
}

EstimateWorkbook workbook_data(const std::string& title, const ResolvedJob& rj, const Estimate& e,
                               const std::vector<CostRow>& rows, Currency currency) {
  EstimateWorkbook wbd;
  wbd.title = title;
  wbd.job = rj.job;
  wbd.gpus = rj.cluster.gpus;
  wbd.gpu = rj.cluster.gpu->id;
  wbd.peak_tflops = mfu_peak_tflops(*rj.cluster.gpu, rj.job.precision);
  wbd.mfu_basis = mfu_basis(*rj.cluster.gpu, rj.job.precision);
  wbd.precision_speedup = rj.job.precision == Precision::kFp8 ? rj.job.fp8_speedup : 1.0;
  wbd.estimate = e;
  wbd.comm_overlap = rj.cluster.comm_overlap;
  wbd.dataset_gb = rj.dataset.value() / kGB;
  wbd.currency = currency;
  for (const CostRow& r : rows) wbd.lines.push_back(r.line);
  return wbd;
}

// ---- defaults that decide the answer ----

std::string network_text(const Cluster& c) {
  return trf("{} ({:g} Gb/s per node)", network_shown(c), c.network_bandwidth.value() * 8 / 1e9);
}

bool defaulted(const ResolvedJob& rj, std::string_view key) {
  const std::string prefix = std::string(key) + " = ";
  return std::any_of(rj.defaults_used.begin(), rj.defaults_used.end(),
                     [&](const std::string& d) { return d.starts_with(prefix); });
}

// A defaulted input and a plausible value the user's cluster may well have.
struct Alternative {
  const char* key;
  std::string instead;  ///< "1600 Gb/s per node (…)"
  void (*apply)(Job&, Cluster&);
};

std::vector<Alternative> alternatives(const ResolvedJob& rj) {
  std::vector<Alternative> out;
  const Cluster& c = rj.cluster;
  if (c.gpus > c.gpus_per_node)
    out.push_back({"cluster.network",
                   trf("{} Gb/s per node (200 Gb/s InfiniBand per GPU, the fabric of Llama 2's clusters, "
                       "Touvron et al. 2023 §2.2)",
                       200 * c.gpus_per_node),
                   [](Job&, Cluster& cl) { cl.network_bandwidth = BytesPerSecond(200e9 / 8 * cl.gpus_per_node); }});
  out.push_back({"checkpoint.write_bandwidth", std::string(tr("ten times its write bandwidth")), [](Job& j, Cluster&) {
                   j.checkpoint_bandwidth = j.checkpoint_bandwidth * 10.0;
                   j.checkpoint_aggregate = j.checkpoint_aggregate * 10.0;
                 }});
  out.push_back({"data.read_bandwidth", std::string(tr("ten times its read bandwidth")),
                 [](Job& j, Cluster&) { j.read_bandwidth = j.read_bandwidth * 10.0; }});
  return out;
}

// A warning for each defaulted input whose plausible alternative moves the
// wall time on the job's own cluster by more than 20%: the answer is then the
// default's, not the user's, and they should say what they have.
std::vector<std::string> deciding_defaults(const ResolvedJob& rj, const Estimate& e) {
  std::vector<std::string> out;
  if (!e.memory.fits || !(e.wall.count() > 0)) return out;
  for (const Alternative& a : alternatives(rj)) {
    if (!defaulted(rj, a.key)) continue;
    Job job = rj.job;
    Cluster cl = rj.cluster;
    a.apply(job, cl);
    const Estimate alt = estimate(job, cl, rj.layout);
    const double change = alt.wall / e.wall - 1;
    if (std::abs(change) <= 0.2) continue;
    out.push_back(
        trf("{} was not given and its default decides this estimate: {} makes the run {} on {}× {}; with {} it "
            "takes {} ({:+.0f}%). Give {} as your cluster has it.",
            a.key, a.key == std::string_view("cluster.network") ? network_text(rj.cluster) : tr("the default"),
            human_seconds(e.wall), rj.cluster.gpus, rj.cluster.gpu->id, a.instead, human_seconds(alt.wall),
            change * 100, a.key));
  }
  return out;
}

// JSON: the estimate in numbers, and the rates used.
Json estimate_extra(const Estimate& e, const Job& job, const Cluster& cl, const CurrencyConverter& fx,
                    const std::optional<Band>& band) {
  Json est = Json::object();
  est["flops_per_token"] = e.flops_per_token;
  est["training_flops"] = e.total_flops.value();
  est["mfu"] = e.mfu;
  est["mfu_source"] = e.mfu_source;
  est["end_to_end_mfu"] = end_to_end_mfu(e, job, cl);
  est["achieved_tflops_per_gpu"] = e.per_gpu.value() / 1e12;
  est["fits"] = e.memory.fits;
  est["steps"] = e.steps;
  est["step_seconds"] = e.step.step.count();
  // Steady state, as a benchmark measures it: no checkpoints, no interruptions.
  est["step_work_seconds"] = e.step.work.count();
  est["samples_per_second"] = job.global_batch / e.step.work.count();
  est["tokens_per_second"] =
      job.sequence_length > 0 ? Json(job.global_batch * job.sequence_length / e.step.work.count()) : Json();
  est["bottleneck"] = e.step.bottleneck;
  est["gpu_utilisation"] = e.step.gpu_utilisation;
  est["wall_hours"] = e.wall.count() / 3600;
  est["gpu_hours"] = e.gpu_hours;
  // Over the default MFU's band (null when the MFU is given): [at its high end, at its low end].
  const auto range = [&](double fast, double slow) { return band ? Json(Json::Array{fast, slow}) : Json(); };
  est["mfu_band"] = band ? Json(Json::Array{band->mfu.low, band->mfu.high}) : Json();
  est["wall_hours_range"] = band ? range(band->fast.wall.count() / 3600, band->slow.wall.count() / 3600) : Json();
  est["gpu_hours_range"] = band ? range(band->fast.gpu_hours, band->slow.gpu_hours) : Json();
  est["speedup_vs_one_node"] = e.speedup_vs_one_node;
  est["scaling_efficiency"] = e.scaling_efficiency;
  est["checkpoint_gb"] = e.checkpoint_size.value() / kGB;
  est["checkpoint_interval_steps"] = e.checkpoint_interval_steps ? Json(*e.checkpoint_interval_steps) : Json();
  Json ex = Json::object();
  ex["estimate"] = std::move(est);
  ex["fx_rates_used"] = fx.used_json();
  return ex;
}

// An empty cost table is said, with what the catalog does have: a price to buy the card.
void no_offer_note(Report& rep, const Gpu& gpu, std::string_view market, const Context& ctx,
                   const CurrencyConverter& fx) {
  std::string buy = "nor a purchase price";
  if (const Purchase* card = find_purchase(ctx.catalog(), PurchaseKind::kCard, gpu.id, market))
    buy = trf("to buy, a card{} at {} {} (catalog {}: {}); gpuplan compare --set buy.gpu={} weighs owning it",
              card->region.empty() ? "" : " in " + card->region, to_pretty_string(fx.convert(card->price.amount)),
              fx.display().code(), card->id, cite(card->provenance), gpu.id);
  rep.notes.insert(rep.notes.begin(), trf("No cost rows: the catalog has no offer that rents {}; {}.", gpu.id, buy));
}

// Rows whose time is far from the summary's are said at the top, with why: they
// run on their offers' instances and links, not on the cluster the job describes.
void rows_off_cluster_note(Report& rep, const CostRows& costs, const Estimate& e) {
  std::string why =
      std::string(tr("each is timed on its offer's instances and the link between them, not on cluster.*"));
  if (costs.assumed_links > 0)
    why += trf("; {} offer(s) state no link between instances and are timed at an assumed {:g} Gb/s per instance",
               costs.assumed_links, kAssumedOfferNetwork.value() * 8 / 1e9);
  const std::string lo = fmt::format("{:.2f}", costs.fastest), hi = fmt::format("{:.2f}", costs.slowest);
  rep.notes.push_back(
      trf("Cost rows take {}× (spot reclaims aside) the {} the summary gives for the job's own cluster: {}.",
          lo == hi ? lo : lo + "–" + hi, human_seconds(e.wall), why));
}

void estimate_notes(Report& rep, const ResolvedJob& rj, const Estimate& e, const CostRows& costs, const Context& ctx,
                    const CurrencyConverter& fx, bool explain) {
  rep.warnings = rj.warnings;
  for (std::string& w : deciding_defaults(rj, e)) rep.warnings.push_back(std::move(w));
  if (!rj.job.mfu && rj.cluster.gpu->software != "cuda")
    rep.warnings.push_back(
        trf("the MFU default is not calibrated for {} (software stack {}): every published run behind it "
            "is on CUDA; measure a trial run and give --mfu (gpuplan fit mfu)",
            rj.cluster.gpu->id, rj.cluster.gpu->software));
  if (!e.memory.fits)
    rep.notes.push_back(
        trf("Does not fit: {:.1f} GB per GPU needed at best ({}), {:.1f} GB usable on {}. "
            "See the fit table for the minimum card count per GPU.",
            e.memory.total.value() / kGB, to_string(e.layout), e.memory.usable.value() / kGB, rj.cluster.gpu->id));
  if (explain && e.runner_up)
    rep.notes.push_back(trf("Runner-up layout: {}, a {:.1f}% slower step.", to_string(*e.runner_up),
                            (e.runner_up_step / e.step.step - 1) * 100));
  for (const auto& n : e.notes) rep.notes.push_back(n);
  rep.notes.push_back(std::string(tr(
      "Step = max(compute + pipeline bubble, data loading) + exposed communication, stretched by checkpoints and "
      "interruptions (Daly's complete model: failures at cluster.gpu_mtbf per GPU, restart cluster.restart); FLOPs = "
      "6·N + 12·L·s·h a token (PaLM's model FLOPs; 4/6 of it for LoRA, 8/6 with full recompute). Each cost row is "
      "timed on its own offer's instance shape with the best layout there.")));
  if (costs.slowest > 1.25 || costs.fastest < 0.8) rows_off_cluster_note(rep, costs, e);
  // The row a budget takes is the cheapest: when an assumed link decides its time, that is a warning.
  if (!costs.rows.empty() && costs.rows.front().link_assumed && costs.rows.front().shape_ratio > 1.25) {
    const CostRow& r = costs.rows.front();
    rep.warnings.push_back(
        trf("the cheapest row ({}, {}) is timed on {} instances joined at an assumed {:g} Gb/s each (the catalog "
            "states no network for the offer): it takes {:.1f}× the {} of the job's own cluster. Check the offer's "
            "network before budgeting with it, or give it in a catalog (network: 400Gbps).",
            r.offer->id, r.mode, r.instances, kAssumedOfferNetwork.value() * 8 / 1e9, r.shape_ratio,
            human_seconds(e.wall)));
  }
  if (costs.rows.empty() && costs.left_out.empty()) no_offer_note(rep, *rj.cluster.gpu, rj.plan.market, ctx, fx);
  if (!costs.left_out.empty())
    rep.notes.push_back(trf("{} offer(s) cannot run this job on {} GPUs: listed without a price.",
                            costs.left_out.size(), rj.cluster.gpus));
  if (costs.spot)
    rep.notes.push_back(
        trf("Spot rows: {:g} reclaim(s) a day per instance (cost.spot_interruptions_per_day; any instance's "
            "reclaim stops the job) on top of hardware failures, each costing a restart and the work since "
            "the last checkpoint (Daly's complete model).",
            rj.spot_interruptions_per_day));
  if (costs.out_of_range > 0)
    rep.notes.push_back(trf("{} cost row(s) left out: the amount is beyond a trillion.", costs.out_of_range));
  rep.notes.push_back(trf("Job: {}. {}", rj.source, ctx.catalog_note()));
  for (auto& n : fx.notes()) rep.notes.push_back(std::move(n));
  add_defaults_notes(rep, rj.defaults_used);
}

std::optional<Money> cheapest(const CostRows& c) {
  if (c.rows.empty()) return std::nullopt;
  return c.rows.front().total;
}

std::optional<Band> mfu_band(const Context& ctx, const CurrencyConverter& fx, const ResolvedJob& rj,
                             const CostRows& costs) {
  if (rj.job.mfu) return std::nullopt;
  Band b;
  b.mfu = default_mfu(*rj.cluster.gpu, rj.job);
  if (!(b.mfu.low > 0 && b.mfu.high > b.mfu.low)) return std::nullopt;
  const auto at = [&](double mfu, Estimate& e, std::optional<Money>& cost) {
    ResolvedJob r = rj;
    r.job.mfu = mfu;
    e = estimate(r.job, r.cluster, r.layout);
    cost = cheapest(cost_rows(ctx, fx, r, e));
  };
  at(b.mfu.low, b.slow, b.cheapest_slow);
  at(b.mfu.high, b.fast, b.cheapest_fast);
  b.cheapest = cheapest(costs);
  return b;
}

// Where the field an estimate refuses ("job.layout: no layout …") was given:
// its flag or --set when one gave it, else the job file.
SourceLocation where_given(const EstimateQuery& q, std::string_view message) {
  const std::string field(message.substr(0, message.find(':')));
  if (field == "job.layout" && q.layout) return SourceLocation{"--layout " + *q.layout};
  for (auto it = q.sets.rbegin(); it != q.sets.rend(); ++it)
    if (it->starts_with(field + "=")) return SourceLocation{"--set " + *it};
  return SourceLocation{q.job_file.empty() ? "<defaults>" : q.job_file};
}

}  // namespace

EstimateOutcome estimate_report(const Context& ctx, const EstimateQuery& q) {
  const ResolvedJob rj = resolve_estimate(ctx, q);
  const Job& job = rj.job;
  const Cluster& cl = rj.cluster;
  Estimate e;
  try {
    e = estimate(job, cl, rj.layout);
  } catch (const std::invalid_argument& err) {
    throw InputError(where_given(q, err.what()), "", err.what());
  }
  EstimateOutcome out;
  Report& rep = out.report;
  rep.command = "estimate";
  rep.currency = ctx.currency;
  rep.title = trf("Training estimate: {} on {}× {}", job.name, cl.gpus, cl.gpu->id);
  const CurrencyConverter fx(ctx.catalog(), ctx.currency);
  const CostRows costs = cost_rows(ctx, fx, rj, e);
  // Nothing fits: neither the job's own cluster nor any offer's shape (exit 4).
  out.feasible = e.memory.fits || !costs.rows.empty();
  rep.xlsx = [wbd = workbook_data(rep.title, rj, e, costs.rows, ctx.currency)] { return estimate_workbook(wbd); };
  const std::optional<Band> band = mfu_band(ctx, fx, rj, costs);
  rep.tables =
      tables_of(summary_table(e, job, cl, band), memory_table(e, cl), fit_table(ctx.catalog(), job, cl, rj.layout),
                step_table(e), costs_table(costs, *cl.gpu, ctx.currency));
  rep.primary = 4;
  if (!costs.rows.empty()) rep.charts.push_back(cost_chart(costs, ctx.currency));
  rep.charts.push_back(step_chart(e));
  Json in = ctx.echo();
  append(in, rj.inputs);
  rep.inputs = std::move(in);
  rep.extra = estimate_extra(e, job, cl, fx, band);
  estimate_notes(rep, rj, e, costs, ctx, fx, q.explain);
  if (band && band->cheapest && band->cheapest_slow && band->cheapest_fast)
    rep.notes.insert(
        rep.notes.begin(),
        trf("The default MFU is uncertain: at {:.0f}% the run takes {} on this cluster and the cheapest "
            "offer row (timed on its own shape) costs {} {}; at {:.0f}% {} and {} {} (the default's band, "
            "{}). A measured MFU (gpuplan fit mfu) narrows it.",
            band->mfu.high * 100, human_seconds(band->fast.wall), to_pretty_string(band->cheapest_fast->rounded(), 0),
            ctx.currency.code(), band->mfu.low * 100, human_seconds(band->slow.wall),
            to_pretty_string(band->cheapest_slow->rounded(), 0), ctx.currency.code(), tr(band->mfu.source)));
  return out;
}

}  // namespace gpuplan
