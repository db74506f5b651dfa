// `gpuplan plan --format xlsx`: the plans the report shows (recommended,
// cheapest, fastest, the frontier, the nearest misses) with the deadline and
// the budget as named, editable assumptions. Each plan's cost is a formula
// over its own editable price (cost/run.cc's rules; buying: cards + servers +
// power), and whether it is on time, within budget and feasible is a formula
// over the deadline and the budget; the Summary names the cheapest feasible
// plan of the list. Run and start times are the model's (rerun gpuplan to
// change the job); P(on time) is the Monte Carlo's.
#include <fmt/format.h>

#include "gpuplan/commands/plan.h"
#include "gpuplan/i18n.h"
#include "gpuplan/xlsx.h"

namespace gpuplan {

namespace {

using xlsx::Style;

// The editable limits every plan row is checked against.
struct Limits {
  xlsx::Value deadline, budget, dataset, confidence;
};

Limits limits_inputs(xlsx::Workbook& wb, xlsx::Sheet& a, const PlanWorkbook& d) {
  xlsx::Assumptions in(wb, a, xlsx::assumptions_header(a, d.title, false));
  Limits x;
  x.deadline = in.input("deadline_hours", tr_noop("deadline (0 = none)"), d.deadline_hours.value_or(0),
                        Style::kInputNumber, tr_noop("hours from now"));
  x.budget = in.input("budget", tr_noop("budget (0 = none)"), d.budget.value_or(0), Style::kInputMoney,
                      std::string(d.currency.code()));
  x.dataset = in.input("dataset_gb", tr_noop("dataset kept in storage during the run"), d.dataset_gb,
                       Style::kInputNumber, "GB");
  x.confidence = in.input("confidence", tr_noop("a spot plan must be on time this often"), d.confidence,
                          Style::kInputPercent, tr_noop("share"), tr_noop("P(on time) is gpuplan's Monte Carlo"));
  return x;
}

void plans_header(xlsx::Sheet& p, Currency currency) {
  const std::vector<std::string> heads = {tr_noop("role"),
                                          tr_noop("offer"),
                                          tr_noop("provider"),
                                          tr_noop("region"),
                                          tr_noop("gpu"),
                                          tr_noop("mode"),
                                          tr_noop("GPUs"),
                                          tr_noop("instances / servers"),
                                          tr_noop("ZeRO"),
                                          tr_noop("price (instance-h; month; card)"),
                                          tr_noop("granularity (h)"),
                                          tr_noop("minimum (h)"),
                                          tr_noop("server base"),
                                          tr_noop("start h"),
                                          tr_noop("run h"),
                                          tr_noop("done in h"),
                                          tr_noop("billed instance-hours"),
                                          tr_noop("storage per GB-month"),
                                          tr_noop("support share"),
                                          tr_noop("compute"),
                                          tr_noop("storage"),
                                          tr_noop("support"),
                                          tr_noop("hardware"),
                                          tr_noop("power"),
                                          trf("total {}", currency.code()),
                                          tr_noop("on time"),
                                          tr_noop("within budget"),
                                          tr_noop("feasible"),
                                          tr_noop("P(on time)"),
                                          tr_noop("cost if feasible")};
  for (std::size_t i = 0; i < heads.size(); ++i) p.label(0, static_cast<int>(i), heads[i], Style::kHeader);
  p.freeze(1, 1);
  p.width(0, 24);
  p.width(1, 40);
  for (int i = 2; i < static_cast<int>(heads.size()); ++i) p.width(i, 13);
}

// What a plan is, as given values (columns A..O).
void plan_facts(xlsx::Sheet& p, int r, const PlanLine& l) {
  p.text(r, 0, l.role);
  p.text(r, 1, l.offer);
  p.text(r, 2, l.provider);
  p.text(r, 3, l.region);
  p.text(r, 4, l.gpu);
  p.text(r, 5, l.mode);
  p.number(r, 6, l.gpus, Style::kInteger);
  p.number(r, 7, l.instances, Style::kInteger);
  p.number(r, 8, l.zero_stage, Style::kInteger);
  p.number(r, 9, l.price, Style::kInputMoney);
  p.number(r, 10, l.granularity_h, Style::kNumber);
  p.number(r, 11, l.minimum_h, Style::kNumber);
  p.number(r, 12, l.server_base, Style::kInputMoney);
  p.number(r, 13, l.start_hours, Style::kNumber);
  p.number(r, 14, l.run_hours, Style::kNumber);
}

// Its cost as formulas (columns P..Y): billed hours, compute, storage, support; buying: hardware and power.
void plan_costs(xlsx::Sheet& p, int r, const PlanLine& l, const Limits& x) {
  const auto at = [&](int col) { return xlsx::cell_ref(r, col); };
  const bool buy = l.mode == "buy", monthly = l.mode == "monthly";
  p.formula(r, 15, fmt::format("{}+{}", at(13), at(14)), l.finish_hours, Style::kNumber);
  if (buy) {
    p.number(r, 16, 0, Style::kNumber);
  } else {
    const std::string billed = monthly
                                   ? fmt::format("ROUNDUP({}/730-1E-9,0)*730*{}", at(14), at(7))
                                   : fmt::format("IF({0}<=0,0,MAX(IF({1}>0,ROUNDUP({0}/{1}-1E-9,0)*{1},{0}),{2}))*{3}",
                                                 at(14), at(10), at(11), at(7));
    p.formula(r, 16, billed, l.billed_hours, Style::kNumber);
  }
  p.number(r, 17, l.storage_per_gb_month, Style::kInputMoney);
  p.number(r, 18, l.support_share, Style::kInputPercent);
  if (buy) {
    p.number(r, 19, 0, Style::kMoney);
    p.number(r, 20, 0, Style::kMoney);
    p.number(r, 21, 0, Style::kMoney);
    p.formula(r, 22, fmt::format("{}*{}+{}*{}", at(9), at(6), at(12), at(7)), l.hardware, Style::kMoney);
    p.number(r, 23, l.power, Style::kMoney);
    p.formula(r, 24, fmt::format("ROUND({},2)+ROUND({},2)", at(22), at(23)), l.total, Style::kMoney);
    return;
  }
  // Rounded to the cent as gpuplan's compute line is (a half cent would differ otherwise).
  p.formula(r, 19,
            monthly ? fmt::format("ROUND({}*{}/730,2)", at(9), at(16)) : fmt::format("ROUND({}*{},2)", at(9), at(16)),
            l.compute, Style::kMoney);
  p.formula(r, 20, fmt::format("{}*{}*{}/730", at(17), x.dataset.ref, at(14)), l.storage, Style::kMoney);
  // Support is rounded to the cent, as cost/run.cc's is.
  p.formula(r, 21, fmt::format("ROUND((ROUND({},2)+ROUND({},2))*{},2)", at(19), at(20), at(18)), l.support,
            Style::kMoney);
  p.number(r, 22, 0, Style::kMoney);
  p.number(r, 23, 0, Style::kMoney);
  p.formula(r, 24, fmt::format("ROUND({},2)+ROUND({},2)+ROUND({},2)", at(19), at(20), at(21)), l.total, Style::kMoney);
}

// A spot plan with a deadline is feasible only if it is on time often enough.
bool sure_enough(const PlanWorkbook& d, const PlanLine& l) {
  return l.mode != "spot" || !d.deadline_hours || !l.on_time_probability || *l.on_time_probability >= d.confidence;
}

bool feasible(const PlanWorkbook& d, const PlanLine& l) {
  return sure_enough(d, l) && (!d.deadline_hours || l.finish_hours <= *d.deadline_hours) &&
         (!d.budget || l.total <= *d.budget + 1e-9);
}

// Against the limits (columns Z..AD): on time, within budget, feasible, P(on time), cost if feasible.
void plan_checks(xlsx::Sheet& p, int r, const PlanLine& l, const PlanWorkbook& d, const Limits& x) {
  const auto at = [&](int col) { return xlsx::cell_ref(r, col); };
  const bool on_time = !d.deadline_hours || l.finish_hours <= *d.deadline_hours;
  const bool within = !d.budget || l.total <= *d.budget + 1e-9;
  p.formula_text(r, 25, fmt::format("IF(OR({0}<=0,{1}<={0}),\"yes\",\"no\")", x.deadline.ref, at(15)),
                 on_time ? "yes" : "no");
  p.formula_text(r, 26, fmt::format("IF(OR({0}<=0,{1}<={0}),\"yes\",\"no\")", x.budget.ref, at(24)),
                 within ? "yes" : "no");
  p.formula_text(
      r, 27,
      fmt::format("IF(AND({0}=\"yes\",{1}=\"yes\",OR({2}<>\"spot\",{3}<=0,{4}=\"\",AND(ISNUMBER({4}),{4}>={5}))),"
                  "\"yes\",\"no\")",
                  at(25), at(26), at(5), x.deadline.ref, at(28), x.confidence.ref),
      feasible(d, l) ? "yes" : "no");
  // P(on time) is gpuplan's Monte Carlo at the exported deadline: with another
  // deadline it says "rerun gpuplan" (and a spot plan is then not called feasible).
  if (l.on_time_probability)
    p.formula(r, 28,
              fmt::format("IF({}={},{},\"rerun gpuplan\")", x.deadline.ref, x.deadline.v, *l.on_time_probability),
              *l.on_time_probability, Style::kPercent);
  // Cached as a number when feasible, as "" when not: MIN skips the text.
  const std::string if_feasible = fmt::format("IF({}=\"yes\",{},\"\")", at(27), at(24));
  if (feasible(d, l)) p.formula(r, 29, if_feasible, l.total, Style::kMoney);
  else p.formula_text(r, 29, if_feasible, "");
}

// The cheapest feasible plan of the list, as a formula over the Plans sheet.
void plan_summary(xlsx::Sheet& sum, const PlanWorkbook& d, int last) {
  sum.text(0, 0, d.title, Style::kTitle);
  sum.label(2, 0, tr_noop("cheapest feasible plan in the list"), Style::kHeader);
  double best = -1;
  int best_row = -1;
  for (std::size_t i = 0; i < d.lines.size(); ++i)
    if (feasible(d, d.lines[i]) && (best < 0 || d.lines[i].total < best))
      best = d.lines[i].total, best_row = static_cast<int>(i);
  const std::string costs = fmt::format("Plans!$AD$2:$AD${}", last + 1);
  const PlanLine* b = best_row < 0 ? nullptr : &d.lines[static_cast<std::size_t>(best_row)];
  sum.formula_text(2, 1,
                   fmt::format("IF(COUNT({0})=0,\"none\",INDEX(Plans!$B$2:$B${1},MATCH(MIN({0}),{0},0))&\" (\"&"
                               "INDEX(Plans!$F$2:$F${1},MATCH(MIN({0}),{0},0))&\", \"&INDEX(Plans!$G$2:$G${1},"
                               "MATCH(MIN({0}),{0},0))&\" GPUs)\")",
                               costs, last + 1),
                   b ? fmt::format("{} ({}, {} GPUs)", b->offer, b->mode, b->gpus) : "none");
  sum.label(3, 0, tr_noop("its cost"), Style::kHeader);
  if (!b) sum.formula_text(3, 1, fmt::format("IF(COUNT({0})=0,\"none\",MIN({0}))", costs), "none");
  else sum.formula(3, 1, fmt::format("IF(COUNT({0})=0,\"none\",MIN({0}))", costs), best, Style::kMoney);
  sum.text(5, 0, d.recommendation, Style::kNote);
  sum.label(6, 0,
            tr_noop("The list is what gpuplan showed; the whole search is gpuplan's (rerun it after changing the job). "
                    "Spot plans: gpuplan recommends one only if P(on time) reaches the required confidence."),
            Style::kNote);
  sum.width(0, 36);
  sum.width(1, 60);
}

}  // namespace

std::string plan_workbook(const PlanWorkbook& d) {
  xlsx::Workbook wb(d.currency);
  xlsx::Sheet& a = wb.add_sheet("Assumptions");
  xlsx::Sheet& p = wb.add_sheet("Plans");
  xlsx::Sheet& sum = wb.add_sheet("Summary");
  const Limits x = limits_inputs(wb, a, d);
  plans_header(p, d.currency);
  int r = 1;
  for (const PlanLine& l : d.lines) {
    plan_facts(p, r, l);
    plan_costs(p, r, l, x);
    plan_checks(p, r, l, d, x);
    ++r;
  }
  plan_summary(sum, d, r - 1);
  return wb.bytes();
}

}  // namespace gpuplan
