#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <random>

#include "gpuplan/commands/fit.h"
#include "gpuplan/context.h"
#include "gpuplan/error.h"
#include "gpuplan/fit.h"

using namespace gpuplan;
using Catch::Matchers::Contains;

namespace {
std::vector<double> usl_data(const std::vector<double>& n, double lambda, double sigma, double kappa) {
  std::vector<double> x;
  for (double v : n) x.push_back(lambda * v / (1 + sigma * (v - 1) + kappa * v * (v - 1)));
  return x;
}
}  // namespace

TEST_CASE("linear least squares by QR recovers a hand-derived line", "[fit]") {
  // x = 100, 200, 300, 400, 500; y = 62, 111.5, 161, 210.5, 260 (y = 12.5 + 0.495 x exactly).
  // By hand: Sxy = 49500, Sxx = 100000 -> b = 0.495 s/step; a = 161 - 0.495*300 = 12.5 s.
  Eigen::MatrixXd X(5, 2);
  Eigen::VectorXd y(5);
  for (int i = 0; i < 5; ++i) {
    X(i, 0) = 1;
    X(i, 1) = 100.0 * (i + 1);
    y[i] = 12.5 + 0.495 * X(i, 1);
  }
  const LinearFit f = fit_linear(X, y);
  CHECK(f.coefficients[1] == Approx(0.495));
  CHECK(f.coefficients[0] == Approx(12.5));
  CHECK(f.r_squared == Approx(1.0));
  X.col(1).setConstant(3.0);
  CHECK_THROWS_WITH(fit_linear(X, y), "the data determine only 1 of 2 parameters (are all x values equal?)");
}

TEST_CASE("an exact synthetic USL data set is recovered to 1e-6", "[fit]") {
  std::vector<double> n;
  for (int i = 1; i <= 32; ++i) n.push_back(i);
  const ScalingFit f = fit_scaling(n, usl_data(n, 1.0, 0.02, 0.02), ScalingModel::kUsl);
  CHECK(f.converged);
  CHECK(f.lambda == Approx(1.0).margin(1e-6));
  CHECK(f.sigma == Approx(0.02).margin(1e-6));
  CHECK(f.kappa == Approx(0.02).margin(1e-6));
  // N* = sqrt((1 − σ)/κ) = sqrt(0.98 / 0.02) = 7.0.
  REQUIRE(f.peak_gpus());
  CHECK(*f.peak_gpus() == Approx(7.0).epsilon(1e-6));
}

TEST_CASE("exact Amdahl data are recovered by the Amdahl fit to 1e-6", "[fit]") {
  const std::vector<double> n = {1, 2, 4, 8, 16, 32, 64};
  const ScalingFit f = fit_scaling(n, usl_data(n, 250.0, 0.05, 0.0), ScalingModel::kAmdahl);
  CHECK(f.lambda == Approx(250.0).margin(1e-6 * 250));
  CHECK(f.sigma == Approx(0.05).margin(1e-6));
  CHECK(f.kappa == 0.0);
  CHECK_FALSE(f.peak_gpus());
}

TEST_CASE("the SPEC SDM91 benchmark gives the coefficients the R package usl reports", "[fit]") {
  // Gunther's SPEC SDM91 data, as shipped with the R package `usl` (specsdm91):
  // σ ≈ 0.02773, κ ≈ 0.0001044, λ ≈ 89.99.
  const std::vector<double> n = {1, 18, 36, 72, 108, 144, 216};
  const std::vector<double> x = {64.9, 995.9, 1652.4, 1853.2, 1828.9, 1775.0, 1702.2};
  const ScalingFit f = fit_scaling(n, x, ScalingModel::kUsl);
  CHECK(f.converged);
  CHECK(f.sigma == Approx(0.02773).epsilon(5e-4));
  CHECK(f.kappa == Approx(0.0001044).epsilon(5e-4));
  CHECK(f.lambda == Approx(89.99).epsilon(5e-4));
  CHECK(f.r_squared > 0.98);  // 0.9896
  CHECK(f.aicc.has_value());
}

TEST_CASE("data that cannot determine a scaling fit are refused with a reason", "[fit]") {
  CHECK_THROWS_WITH(fit_progress({1, 2}, {1, 2}), "2 rows cannot determine a rate after warm-up; need at least 4");
  CHECK_THROWS_WITH(fit_scaling({8}, {100}, ScalingModel::kUsl),
                    "1 point cannot determine 3 parameters; need at least 4");
  CHECK_THROWS_WITH(fit_scaling({1, 2, 4}, {10, 19, 35}, ScalingModel::kUsl),
                    "3 points cannot determine 3 parameters; need at least 4");
  CHECK_THROWS_WITH(fit_scaling({8, 8, 8, 8}, {10, 11, 10, 12}, ScalingModel::kUsl),
                    "all GPU counts are equal (8): the data determine only λ");
  CHECK_THROWS_WITH(fit_scaling({1, 1, 1, 2}, {10, 11, 10, 19}, ScalingModel::kUsl),
                    "2 distinct GPU counts cannot determine 3 parameters; measure at least 3");
  CHECK(fit_scaling({1, 1, 1, 2}, {10, 11, 10, 19}, ScalingModel::kAmdahl).converged);
  CHECK_THROWS_WITH(fit_scaling({1, 2, 4, 8}, {10, -19, 35, 60}, ScalingModel::kUsl),
                    Contains("must be greater than zero"));
  CHECK_THROWS_WITH(fit_scaling({1, 2, 4, 8}, {10, std::nan(""), 35, 60}, ScalingModel::kUsl), Contains("NaN"));
}

TEST_CASE("a negative coefficient is held at zero and flagged, never printed as if fine", "[fit]") {
  // Superlinear-looking data (better than linear at 8 cards) push κ below zero.
  const std::vector<double> n = {1, 2, 4, 8, 16};
  const std::vector<double> x = {100, 199, 400, 820, 1500};
  const ScalingFit f = fit_scaling(n, x, ScalingModel::kUsl);
  CHECK(f.sigma >= 0);
  CHECK(f.kappa >= 0);
  CHECK_FALSE(f.constrained.empty());
  CHECK_THAT(f.message, Contains("held at 0"));
}

TEST_CASE("progress: warm-up is dropped and a stall does not wreck the rate", "[fit]") {
  // 0.5 s a step after a 60 s warm-up over the first 10 steps, one 120 s stall at step 500.
  std::vector<double> step, t;
  double clock = 0;
  for (int s = 0; s <= 1000; s += 10) {
    step.push_back(s);
    if (s == 10) clock += 60;
    else if (s > 0) clock += 5;
    if (s == 500) clock += 120;
    t.push_back(clock);
  }
  const ProgressFit p = fit_progress(step, t);
  CHECK(p.warmup_points >= 1);
  CHECK(p.seconds_per_step == Approx(0.5).epsilon(0.02));
  CHECK(p.downweighted >= 1);  // the stall
  // ETA at 10,000 steps: from the last row (step 1000, 60 + 120 + 495 = 675 s) at 0.5 s a step:
  // 675 + 9,000 × 0.5 = 5,175 s.
  CHECK(t.back() == Approx(675));
  const auto eta = p.elapsed_at(10000);
  CHECK(eta.low <= eta.value);
  CHECK(eta.value <= eta.high);
  CHECK(eta.value == Approx(5175).epsilon(0.01));
}

TEST_CASE("Student t quantiles match the table and the large-df limit", "[fit]") {
  CHECK(t_quantile_975(1) == Approx(12.706));
  CHECK(t_quantile_975(10) == Approx(2.228));
  CHECK(t_quantile_975(60) == Approx(2.000).epsilon(1e-3));
  CHECK(t_quantile_975(100000) == Approx(1.960).epsilon(1e-3));
}

TEST_CASE("fit scaling prints one measured point per GPU count: runs, mean, sample spread", "[fit]") {
  ScalingQuery q;
  q.file = GPUPLAN_SOURCE_DIR "/tests/data/fit_repeated.csv";
  q.chart = false;
  const Report r = fit_scaling_report(Context{}, q);
  const Table& pts = r.tables.at(2);
  REQUIRE(pts.name == "points");
  REQUIRE(pts.rows.size() == 5);  // 15 rows, 5 GPU counts, in ascending order
  const auto num = [&](std::size_t row, std::size_t col) { return std::get<double>(pts.rows[row][col]); };
  // By hand: N = 1 has 3100, 3140, 3120 (mean 3120, s = 20); N = 16 has 31800, 32400, 31200 (mean 31800, s = 600).
  CHECK(num(0, 0) == 1);
  CHECK(std::get<std::int64_t>(pts.rows[0][1]) == 3);
  CHECK(num(0, 2) == Approx(3120));
  CHECK(num(0, 3) == Approx(20));
  CHECK(num(4, 0) == 16);
  CHECK(num(4, 2) == Approx(31800));
  CHECK(num(4, 3) == Approx(600));
  CHECK(num(4, 4) == Approx((31800.0 / 16) / 3120.0));  // efficiency from the means
  // The fit on the rows equals the fit on the per-N means (the laws depend on N alone):
  // the USL's coefficients from the 15 rows are those of the 5 means.
  const std::vector<double> n{1, 2, 4, 8, 16}, means{3120, 6090, 11700, 21500, 31800};
  const ScalingFit on_means = fit_scaling(n, means, ScalingModel::kUsl);
  const Table& coef = r.tables.at(1);
  CHECK(std::get<double>(coef.rows[0][2]) == Approx(on_means.lambda).epsilon(1e-5));
  CHECK(std::get<double>(coef.rows[1][2]) == Approx(on_means.sigma).epsilon(1e-5));
}

TEST_CASE("outliers: a wrong row is named, ordinary noise and exact data are not", "[fit]") {
  // Exact USL data, then the same with ±2% noise: nothing stands out.
  std::vector<double> n, x;
  for (const double g : {1.0, 2.0, 4.0, 8.0, 16.0, 32.0})
    for (const double wobble : {-0.02, 0.0, 0.02}) {
      n.push_back(g);
      x.push_back(100.0 * g / (1 + 0.03 * (g - 1) + 0.0005 * g * (g - 1)) * (1 + wobble));
    }
  CHECK(scaling_outliers(ScalingSample::from_rows(n, x), ScalingModel::kUsl).flagged.empty());
  // One row typed with an extra digit: it, and only it, is named, and the
  // others' prediction at its count is the law's, not pulled up by it.
  x[10] *= 10;
  const auto found = scaling_outliers(ScalingSample::from_rows(n, x), ScalingModel::kUsl);
  REQUIRE(found.flagged.size() == 1);
  CHECK(found.flagged[0].tag == 10);
  CHECK(found.flagged[0].runs == 1);
  REQUIRE(found.without);
  CHECK(found.without->predict(16) == Approx(100.0 * 16 / (1 + 0.03 * 15 + 0.0005 * 16 * 15)).epsilon(0.01));
  CHECK_FALSE(poor_scaling_fit(0.95, "fit").size());
  CHECK_THAT(poor_scaling_fit(0.35, "The fit"), Contains("R² = 0.35"));
}

namespace {
// USL throughput with 2% Gaussian noise at N = 1, 2, 4, …, 64, `per_n` runs each.
ScalingSample noisy_usl(int per_n, std::uint32_t seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<double> noise(1.0, 0.02);
  ScalingSample s;
  std::int64_t tag = 0;
  for (int r = 0; r < per_n; ++r)
    for (const double g : {1.0, 2.0, 4.0, 8.0, 16.0, 32.0, 64.0})
      s.add(g, 1000.0 * g / (1 + 0.03 * (g - 1) + 0.0005 * g * (g - 1)) * noise(rng), tag++);
  return s;
}
}  // namespace

TEST_CASE("outliers in large samples: noise alone is never named, a typo among 100k rows is", "[fit]") {
  // 105,000 rows: the largest of that many normal deviates is about 4.6σ.
  for (const std::uint32_t seed : {1u, 2u, 3u}) {
    ScalingSample s = noisy_usl(15000, seed);
    CHECK(s.groups().size() == 7);  // memory is the distinct counts
    CHECK(scaling_outliers(s, ScalingModel::kUsl).flagged.empty());
    s.add(8, 10 * 6849.3, 999999);  // an extra digit at N = 8
    const auto found = scaling_outliers(s, ScalingModel::kUsl);
    REQUIRE(found.flagged.size() == 1);
    CHECK(found.flagged[0].tag == 999999);
  }
  // A whole GPU count measured on another workload (half the throughput) is named as a count.
  ScalingSample s = noisy_usl(20, 4);
  ScalingSample other;
  for (const auto& g : s.groups()) {
    for (int r = 0; r < 20; ++r) other.add(g.gpus, g.mean * (g.gpus == 16 ? 0.5 : 1.0) * (1 + 0.01 * (r % 3 - 1)), r);
  }
  const auto found = scaling_outliers(other, ScalingModel::kUsl);
  REQUIRE(found.flagged.size() == 1);
  CHECK(found.flagged[0].gpus == 16);
  CHECK(found.flagged[0].runs == 20);
}

TEST_CASE("fit over a sample: standard errors are the row-level ones, checked against the rows' Jacobian", "[fit]") {
  // Unequal runs per N (so means with equal weights would differ), noisy.
  std::mt19937 rng(7);
  std::normal_distribution<double> noise(1.0, 0.03);
  std::vector<double> n, x;
  for (const double g : {1.0, 2.0, 4.0, 8.0, 16.0, 32.0})
    for (int r = 0; r < static_cast<int>(g) % 5 + 1; ++r) {
      n.push_back(g);
      x.push_back(500.0 * g / (1 + 0.05 * (g - 1) + 0.001 * g * (g - 1)) * noise(rng));
    }
  const ScalingFit f = fit_scaling(ScalingSample::from_rows(n, x), ScalingModel::kUsl);
  // Independently, over the rows: RSS, σ² = RSS/(n − 3), Cov = σ²(JᵀJ)⁻¹.
  const Eigen::Index m = static_cast<Eigen::Index>(n.size());
  Eigen::MatrixXd J(m, 3);
  double rss = 0;
  for (Eigen::Index i = 0; i < m; ++i) {
    const double v = n[static_cast<std::size_t>(i)], d = 1 + f.sigma * (v - 1) + f.kappa * v * (v - 1);
    J(i, 0) = v / d;
    J(i, 1) = -f.lambda * v * (v - 1) / (d * d);
    J(i, 2) = -f.lambda * v * v * (v - 1) / (d * d);
    rss += std::pow(x[static_cast<std::size_t>(i)] - f.predict(v), 2);
  }
  const Eigen::Matrix3d cov = rss / static_cast<double>(m - 3) * (J.transpose() * J).inverse();
  CHECK(f.rss == Approx(rss).epsilon(1e-9));
  CHECK(f.observations == m);
  CHECK(f.se_lambda == Approx(std::sqrt(cov(0, 0))).epsilon(1e-6));
  CHECK(f.se_sigma == Approx(std::sqrt(cov(1, 1))).epsilon(1e-6));
  CHECK(f.se_kappa == Approx(std::sqrt(cov(2, 2))).epsilon(1e-6));
  // R² over the rows.
  double mean = 0, tss = 0;
  for (const double v : x) mean += v / static_cast<double>(m);
  for (const double v : x) tss += (v - mean) * (v - mean);
  CHECK(f.r_squared == Approx(1 - rss / tss).epsilon(1e-12));
  // The least-squares optimum: the rows' gradient Jᵀr vanishes.
  Eigen::VectorXd r(m);
  for (Eigen::Index i = 0; i < m; ++i)
    r[i] = x[static_cast<std::size_t>(i)] - f.predict(n[static_cast<std::size_t>(i)]);
  CHECK((J.transpose() * r).cwiseAbs().maxCoeff() < 1e-6 * J.norm() * r.norm());
}

TEST_CASE("a sample forgets rows but not their statistics: removal undoes addition", "[fit]") {
  ScalingSample s;
  for (int i = 0; i < 10; ++i) s.add(4, 100.0 + i, i);
  s.add(4, 5000, 10);
  REQUIRE(s.groups()[0].high.front().throughput == 5000);
  s.remove_row(4, s.groups()[0].high.front());
  CHECK(s.rows() == 10);
  CHECK(s.groups()[0].mean == Approx(104.5));
  CHECK(*s.groups()[0].spread() == Approx(std::sqrt(110.0 / 12)));  // sample sd of 100..109
  CHECK(s.groups()[0].low.size() == ScalingSample::kExtremes);
  CHECK_THROWS_AS(s.add(0, 1, 0), FitError);
  CHECK_THROWS_AS(s.add(1, std::nan(""), 0), FitError);
}

TEST_CASE("a sample does not depend on the order of its rows — many distinct counts are kept apart", "[fit]") {
  std::mt19937 rng(11);
  std::vector<double> n, x;
  for (int i = 0; i < 20000; ++i) {
    const double g = 1 + i % 5000;  // 5,000 distinct counts: the index grows and rehashes
    n.push_back(g);
    x.push_back(100.0 * g / (1 + 0.01 * (g - 1)) * (1 + 0.01 * ((i * 7919) % 13 - 6) / 6.0));
  }
  const ScalingSample in_order = ScalingSample::from_rows(n, x);
  std::vector<std::size_t> order(n.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::shuffle(order.begin(), order.end(), rng);
  ScalingSample shuffled;
  for (const std::size_t i : order) shuffled.add(n[i], x[i], static_cast<std::int64_t>(i));
  REQUIRE(shuffled.groups().size() == 5000);
  REQUIRE(in_order.groups().size() == 5000);
  for (std::size_t k = 0; k < 5000; ++k) {
    const auto &a = in_order.groups()[k], &b = shuffled.groups()[k];
    REQUIRE(a.gpus == static_cast<double>(k + 1));
    REQUIRE(b.gpus == a.gpus);
    REQUIRE(b.runs == 4);
    REQUIRE(b.mean == Approx(a.mean).epsilon(1e-12));
    REQUIRE(b.m2 == Approx(a.m2).epsilon(1e-6).margin(1e-9));
  }
  const ScalingFit f1 = fit_scaling(in_order, ScalingModel::kAmdahl), f2 = fit_scaling(shuffled, ScalingModel::kAmdahl);
  CHECK(f1.sigma == Approx(f2.sigma).epsilon(1e-9));
  CHECK(f1.se_sigma == Approx(f2.se_sigma).epsilon(1e-6));
}

TEST_CASE("a sample merged from two parts equals the sample of all rows", "[fit]") {
  const ScalingSample all = noisy_usl(200, 5);
  ScalingSample a, b;
  std::mt19937 rng(5);
  std::normal_distribution<double> noise(1.0, 0.02);
  std::int64_t tag = 0;
  for (int r = 0; r < 200; ++r)
    for (const double g : {1.0, 2.0, 4.0, 8.0, 16.0, 32.0, 64.0})
      (r < 77 ? a : b).add(g, 1000.0 * g / (1 + 0.03 * (g - 1) + 0.0005 * g * (g - 1)) * noise(rng), tag++);
  b.add(128, 5000, tag);  // a count only the second part has
  a.merge(b);
  REQUIRE(a.groups().size() == 8);
  CHECK(a.rows() == all.rows() + 1);
  for (std::size_t k = 0; k < 7; ++k) {
    const auto &m = a.groups()[k], &w = all.groups()[k];
    CHECK(m.runs == w.runs);
    CHECK(m.mean == Approx(w.mean).epsilon(1e-12));
    CHECK(m.m2 == Approx(w.m2).epsilon(1e-9));
    CHECK(m.first_tag == w.first_tag);
    REQUIRE(m.low.size() == ScalingSample::kExtremes);
    for (std::size_t i = 0; i < ScalingSample::kExtremes; ++i) {
      CHECK(m.low[i].throughput == w.low[i].throughput);
      CHECK(m.high[i].tag == w.high[i].tag);
    }
  }
  CHECK(a.groups()[7].gpus == 128);
}

TEST_CASE("fit scaling's chart: each law's curve, the best fit's band around it, the measured means as dots",
          "[fit][chart]") {
  ScalingQuery q;
  q.file = GPUPLAN_SOURCE_DIR "/examples/scaling-a100.csv";
  q.predict = {"64"};
  const Report r = fit_scaling_report(Context{}, q);
  REQUIRE(r.charts.size() == 1);
  const Chart& c = r.charts.front();
  CHECK(c.name == "scaling_fit");
  REQUIRE(c.series.size() == 3);  // usl, amdahl, measured
  const ChartSeries& best = c.series.front();
  CHECK(best.name == "usl");  // R² 0.99997 against Amdahl's 0.9977: first, in the band's colour
  CHECK(best.points.size() == 61);
  CHECK(best.points.back().first == Approx(64));  // to the largest count asked about
  REQUIRE(c.band);
  REQUIRE(c.band->points.size() == best.points.size());
  for (std::size_t k = 0; k < best.points.size(); ++k) {
    const auto& [x, lo, hi] = c.band->points[k];
    CHECK(x == best.points[k].first);
    CHECK(lo <= best.points[k].second);
    CHECK(best.points[k].second <= hi);
    CHECK(lo >= 0);
  }
  // The band widens where there are no measurements (16 GPUs is the largest measured).
  CHECK(c.band->points.back()[2] - c.band->points.back()[1] > 3 * (c.band->points[10][2] - c.band->points[10][1]));
  const ChartSeries& measured = c.series.back();
  CHECK_FALSE(measured.line);
  REQUIRE(measured.points.size() == 5);
  CHECK(measured.points.front().first == 1);
  CHECK(measured.points.back().first == 16);
}

TEST_CASE("fit scaling warns when a prediction reaches far past the measurements or no noise was measured",
          "[fit][scaling]") {
  ScalingQuery q;
  q.file = GPUPLAN_TEST_DATA "/fit_linear_exact.csv";  // 1, 2, 4, 8 GPUs, exactly linear
  const auto warned = [&](const std::string& text) {
    const Report r = fit_scaling_report(Context{}, q);
    return std::count_if(r.warnings.begin(), r.warnings.end(),
                         [&](const std::string& w) { return w.find(text) != std::string::npos; });
  };
  q.predict = {"16"};  // twice the largest count: no extrapolation warning
  CHECK(warned("the largest measured count") == 0);
  CHECK(warned("no noise to measure") == 1);  // a zero-width interval is not certainty
  q.predict = {"1000", "12", "17"};
  CHECK(warned("--predict 1000 is 125× the largest measured count (8)") == 1);
  CHECK(warned("--predict 17 is") == 1);
  CHECK(warned("--predict 12 is") == 0);
  q.file = GPUPLAN_SOURCE_DIR "/examples/scaling-a100.csv";  // measured noise: intervals with width
  q.predict = {"32"};
  CHECK(warned("no noise to measure") == 0);
}
