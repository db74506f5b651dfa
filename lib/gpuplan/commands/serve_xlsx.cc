// `gpuplan serve --format xlsx`: the traffic and headroom as named, editable
// assumptions; each replica's speed as gpuplan's serving model computed it
// (a value: the batch search is not a formula); and each offer row's
// replicas, instances, month and cost per million tokens as formulas over
// them, so finance can try another load or price. Owned rows carry compare's
// month as a value (compare's own workbook shows how it is made).
#include <fmt/format.h>

#include "gpuplan/commands/serve.h"
#include "gpuplan/xlsx.h"

namespace gpuplan {

std::string serve_workbook(const ServeWorkbook& d) {
  using xlsx::Style;
  xlsx::Workbook wb(d.currency);
  xlsx::Sheet& a = wb.add_sheet("Assumptions");
  xlsx::Sheet& o = wb.add_sheet("Offers");
  const std::string CUR(d.currency.code());
  xlsx::Assumptions in(wb, a, xlsx::assumptions_header(a, d.title));
  const Traffic& t = d.traffic;
  in.input("requests_per_second", "requests a second, day's average", t.requests_per_second, Style::kInputNumber,
           "requests/s");
  in.set_as("traffic.requests_per_second={}");
  in.input("prompt_tokens", "prompt tokens a request", t.prompt_tokens, Style::kInputNumber, "tokens");
  in.input("output_tokens", "output tokens a request", t.output_tokens, Style::kInputNumber, "tokens");
  in.input("peak_to_average", "busiest hour over the day's average", t.peak_to_average, Style::kInputNumber, "×");
  in.set_as("traffic.peak_to_average={}");
  in.input("peak_load", "share of a replica's throughput the busiest hour may use", d.peak_load, Style::kInputPercent,
           "share");
  in.set_as("serve.peak_load={}");
  in.input("hours_per_month", "hours in a month (SPEC: 730)", kHoursPerMonth, Style::kNumber, "hours");
  in.derived("tokens_per_month", "tokens a month at the average load",
             "requests_per_second*(prompt_tokens+output_tokens)*hours_per_month*3600",
             t.requests_per_second * (t.prompt_tokens + t.output_tokens) * kHoursPerMonth * 3600, Style::kNumber,
             "tokens");

  const std::vector<std::pair<std::string, double>> heads = {{"offer", 38},
                                                             {"gpu", 12},
                                                             {"mode", 8},
                                                             {"GPUs an instance", 9},
                                                             {"price " + CUR, 12},
                                                             {"per", 7},
                                                             {"TP", 5},
                                                             {"batch", 7},
                                                             {"replica requests/s (model)", 14},
                                                             {"replica output tokens/s (model)", 14},
                                                             {"replicas", 9},
                                                             {"instances", 9},
                                                             {CUR + " a month", 14},
                                                             {CUR + " a million tokens", 14},
                                                             {CUR + " a million output tokens, full", 16},
                                                             {"note", 60}};
  for (std::size_t j = 0; j < heads.size(); ++j) {
    o.text(0, static_cast<int>(j), heads[j].first, Style::kHeader);
    o.width(static_cast<int>(j), heads[j].second);
  }
  o.freeze(1, 1);
  int r = 1;
  for (const ServeWorkbookRow& row : d.rows) {
    const auto ref = [&](int c) { return xlsx::cell_ref(r, c); };
    o.text(r, 0, row.option);
    o.text(r, 1, row.gpu);
    o.text(r, 2, row.mode);
    o.number(r, 3, row.gpus_per_instance, Style::kInteger);
    if (row.price) o.number(r, 4, *row.price, Style::kInputMoney);
    o.text(r, 5, row.mode == "monthly" ? "month" : row.mode == "own" ? "" : "hour");
    o.number(r, 6, row.tp, Style::kInteger);
    if (!row.monthly) {  // misses the targets, or a month beyond a trillion: shown, not priced
      o.text(r, 15, row.note);
      ++r;
      continue;
    }
    o.number(r, 7, row.batch, Style::kInteger);
    o.number(r, 8, row.replica_rps, Style::kPrecise);
    o.number(r, 9, row.replica_output_tps, Style::kNumber);
    if (row.mode == "own") {
      o.number(r, 10, row.replicas, Style::kInteger);
      o.number(r, 11, 1, Style::kInteger);
      o.number(r, 12, *row.monthly, Style::kMoney);
    } else {
      // Replicas: ⌈peak rate ÷ (a replica's rate × peak_load)⌉; instances: replicas ÷ (GPUs an instance ÷ TP), up.
      o.formula(r, 10, fmt::format("MAX(1,ROUNDUP(requests_per_second*peak_to_average/({}*peak_load)-1E-9,0))", ref(8)),
                row.replicas, Style::kInteger);
      o.formula(r, 11, fmt::format("ROUNDUP({}/({}/{}),0)", ref(10), ref(3), ref(6)), row.instances, Style::kInteger);
      o.formula(r, 12, fmt::format("{}*IF({}=\"month\",1,hours_per_month)*{}", ref(4), ref(5), ref(11)), *row.monthly,
                Style::kMoney);
      // Full: the price of an hour ÷ (replicas an instance × output tokens/s × 3,600) × 10⁶.
      o.formula(r, 14,
                fmt::format("{}/IF({}=\"month\",hours_per_month,1)/(({}/{})*{}*3600)*1000000", ref(4), ref(5), ref(3),
                            ref(6), ref(9)),
                row.per_million_output, Style::kMoney);
    }
    o.formula(r, 13, fmt::format("{}/tokens_per_month*1000000", ref(12)), row.per_million, Style::kMoney);
    o.text(r, 15, row.note);
    ++r;
  }
  return wb.bytes();
}

}  // namespace gpuplan
