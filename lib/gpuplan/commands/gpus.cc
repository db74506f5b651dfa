#include "gpuplan/i18n.h"
#include "gpuplan/commands/gpus.h"

#include <algorithm>
#include <fmt/format.h>

#include "gpuplan/error.h"

namespace gpuplan {

namespace {

constexpr const char* kAvailabilityContext = "market availability: ";
[[maybe_unused]] constexpr const char* kAvailabilityWords[] = {tr_noop("market availability: available"),
                                                               tr_noop("market availability: restricted"),
                                                               tr_noop("market availability: unknown")};
constexpr const char* kFormContext = "form factor: ";
[[maybe_unused]] constexpr const char* kFormWords[] = {tr_noop("form factor: sxm"), tr_noop("form factor: pcie"),
                                                       tr_noop("form factor: consumer")};

// "CN restricted": each market the catalog states, for the brief column.
Cell buying(const Gpu& g) {
  if (g.availability.empty()) return Cell{};
  std::string out;
  for (const MarketStatus& m : g.availability)
    out += fmt::format(
        "{}{} {}", out.empty() ? "" : tr(", "), m.market,
        translate_word({.key = "", .label = "", .words = true, .context = kAvailabilityContext}, to_string(m.status)));
  return out;
}

}  // namespace

Report gpus_report(const Context& ctx, const std::vector<std::string>& filters) {
  for (const std::string& f : filters)
    if (std::none_of(ctx.catalog().gpus.begin(), ctx.catalog().gpus.end(),
                     [&](const Gpu& g) { return gpu_matches(f, g.id); }))
      throw InputError(SourceLocation{"--gpu"}, "", trf("'{}' matches no GPU in the catalog", f));
  const auto shown = [&](const Gpu& g) {
    return filters.empty() ||
           std::any_of(filters.begin(), filters.end(), [&](const std::string& f) { return gpu_matches(f, g.id); });
  };
  Table t;
  t.name = "gpus";
  t.columns = {{"gpu", tr_noop("gpu")},
               {"name", tr_noop("name"), 0, false},
               {.key = "form_factor", .label = tr_noop("form"), .words = true, .context = kFormContext},
               {"memory_gb", tr_noop("mem GB"), 1},
               {"memory_bandwidth_gbs", tr_noop("mem GB/s"), 0},
               {"fp32_tflops", tr_noop("fp32"), 1},
               {"tf32_tflops", tr_noop("tf32"), 1},
               {"bf16_tflops", tr_noop("bf16"), 1},
               {"fp16_tflops", tr_noop("fp16"), 1},
               {"fp8_tflops", tr_noop("fp8"), 1},
               {"tdp_w", tr_noop("TDP W"), 0},
               {"nvlink_gbs", tr_noop("NVLink GB/s"), 0},
               {"pcie_gen", tr_noop("PCIe")},
               {"software", tr_noop("stack")},
               {"availability", tr_noop("buying")},
               {.key = "as_of", .label = tr_noop("as_of"), .words = true},
               {.key = "confidence",
                .label = tr_noop("confidence"),
                .brief = false,
                .words = true,
                .context = kConfidenceContext},
               {"source", tr_noop("source"), 0, false}};
  for (const Gpu& g : ctx.catalog().gpus) {
    if (!shown(g)) continue;
    const auto tf = [&](Precision p) -> Cell {
      const auto it = g.dense_tflops.find(p);
      return it == g.dense_tflops.end() ? Cell{} : Cell{it->second};
    };
    t.add_row({g.id, g.name, g.form_factor.empty() ? Cell{} : Cell{g.form_factor}, g.memory.value() / kGB,
               g.memory_bandwidth ? Cell{g.memory_bandwidth->value() / kGB} : Cell{}, tf(Precision::kFp32),
               tf(Precision::kTf32), tf(Precision::kBf16), tf(Precision::kFp16), tf(Precision::kFp8), g.tdp.value(),
               g.nvlink ? Cell{g.nvlink->value() / kGB} : Cell{},
               g.pcie_gen ? Cell{static_cast<std::int64_t>(g.pcie_gen)} : Cell{}, g.software, buying(g),
               format_date(g.provenance.as_of),
               g.provenance.confidence.empty() ? Cell{} : Cell{std::string(g.provenance.confidence)},
               std::string(g.provenance.source)});
  }
  Report rep;
  rep.command = "gpus";
  rep.title = trf("GPU hardware: {} GPUs (TFLOPS are dense, without 2:4 sparsity)", t.rows.size());
  Json in = ctx.echo();
  Json f = Json::array();
  for (const auto& s : filters) f.push_back(s);
  in["filters"] = Json::object();
  in["filters"]["gpu"] = std::move(f);
  rep.inputs = std::move(in);
  rep.tables.push_back(std::move(t));
  rep.notes.push_back(
      trf("{}. '-' = not supported or not in any source. NVLink is total bidirectional per GPU. mem "
          "GB is 10^9 bytes of what a job can allocate (nvidia-smi's total where the catalog has one): "
          "a card sold as 80GB holds 80 GiB, 85.9 GB.",
          ctx.catalog_note()));
  bool restricted = false, other_stack = false;  // over the rows shown
  for (const Gpu& g : ctx.catalog().gpus) {
    if (!shown(g)) continue;
    restricted = restricted || !g.availability.empty();
    other_stack = other_stack || g.software != "cuda";
  }
  if (restricted)
    rep.notes.push_back(std::string(
        tr("buying: whether new cards can be bought in a market (restricted: export controls; the reasons and sources "
           "are in `plan --include-buy` notes and the catalog); '-' = not known to be restricted.")));
  if (other_stack)
    rep.notes.push_back(std::string(
        tr("stack: the software a card runs; gpuplan's MFU defaults are calibrated on CUDA runs only, so on any other "
           "stack they are an assumption: measure a trial run and use `fit mfu`.")));
  rep.notes.push_back(std::string(tr("Sources: --format csv or json.")));
  return rep;
}

}  // namespace gpuplan
