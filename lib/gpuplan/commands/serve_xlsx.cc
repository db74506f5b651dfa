// `gpuplan serve --format xlsx`: the traffic and headroom as named, editable
// assumptions; the day's load hour by hour (Day); each replica's speed as
// gpuplan's serving model computed it (a value: the batch search is not a
// formula); and each offer row's replicas, instances, instances each hour
// (Hours), month and cost per million tokens as formulas over them, so
// finance can try another load, day or price. Owned rows carry compare's
// month as a value (compare's own workbook shows how it is made).
#include <fmt/format.h>

#include "gpuplan/commands/serve.h"
#include "gpuplan/i18n.h"
#include "gpuplan/xlsx.h"

namespace gpuplan {
namespace {

using xlsx::Style;

// Offers' columns.
enum Col {
  kOffer,
  kGpu,
  kMode,
  kPerInstance,
  kPrice,
  kPer,
  kTp,
  kBatch,
  kReplicaRps,
  kReplicaTps,
  kReplicas,
  kInstances,
  kInstanceHours,
  kMonthly,
  kPerMillion,
  kPerMillionOutput,
  kBase,
  kRisePrice,
  kNote
};

// Day: an hour a row from row 1; relative rate in B, requests/s in C.
constexpr int kRateCol = 1, kRpsCol = 2;
std::string day_range(int col) {
  return fmt::format("Day!{}:{}", xlsx::cell_ref(1, col, true), xlsx::cell_ref(kHoursPerDay, col, true));
}

void add_traffic(xlsx::Assumptions& in, const ServeWorkbook& d) {
  const Traffic& t = d.traffic;
  in.input("requests_per_second", tr_noop("requests a second, day's average"), t.requests_per_second,
           Style::kInputNumber, "requests/s");
  in.set_as("traffic.requests_per_second={}");
  in.input("prompt_tokens", tr_noop("prompt tokens a request"), t.prompt_tokens, Style::kInputNumber,
           tr_noop("tokens"));
  in.input("output_tokens", tr_noop("output tokens a request"), t.output_tokens, Style::kInputNumber,
           tr_noop("tokens"));
  if (t.daily_profile.empty()) {
    in.input("peak_to_average", tr_noop("busiest hour over the day's average (Day: 24 ÷ it busy hours from 9:00)"),
             t.peak_to_average, Style::kInputNumber, "×");
    in.limit(1, kHoursPerDay);
    in.set_as("traffic.peak_to_average={}");
  } else {
    in.derived("peak_to_average", tr_noop("busiest hour over the day's average (the Day sheet's profile)"),
               fmt::format("MAX({0})/AVERAGE({0})", day_range(kRateCol)), t.peak_to_average, Style::kNumber, "×");
  }
  in.input("peak_load", tr_noop("share of a replica's throughput the busiest hour may use"), d.peak_load,
           Style::kInputPercent, tr_noop("share"));
  in.set_as("serve.peak_load={}");
  in.input("min_replicas", tr_noop("replicas hourly rentals keep up through quiet hours"), d.min_replicas,
           Style::kInputNumber, tr_noop("replicas"));
  in.limit(0, kMaxReplicas, true);
  in.set_as("serve.min_replicas={}");
  in.input("hours_per_month", tr_noop("hours in a month (SPEC: 730)"), kHoursPerMonth, Style::kNumber,
           tr_noop("hours"));
  in.derived("tokens_per_month", tr_noop("tokens a month at the average load"),
             "requests_per_second*(prompt_tokens+output_tokens)*hours_per_month*3600",
             t.requests_per_second * (t.prompt_tokens + t.output_tokens) * kHoursPerMonth * 3600, Style::kNumber,
             tr_noop("tokens"));
}

// The day hour by hour: the profile as given (inputs), or the two-level day
// peak_to_average implies as formulas of it; requests/s scaled to the average.
void add_day(xlsx::Sheet& day, const Traffic& t) {
  day.label(0, 0, tr_noop("hour"), Style::kHeader);
  day.label(0, kRateCol, tr_noop("relative rate"), Style::kHeader);
  day.label(0, kRpsCol, tr_noop("requests/s"), Style::kHeader);
  day.width(kRateCol, 14);
  day.width(kRpsCol, 14);
  const auto rates = hourly_rates(t);
  const double peak = t.requests_per_second * t.peak_to_average;
  for (int h = 0; h < kHoursPerDay; ++h) {
    const int r = h + 1;
    const auto at = static_cast<std::size_t>(h);
    day.text(r, 0, fmt::format("{}:00", h));
    if (!t.daily_profile.empty()) {
      day.number(r, kRateCol, t.daily_profile[at], Style::kInputNumber);
    } else {
      const int i = (h - kBusyFrom + kHoursPerDay) % kHoursPerDay;  // hours since the day's busy start
      day.formula(r, kRateCol, fmt::format("MAX(0,MIN(1,24/peak_to_average-{}))", i), peak > 0 ? rates[at] / peak : 0);
    }
    day.formula(r, kRpsCol,
                fmt::format("requests_per_second*24*{}/SUM({})", xlsx::cell_ref(r, kRateCol), day_range(kRateCol)),
                rates[at], Style::kPrecise);
  }
}

// A monthly row, committed or not, without an hourly rise: its instances run all month.
bool all_month(const ServeWorkbookRow& row) {
  return row.mode.starts_with("monthly") && !row.mode.ends_with("+hourly");
}

// Instances each hour: replicas at the hour's rate (at least min_replicas), an instance's replicas to one; a
// monthly rental runs its busiest hour's all day.
void add_hours_row(xlsx::Sheet& hours, int k, int r, const ServeWorkbookRow& row) {
  const auto offers = [&](int c) { return "Offers!" + xlsx::cell_ref(r, c); };
  hours.text(k, 0, row.option);
  hours.text(k, 1, row.mode);
  for (int h = 0; h < kHoursPerDay; ++h) {
    const double cached = row.by_hour.empty() ? 0 : row.by_hour[static_cast<std::size_t>(h)];
    const std::string f =
        all_month(row)
            ? offers(kInstances)
            : fmt::format("ROUNDUP(MAX(min_replicas,ROUNDUP(Day!{}/({}*peak_load)-1E-9,0))/({}/{}),0)",
                          xlsx::cell_ref(h + 1, kRpsCol), offers(kReplicaRps), offers(kPerInstance), offers(kTp));
    hours.formula(k, 2 + h, f, cached, Style::kInteger);
  }
}

void add_headers(xlsx::Sheet& o, xlsx::Sheet& hours, const std::string& cur) {
  const std::vector<std::pair<std::string, double>> heads = {{tr_noop("offer"), 38},
                                                             {tr_noop("gpu"), 12},
                                                             {tr_noop("mode"), 8},
                                                             {tr_noop("GPUs an instance"), 9},
                                                             {trf("price {}", cur), 12},
                                                             {tr_noop("per"), 7},
                                                             {tr_noop("TP"), 5},
                                                             {tr_noop("batch"), 7},
                                                             {tr_noop("replica requests/s (model)"), 14},
                                                             {tr_noop("replica output tokens/s (model)"), 14},
                                                             {tr_noop("replicas"), 9},
                                                             {tr_noop("instances"), 9},
                                                             {tr_noop("instance-hours a day"), 10},
                                                             {trf("{} a month", cur), 14},
                                                             {trf("{} a million tokens", cur), 14},
                                                             {trf("{} a million output tokens, full", cur), 16},
                                                             {tr_noop("monthly + hourly: instances by the month"), 12},
                                                             {trf("monthly + hourly: {} an hour above them", cur), 12},
                                                             {tr_noop("note"), 60}};
  for (std::size_t j = 0; j < heads.size(); ++j) {
    o.label(0, static_cast<int>(j), heads[j].first, Style::kHeader);  // marked ones translated; built ones already are
    o.width(static_cast<int>(j), heads[j].second);
  }
  o.freeze(1, 1);
  hours.label(0, 0, tr_noop("offer"), Style::kHeader);
  hours.label(0, 1, tr_noop("mode"), Style::kHeader);
  hours.width(0, 38);
  for (int h = 0; h < kHoursPerDay; ++h) hours.text(0, 2 + h, fmt::format("{}:00", h), Style::kHeader);
  hours.freeze(1, 2);
}

}  // namespace

std::string serve_workbook(const ServeWorkbook& d) {
  xlsx::Workbook wb(d.currency);
  xlsx::Sheet& a = wb.add_sheet("Assumptions");
  xlsx::Sheet& o = wb.add_sheet("Offers");
  xlsx::Sheet& day = wb.add_sheet("Day");
  xlsx::Sheet& hours = wb.add_sheet("Hours");
  const std::string CUR(d.currency.code());
  xlsx::Assumptions in(wb, a, xlsx::assumptions_header(a, d.title));
  add_traffic(in, d);
  add_day(day, d.traffic);
  add_headers(o, hours, CUR);
  int r = 1, k = 1;
  for (const ServeWorkbookRow& row : d.rows) {
    const auto ref = [&](int c) { return xlsx::cell_ref(r, c); };
    o.text(r, kOffer, row.option);
    o.text(r, kGpu, row.gpu);
    o.text(r, kMode, row.mode);
    o.number(r, kPerInstance, row.gpus_per_instance, Style::kInteger);
    if (row.price) o.number(r, kPrice, *row.price, Style::kInputMoney);
    o.text(r, kPer, row.mode.starts_with("monthly") ? "month" : row.mode == "own" ? "" : "hour");
    o.number(r, kTp, row.tp, Style::kInteger);
    if (!row.monthly) {  // misses the targets, or a month beyond a trillion: shown, not priced
      o.text(r, kNote, row.note);
      ++r;
      continue;
    }
    o.number(r, kBatch, row.batch, Style::kInteger);
    o.number(r, kReplicaRps, row.replica_rps, Style::kPrecise);
    o.number(r, kReplicaTps, row.replica_output_tps, Style::kNumber);
    if (row.mode == "own") {
      o.number(r, kReplicas, row.replicas, Style::kInteger);
      o.number(r, kInstances, 1, Style::kInteger);
      o.number(r, kMonthly, *row.monthly, Style::kMoney);
    } else {
      // Replicas: ⌈peak rate ÷ (a replica's rate × peak_load)⌉; instances: replicas ÷ (GPUs an instance ÷ TP), up.
      o.formula(r, kReplicas,
                fmt::format("MAX(1,min_replicas,ROUNDUP(requests_per_second*peak_to_average/({}*peak_load)-1E-9,0))",
                            ref(kReplicaRps)),
                row.replicas, Style::kInteger);
      o.formula(r, kInstances, fmt::format("ROUNDUP({}/({}/{}),0)", ref(kReplicas), ref(kPerInstance), ref(kTp)),
                row.instances, Style::kInteger);
      add_hours_row(hours, k, r, row);
      int sum = 0;
      for (int n : row.by_hour) sum += n;
      o.formula(r, kInstanceHours,
                fmt::format("SUM(Hours!{}:{})", xlsx::cell_ref(k, 2), xlsx::cell_ref(k, 1 + kHoursPerDay)), sum,
                Style::kInteger);
      ++k;
      // Monthly: the month's price × instances; hourly: the hours it runs, × 730 ÷ 24; monthly + hourly: the
      // base by the month, the instance-hours above it by the hour (the base is gpuplan's cheapest: a value).
      std::string month = all_month(row) ? fmt::format("{}*{}", ref(kPrice), ref(kInstances))
                                         : fmt::format("{}*{}*hours_per_month/24", ref(kPrice), ref(kInstanceHours));
      if (row.base > 0) {
        o.number(r, kRisePrice, row.rise_price, Style::kInputMoney);
        const std::string hours_row =
            fmt::format("Hours!{}:{}", xlsx::cell_ref(k - 1, 2), xlsx::cell_ref(k - 1, 1 + kHoursPerDay));
        // The cheapest base: the b-th instance by the month pays when more than month ÷ (the hour's price ×
        // 730 ÷ 24) hours run at least b instances, so it is the j-th largest hour's count, j = ⌊that⌋ + 1.
        o.formula(r, kBase,
                  fmt::format("IF(INT({0}/({1}*hours_per_month/24))+1>24,0,LARGE({2},INT({0}/({1}*hours_per_month/"
                              "24))+1))",
                              ref(kPrice), ref(kRisePrice), hours_row),
                  row.base, Style::kInteger);
        // Σ over the hours of max(0, instances − base): what the base leaves to the hourly price.
        month = fmt::format("{0}*{1}+{2}*SUMPRODUCT(({3}>{1})*({3}-{1}))*hours_per_month/24", ref(kPrice), ref(kBase),
                            ref(kRisePrice), hours_row);
      }
      o.formula(r, kMonthly, month, *row.monthly, Style::kMoney);
      // Full: the price of an hour ÷ (replicas an instance × output tokens/s × 3,600) × 10⁶.
      o.formula(r, kPerMillionOutput,
                fmt::format("{}/IF({}=\"month\",hours_per_month,1)/(({}/{})*{}*3600)*1000000", ref(kPrice), ref(kPer),
                            ref(kPerInstance), ref(kTp), ref(kReplicaTps)),
                row.per_million_output, Style::kMoney);
    }
    o.formula(r, kPerMillion, fmt::format("{}/tokens_per_month*1000000", ref(kMonthly)), row.per_million,
              Style::kMoney);
    o.text(r, kNote, row.note);
    ++r;
  }
  return wb.bytes();
}

}  // namespace gpuplan
