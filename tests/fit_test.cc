#include <catch2/catch.hpp>

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
