#include <catch2/catch.hpp>

#include "gpuplan/context.h"
#include "gpuplan/scenario.h"
#include "gpuplan/sensitivity.h"

using namespace gpuplan;

namespace {
// A linear subject: metric = 3·a − 2·b + c, decision "A" when the metric is
// above zero, else "B". Bases a = 10, b = 14, c = 0 → metric 30 − 28 = 2: "A".
SensitivityOutcome linear(std::size_t i, double v) {
  double a = 10, b = 14, c = 0;
  if (i == 0) a = v;
  if (i == 1) b = v;
  if (i == 2) c = v;
  const double m = 3 * a - 2 * b + c;
  return SensitivityOutcome{m, m > 0 ? "A" : "B"};
}
}  // namespace

TEST_CASE("sensitivity ranks inputs by swing and finds where the decision flips", "[sensitivity]") {
  const std::vector<SensitivityInput> in = {
      {"a", ValueKind::kNumber, 10}, {"b", ValueKind::kNumber, 14}, {"c", ValueKind::kNumber, 0}};
  const Sensitivity s = analyse(in, linear, 0.2);
  CHECK(s.base.metric == Approx(2));
  CHECK(s.base.decision == "A");
  // a: 8 → 24 − 28 = −4 ("B"), 12 → 36 − 28 = 8: swing 12; flips where 3a = 28, a = 9.333.
  // b: 11.2 → 30 − 22.4 = 7.6, 16.8 → 30 − 33.6 = −3.6 ("B"): swing 11.2; flips at b = 15.
  REQUIRE(s.ranked.size() == 2);
  CHECK(s.inputs[s.ranked[0].input].name == "a");
  CHECK(s.ranked[0].swing == Approx(12));
  CHECK(s.ranked[0].flips);
  CHECK(*s.ranked[0].flip_value == Approx(28.0 / 3).epsilon(1e-4));
  CHECK(s.inputs[s.ranked[1].input].name == "b");
  CHECK(s.ranked[1].swing == Approx(11.2));
  CHECK(*s.ranked[1].flip_value == Approx(15).epsilon(1e-4));
  // c is zero: ±20% of zero is zero, so it is listed as not varied.
  CHECK(s.not_varied == std::vector<std::string>{"c"});
  CHECK_THROWS_AS(analyse(in, linear, 1.5), std::invalid_argument);
}

TEST_CASE("sensitivity clamps shares and rounds whole inputs", "[sensitivity]") {
  std::vector<double> seen;
  const auto record = [&](std::size_t i, double v) {
    if (i == 0) seen.push_back(v);
    return SensitivityOutcome{v, "x"};
  };
  // A 90% share moved +20% would be 108%: clamped to 100%. 7 runs × 0.8 = 5.6 → 6.
  analyse({{"share", ValueKind::kShare, 0.9, 0, 1}}, record, 0.2);
  CHECK(seen == std::vector<double>{0.9 * 0.8, 1.0});
  seen.clear();
  analyse({{"runs", ValueKind::kNumber, 7, 1, 100, true}}, record, 0.2);
  CHECK(seen == std::vector<double>{6, 8});
}

TEST_CASE("sensitivity of the Qingdao 8xA100 scenario puts utilisation and the rental price near the top",
          "[sensitivity]") {
  // Why: owning's costs are nearly all fixed (the 700k server, operations,
  // resale), while every rental option's bill is price × hours used, and the
  // hours used are utilisation × 730 h × 8 cards × 24 months. So ±20% on the
  // rental price (the hourly price, which the spot price follows as 30% off
  // it) or on utilisation moves the cheapest rental's NPV by about 20% of its
  // whole bill (~0.8M of swing each), more than any single input of the
  // purchase (the card price moves 20% of 560k, partly offset by the resale).
  GlobalOptions g;
  g.today = "2026-12-02";
  const Context ctx = make_context(g);
  const ResolvedScenario rs = load_scenario(GPUPLAN_SOURCE_DIR "/examples/qingdao-8xa100.yaml", {}, ctx);
  const ScenarioSubject subject = scenario_subject(rs.scenario);
  const Sensitivity s = analyse(subject.inputs, subject.evaluate, 0.2);
  std::vector<std::string> top;
  for (std::size_t i = 0; i < 3; ++i) top.push_back(s.inputs[s.ranked[i].input].name);
  CHECK(std::find(top.begin(), top.end(), "workload.utilisation") != top.end());
  CHECK(std::find(top.begin(), top.end(), "rent.hourly.price_per_instance_hour") != top.end());
  CHECK(s.base.decision == "buy");
  // Every input's own swing is bounded by the whole metric's scale: a sanity check on the units.
  for (const Swing& w : s.ranked) CHECK(w.swing < 3e6);
}
