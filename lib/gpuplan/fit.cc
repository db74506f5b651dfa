#include "gpuplan/fit.h"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <map>
#include <numeric>
#include <optional>

#include "gpuplan/error.h"

namespace gpuplan {
namespace {

void require_finite(const Eigen::MatrixXd& m, const char* what) {
  if (!m.allFinite()) throw FitError(fmt::format("the {} hold NaN or infinite values", what));
}

}  // namespace

double t_quantile_975(int df) {
  // Exact table for small df (Student 1908; any statistics table); above 30 the
  // Cornish–Fisher expansion around z = 1.959964 is accurate to 1e-4.
  static const double kTable[] = {0,     12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
                                  2.201, 2.179,  2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086, 2.080,
                                  2.074, 2.069,  2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042};
  if (df < 1) return std::numeric_limits<double>::quiet_NaN();
  if (df <= 30) return kTable[df];
  const double z = 1.959963985, v = df;
  const double z3 = z * z * z, z5 = z3 * z * z, z7 = z5 * z * z;
  return z + (z3 + z) / (4 * v) + (5 * z5 + 16 * z3 + 3 * z) / (96 * v * v) +
         (3 * z7 + 19 * z5 + 17 * z3 - 15 * z) / (384 * v * v * v);
}

LinearFit fit_linear(const Eigen::MatrixXd& X, const Eigen::VectorXd& y, const Eigen::VectorXd* weights) {
  require_finite(X, "predictors");
  require_finite(y, "observations");
  const Eigen::Index n = X.rows(), p = X.cols();
  if (n <= p) throw FitError(fmt::format("{} points cannot determine {} parameters; need at least {}", n, p, p + 1));
  Eigen::MatrixXd Xw = X;
  Eigen::VectorXd yw = y;
  if (weights) {
    const Eigen::VectorXd sw = weights->cwiseSqrt();
    Xw = sw.asDiagonal() * X;
    yw = sw.asDiagonal() * y;
  }
  // QR with column pivoting; the rank check catches collinear predictors.
  const Eigen::ColPivHouseholderQR<Eigen::MatrixXd> qr(Xw);
  if (qr.rank() < p)
    throw FitError(fmt::format("the data determine only {} of {} parameters (are all x values equal?)", qr.rank(), p));
  LinearFit f;
  f.coefficients = qr.solve(yw);
  const Eigen::VectorXd resid = yw - Xw * f.coefficients;
  const double rss = resid.squaredNorm();
  const double mean = weights ? (weights->dot(y) / weights->sum()) : y.mean();
  const double tss =
      weights ? (weights->array() * (y.array() - mean).square()).sum() : (y.array() - mean).square().sum();
  f.observations = n;
  f.parameters = p;
  f.residual_std_error = std::sqrt(rss / static_cast<double>(n - p));
  f.r_squared = tss > 0 ? 1.0 - rss / tss : 1.0;
  // Cov(β) = σ² (XᵀX)⁻¹ = σ² P R⁻¹ R⁻ᵀ Pᵀ, from the QR factors, never forming XᵀX.
  const Eigen::MatrixXd R = qr.matrixR().topLeftCorner(p, p).triangularView<Eigen::Upper>();
  const Eigen::MatrixXd Rinv = R.triangularView<Eigen::Upper>().solve(Eigen::MatrixXd::Identity(p, p));
  const Eigen::MatrixXd P = qr.colsPermutation();
  f.covariance = f.residual_std_error * f.residual_std_error * (P * Rinv * Rinv.transpose() * P.transpose());
  f.standard_errors = f.covariance.diagonal().cwiseSqrt();
  return f;
}

void LmOptions::validate() const {
  if (max_iterations < 1) throw std::invalid_argument("max_iterations: must be at least 1");
  if (!(tolerance > 0 && tolerance < 1)) throw std::invalid_argument("tolerance: must be within (0, 1)");
}

namespace {

// Model and Jacobian of X(N) = λN / D, D = 1 + σ(N−1) + κN(N−1):
//   ∂X/∂λ = N/D,  ∂X/∂σ = −λN(N−1)/D²,  ∂X/∂κ = −λN²(N−1)/D².
double usl(double n, const Eigen::Vector3d& p) { return p[0] * n / (1 + p[1] * (n - 1) + p[2] * n * (n - 1)); }

Eigen::Vector3d usl_gradient(double n, const Eigen::Vector3d& p) {
  const double d = 1 + p[1] * (n - 1) + p[2] * n * (n - 1);
  return Eigen::Vector3d(n / d, -p[0] * n * (n - 1) / (d * d), -p[0] * n * n * (n - 1) / (d * d));
}

struct LmResult {
  Eigen::Vector3d p;
  double rss;
  bool converged;
  int iterations;
  std::string message;
};

// Levenberg–Marquardt (Marquardt 1963) over the free parameters, with
// Marquardt's diagonal scaling (λ ≈ 90 and κ ≈ 1e-4 differ by 10⁶) and
// Nielsen's damping update (Nielsen 1999).
LmResult levenberg_marquardt(const Eigen::VectorXd& n, const Eigen::VectorXd& x, const Eigen::VectorXd& sw,
                             Eigen::Vector3d p, const std::vector<int>& free, const LmOptions& opt) {
  const Eigen::Index m = n.size();
  const int k = static_cast<int>(free.size());
  // Whole-array expressions (Eigen vectorises them): D = 1 + σ(N−1) + κN(N−1).
  const Eigen::ArrayXd nm1 = n.array() - 1.0;
  const Eigen::ArrayXd nn1 = n.array() * nm1;
  const auto residuals = [&](const Eigen::Vector3d& q) -> Eigen::VectorXd {
    return (sw.array() * (q[0] * n.array() / (1.0 + q[1] * nm1 + q[2] * nn1) - x.array())).matrix();
  };
  const auto jacobian = [&](const Eigen::Vector3d& q) {
    const Eigen::ArrayXd inv_d = 1.0 / (1.0 + q[1] * nm1 + q[2] * nn1);
    const Eigen::ArrayXd common = -q[0] * n.array() * inv_d * inv_d * sw.array();
    Eigen::MatrixXd J(m, k);
    for (int j = 0; j < k; ++j) {
      const int idx = free[static_cast<std::size_t>(j)];
      if (idx == 0) J.col(j) = (sw.array() * n.array() * inv_d).matrix();
      else if (idx == 1) J.col(j) = (common * nm1).matrix();
      else J.col(j) = (common * nn1).matrix();
    }
    return J;
  };
  Eigen::VectorXd r = residuals(p);
  double rss = r.squaredNorm();
  double mu = -1, nu = 2;
  LmResult out{p, rss, false, 0, "iteration limit reached"};
  for (int it = 1; it <= opt.max_iterations; ++it) {
    out.iterations = it;
    const Eigen::MatrixXd J = jacobian(p);
    // JᵀJ is k×k (k ≤ 3): k(k+1)/2 dot products beat a general product on a tall J.
    Eigen::MatrixXd A(k, k);
    for (int a = 0; a < k; ++a)
      for (int b = a; b < k; ++b) A(a, b) = A(b, a) = J.col(a).dot(J.col(b));
    const Eigen::VectorXd grad = J.transpose() * r;
    if (grad.lpNorm<Eigen::Infinity>() <= opt.tolerance * std::max(1.0, rss)) {
      out.converged = true;
      out.message = "gradient vanished";
      break;
    }
    // The damping is scaled by diag(JᵀJ), so μ itself is dimensionless.
    if (mu < 0) mu = 1e-3;
    Eigen::MatrixXd damped = A;
    for (int j = 0; j < k; ++j) damped(j, j) += mu * std::max(A(j, j), 1e-300);
    const Eigen::VectorXd step = damped.ldlt().solve(-grad);
    Eigen::Vector3d trial = p;
    for (int j = 0; j < k; ++j) trial[free[static_cast<std::size_t>(j)]] += step[j];
    const Eigen::VectorXd rt = residuals(trial);
    const double rss_t = rt.allFinite() ? rt.squaredNorm() : std::numeric_limits<double>::infinity();
    const double predicted = -(step.dot(grad) * 2 + step.dot(A * step));
    const double rho = predicted > 0 ? (rss - rss_t) / predicted : -1;
    if (rho > 0) {
      // Relative change of each free parameter (they differ by orders of magnitude).
      double rel_step = 0;
      for (int j = 0; j < k; ++j) {
        const int idx = free[static_cast<std::size_t>(j)];
        rel_step = std::max(rel_step, std::abs(step[j]) / std::max(std::abs(trial[idx]), 1e-300));
      }
      // MINPACK's ftol: both the actual and the predicted relative reductions are small.
      const double rel_rss = std::max(rss - rss_t, predicted) / std::max(rss, 1e-300);
      p = trial;
      r = rt;
      rss = rss_t;
      mu *= std::max(1.0 / 3.0, 1.0 - std::pow(2 * rho - 1, 3));
      nu = 2;
      if (rel_step < opt.tolerance || rel_rss < opt.tolerance || rss == 0) {
        out.converged = true;
        out.message = "converged";
        break;
      }
    } else {
      mu *= nu;
      nu *= 2;
      if (!std::isfinite(mu) || mu > 1e300) {
        out.converged = true;  // no step improves: at a minimum to working precision
        out.message = "converged (no further improvement)";
        break;
      }
    }
  }
  out.p = p;
  out.rss = rss;
  return out;
}

}  // namespace

double ScalingFit::predict(double n) const { return usl(n, Eigen::Vector3d(lambda, sigma, kappa)); }

std::optional<double> ScalingFit::peak_gpus() const {
  if (model != ScalingModel::kUsl || !(kappa > 0) || sigma >= 1) return std::nullopt;
  return std::sqrt((1 - sigma) / kappa);
}

std::pair<double, double> ScalingFit::prediction_interval(double n) const {
  const Eigen::Vector3d g = usl_gradient(n, Eigen::Vector3d(lambda, sigma, kappa));
  const double var = g.dot(covariance * g) + residual_std_error * residual_std_error;
  const double half = t_quantile_975(std::max(1, observations - parameters)) * std::sqrt(std::max(0.0, var));
  const double mid = predict(n);
  return {mid - half, mid + half};
}

namespace {

// Refuses data no scaling law can be fitted to, with the reason.
void check_scaling_data(const std::vector<double>& gpus, const std::vector<double>& throughput, int p_full) {
  const int m = static_cast<int>(gpus.size());
  for (int i = 0; i < m; ++i) {
    if (!std::isfinite(gpus[static_cast<std::size_t>(i)]) || !std::isfinite(throughput[static_cast<std::size_t>(i)]))
      throw FitError("the data hold NaN or infinite values");
    if (!(gpus[static_cast<std::size_t>(i)] > 0) || !(throughput[static_cast<std::size_t>(i)] > 0))
      throw FitError("GPU counts and throughputs must be greater than zero");
  }
  // Distinct GPU counts, up to the number of parameters (no sort of a large input).
  std::vector<double> distinct;
  for (const double v : gpus) {
    if (std::find(distinct.begin(), distinct.end(), v) == distinct.end()) distinct.push_back(v);
    if (static_cast<int>(distinct.size()) >= p_full) break;
  }
  if (m >= 2 && distinct.size() == 1)
    throw FitError(fmt::format("all GPU counts are equal ({:g}): the data determine only λ", distinct[0]));
  if (m < p_full + 1)
    throw FitError(fmt::format("{} point{} cannot determine {} parameters; need at least {}", m, m == 1 ? "" : "s",
                               p_full, p_full + 1));
  if (static_cast<int>(distinct.size()) < p_full)
    throw FitError(fmt::format("{} distinct GPU counts cannot determine {} parameters; measure at least {}",
                               distinct.size(), p_full, p_full));
}

// Least squares decomposes by GPU count: Σ(f(N_i) − x_i)² = Σ_N c_N (f(N) − x̄_N)²
// + Σ (x_i − x̄_N)². So the fit runs on one weighted point per distinct N
// (weight c_N), exactly, however many rows were measured.
struct Groups {
  Eigen::VectorXd n, x, sqrt_weight;  ///< per distinct N: the count, the mean throughput, √c_N
  double within = 0;                  ///< Σ (x_i − x̄_N)²: the part no model can explain
};

Groups group_by_count(const std::vector<double>& gpus, const std::vector<double>& throughput) {
  struct Group {
    double count = 0, mean = 0, m2 = 0;  // Welford's running mean and sum of squares
  };
  std::map<double, Group> groups;
  for (std::size_t i = 0; i < gpus.size(); ++i) {
    Group& gr = groups[gpus[i]];
    const double v = throughput[i];
    gr.count += 1;
    const double d = v - gr.mean;
    gr.mean += d / gr.count;
    gr.m2 += d * (v - gr.mean);
  }
  Groups g;
  const auto size = static_cast<Eigen::Index>(groups.size());
  g.n.resize(size);
  g.x.resize(size);
  g.sqrt_weight.resize(size);
  Eigen::Index i = 0;
  for (const auto& [key, gr] : groups) {
    g.n[i] = key;
    g.x[i] = gr.mean;
    g.sqrt_weight[i] = std::sqrt(gr.count);
    g.within += gr.m2;
    ++i;
  }
  return g;
}

// Start: λ from the smallest configuration's per-GPU throughput; σ, κ from
// the linearised form N·λ/X − 1 = σ(N−1) + κN(N−1) (Gunther 2007, §5.5).
Eigen::Vector3d start_values(const Groups& g, ScalingModel model) {
  const Eigen::Index size = g.n.size();
  Eigen::Index imin = 0;
  g.n.minCoeff(&imin);
  Eigen::Vector3d start(g.x[imin] / g.n[imin], 0, 0);
  Eigen::MatrixXd A(size, model == ScalingModel::kUsl ? 2 : 1);
  Eigen::VectorXd b(size);
  for (Eigen::Index i = 0; i < size; ++i) {
    A(i, 0) = g.n[i] - 1;
    if (model == ScalingModel::kUsl) A(i, 1) = g.n[i] * (g.n[i] - 1);
    b[i] = g.n[i] * start[0] / g.x[i] - 1;
  }
  const Eigen::VectorXd s = A.colPivHouseholderQr().solve(b);
  if (s.allFinite()) {
    start[1] = std::max(0.0, s[0]);
    if (model == ScalingModel::kUsl) start[2] = std::max(0.0, s[1]);
  }
  return start;
}

// A negative contention or coherency coefficient has no physical meaning:
// hold it at 0 and refit the rest, and say so (never print it as if fine).
LmResult fit_non_negative(const Groups& g, const Eigen::Vector3d& start, std::vector<int>& free,
                          const LmOptions& options, std::vector<std::string>& constrained) {
  LmResult r = levenberg_marquardt(g.n, g.x, g.sqrt_weight, start, free, options);
  for (int pass = 0; pass < 2; ++pass) {
    bool changed = false;
    for (int j : {1, 2}) {
      if (std::find(free.begin(), free.end(), j) == free.end() || r.p[j] >= 0) continue;
      constrained.push_back(j == 1 ? "sigma" : "kappa");
      free.erase(std::find(free.begin(), free.end(), j));
      Eigen::Vector3d s = r.p;
      s[j] = 0;
      for (int o : free)
        if (s[o] < 0) s[o] = 0;
      r = levenberg_marquardt(g.n, g.x, g.sqrt_weight, s, free, options);
      changed = true;
      break;
    }
    if (!changed) break;
  }
  return r;
}

// Covariance σ²(JᵀJ)⁻¹ over the free parameters, from the QR of the
// (count-weighted, so equal to the full) Jacobian, never by forming JᵀJ.
void covariance(const Groups& g, const Eigen::Vector3d& p, const std::vector<int>& free, ScalingFit& f) {
  const Eigen::Index size = g.n.size();
  Eigen::MatrixXd J(size, f.parameters);
  for (Eigen::Index i = 0; i < size; ++i) {
    const Eigen::Vector3d grad = usl_gradient(g.n[i], p);
    for (int j = 0; j < f.parameters; ++j) J(i, j) = g.sqrt_weight[i] * grad[free[static_cast<std::size_t>(j)]];
  }
  const Eigen::ColPivHouseholderQR<Eigen::MatrixXd> qr(J);
  if (qr.rank() < f.parameters)
    throw FitError(fmt::format("the data determine only {} of {} parameters", qr.rank(), f.parameters));
  const Eigen::MatrixXd R = qr.matrixR().topLeftCorner(f.parameters, f.parameters).triangularView<Eigen::Upper>();
  const Eigen::MatrixXd Rinv =
      R.triangularView<Eigen::Upper>().solve(Eigen::MatrixXd::Identity(f.parameters, f.parameters));
  const Eigen::MatrixXd P = qr.colsPermutation();
  const Eigen::MatrixXd cov =
      f.residual_std_error * f.residual_std_error * (P * Rinv * Rinv.transpose() * P.transpose());
  for (int a = 0; a < f.parameters; ++a)
    for (int b = 0; b < f.parameters; ++b)
      f.covariance(free[static_cast<std::size_t>(a)], free[static_cast<std::size_t>(b)]) = cov(a, b);
  f.se_lambda = std::sqrt(f.covariance(0, 0));
  f.se_sigma = std::sqrt(f.covariance(1, 1));
  f.se_kappa = std::sqrt(f.covariance(2, 2));
}

// R² over the rows, and AICc = n·ln(RSS/n) + 2k + 2k(k+1)/(n−k−1), k = parameters + 1
// (the variance) (Burnham & Anderson 2002, eq. 2.14); AICc is undefined for a perfect fit.
void goodness(const std::vector<double>& throughput, ScalingFit& f) {
  const int m = f.observations;
  const double mean = std::accumulate(throughput.begin(), throughput.end(), 0.0) / m;
  double tss = 0;
  for (const double v : throughput) tss += (v - mean) * (v - mean);
  f.r_squared = tss > 0 ? 1 - f.rss / tss : 1.0;
  const int kk = f.parameters + 1;
  if (f.rss > 0 && m - kk - 1 > 0) f.aicc = m * std::log(f.rss / m) + 2.0 * kk + 2.0 * kk * (kk + 1) / (m - kk - 1);
}

}  // namespace

ScalingFit fit_scaling(const std::vector<double>& gpus, const std::vector<double>& throughput, ScalingModel model,
                       const LmOptions& options) {
  options.validate();
  if (gpus.size() != throughput.size()) throw std::logic_error("fit_scaling: sizes differ");
  check_scaling_data(gpus, throughput, model == ScalingModel::kUsl ? 3 : 2);
  const Groups g = group_by_count(gpus, throughput);
  std::vector<int> free = {0, 1};
  if (model == ScalingModel::kUsl) free.push_back(2);
  ScalingFit f;
  f.model = model;
  const LmResult r = fit_non_negative(g, start_values(g, model), free, options, f.constrained);
  f.lambda = r.p[0];
  f.sigma = r.p[1];
  f.kappa = model == ScalingModel::kUsl ? r.p[2] : 0.0;
  f.converged = r.converged;
  f.iterations = r.iterations;
  f.message = r.message;
  for (const auto& c : f.constrained) f.message += fmt::format("; {} held at 0 (the free fit made it negative)", c);
  f.observations = static_cast<int>(gpus.size());
  f.parameters = static_cast<int>(free.size());
  f.rss = r.rss + g.within;
  f.residual_std_error = std::sqrt(f.rss / std::max(1, f.observations - f.parameters));
  goodness(throughput, f);
  covariance(g, r.p, free, f);
  return f;
}

ProgressFit::Prediction ProgressFit::elapsed_at(double step) const {
  const double ahead = std::max(0.0, step - last_step);
  const double mid = last_elapsed + seconds_per_step * ahead;
  const double var = ahead * ahead * se_seconds_per_step * se_seconds_per_step +
                     residual_std_error * residual_std_error * (mean_interval > 0 ? ahead / mean_interval : 0.0);
  const double half = t_quantile_975(std::max(1, observations - 2)) * std::sqrt(std::max(0.0, var));
  return {mid, mid - half, mid + half};
}

ProgressFit fit_progress(const std::vector<double>& steps, const std::vector<double>& elapsed) {
  const std::size_t n = steps.size();
  if (n != elapsed.size()) throw std::logic_error("fit_progress: sizes differ");
  if (n < 4)
    throw FitError(
        fmt::format("{} row{} cannot determine a rate after warm-up; need at least 4", n, n == 1 ? "" : "s"));
  for (std::size_t i = 0; i < n; ++i) {
    if (!std::isfinite(steps[i]) || !std::isfinite(elapsed[i])) throw FitError("the data hold NaN or infinite values");
    if (i > 0 && !(steps[i] > steps[i - 1])) throw FitError(fmt::format("steps must increase (data row {})", i + 1));
    if (i > 0 && elapsed[i] < elapsed[i - 1])
      throw FitError(fmt::format("elapsed time goes backwards (data row {})", i + 1));
  }
  // Warm-up: the leading intervals whose seconds per step exceed 1.5× the
  // median of the second half (compilation, data-loader start, cache warm-up).
  std::vector<double> rate(n - 1);
  for (std::size_t i = 0; i + 1 < n; ++i) rate[i] = (elapsed[i + 1] - elapsed[i]) / (steps[i + 1] - steps[i]);
  std::vector<double> tail(rate.begin() + static_cast<std::ptrdiff_t>(rate.size() / 2), rate.end());
  std::nth_element(tail.begin(), tail.begin() + static_cast<std::ptrdiff_t>(tail.size() / 2), tail.end());
  const double median_rate = tail[tail.size() / 2];
  std::size_t warm = 0;
  while (warm + 4 < n && rate[warm] > 1.5 * median_rate) ++warm;
  const std::size_t m = n - 1 - warm;  // increments after warm-up
  Eigen::MatrixXd X(static_cast<Eigen::Index>(m), 1);
  Eigen::VectorXd y(static_cast<Eigen::Index>(m));
  for (std::size_t i = 0; i < m; ++i) {
    X(static_cast<Eigen::Index>(i), 0) = steps[warm + i + 1] - steps[warm + i];
    y[static_cast<Eigen::Index>(i)] = elapsed[warm + i + 1] - elapsed[warm + i];
  }
  // Huber IRLS (Huber 1964): weight 1 within c = 1.345 × a MAD scale of the
  // residuals, c/|r| beyond it, so one or two stalls barely move the rate.
  Eigen::VectorXd w = Eigen::VectorXd::Ones(static_cast<Eigen::Index>(m));
  LinearFit fit = fit_linear(X, y, &w);
  for (int it = 0; it < 50; ++it) {
    const Eigen::VectorXd res = y - X * fit.coefficients;
    std::vector<double> a(static_cast<std::size_t>(res.size()));
    for (Eigen::Index i = 0; i < res.size(); ++i) a[static_cast<std::size_t>(i)] = std::abs(res[i]);
    std::nth_element(a.begin(), a.begin() + static_cast<std::ptrdiff_t>(a.size() / 2), a.end());
    // Scale: 1.4826 × MAD, but at least 2% of the median increment, so that the
    // one-second resolution of a log is jitter, not a stall, when MAD is 0.
    std::vector<double> inc(static_cast<std::size_t>(y.size()));
    for (Eigen::Index i = 0; i < y.size(); ++i) inc[static_cast<std::size_t>(i)] = std::abs(y[i]);
    std::nth_element(inc.begin(), inc.begin() + static_cast<std::ptrdiff_t>(inc.size() / 2), inc.end());
    const double scale = std::max({1.4826 * a[a.size() / 2], 0.02 * inc[inc.size() / 2], 1e-12});
    const double c = 1.345 * scale;
    Eigen::VectorXd nw(res.size());
    for (Eigen::Index i = 0; i < res.size(); ++i) nw[i] = std::abs(res[i]) <= c ? 1.0 : c / std::abs(res[i]);
    if ((nw - w).lpNorm<Eigen::Infinity>() < 1e-9) break;
    w = nw;
    fit = fit_linear(X, y, &w);
  }
  ProgressFit p;
  p.seconds_per_step = fit.coefficients[0];
  p.se_seconds_per_step = fit.standard_errors[0];
  p.residual_std_error = fit.residual_std_error;
  p.observations = static_cast<int>(m + 1);
  p.warmup_points = static_cast<int>(warm);
  p.downweighted = static_cast<int>((w.array() < 0.5).count());
  p.mean_interval = (steps.back() - steps[warm]) / static_cast<double>(m);
  p.last_step = steps.back();
  p.last_elapsed = elapsed.back();
  if (!(p.seconds_per_step > 0)) throw FitError("the fitted time per step is not positive: is elapsed time constant?");
  return p;
}

std::string poor_scaling_fit(double r_squared, const std::string& what) {
  if (!(r_squared < kPoorScalingR2)) return {};
  return fmt::format(
      "{} explains only R² = {:.2f} of its measurements (under {}): check the measurements for a wrong row or a "
      "mixed workload before planning with it",
      what, r_squared, kPoorScalingR2);
}

namespace {
// The row whose residual relative to `fit` (measured ÷ fitted − 1) lies
// furthest from the median one, if more than 5 robust standard deviations
// (1.4826 × MAD, floored at 1% so that exact data never flag rounding).
// Relative, because measurement noise grows with the throughput.
std::optional<std::size_t> worst_outlier(const std::vector<double>& n, const std::vector<double>& x,
                                         const std::vector<std::size_t>& rows, const ScalingFit& fit) {
  std::vector<double> r;
  r.reserve(rows.size());
  for (const std::size_t i : rows) r.push_back(x[i] / std::max(fit.predict(n[i]), 1e-300) - 1.0);
  const auto median = [](std::vector<double> v) {
    std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(v.size() / 2), v.end());
    return v[v.size() / 2];
  };
  const double mid = median(r);
  std::vector<double> dev(r.size());
  for (std::size_t k = 0; k < r.size(); ++k) dev[k] = std::abs(r[k] - mid);
  const double scale = std::max(1.4826 * median(dev), 0.01);
  const auto worst = static_cast<std::size_t>(std::max_element(dev.begin(), dev.end()) - dev.begin());
  if (dev[worst] <= 5 * scale) return std::nullopt;
  return rows[worst];
}
}  // namespace

std::vector<std::size_t> scaling_outliers(const std::vector<double>& n, const std::vector<double>& x,
                                          ScalingModel model, std::size_t max_flagged) {
  std::vector<std::size_t> out;
  if (n.empty()) return out;
  const auto imin = static_cast<std::size_t>(std::min_element(n.begin(), n.end()) - n.begin());
  for (std::size_t i = 0; i < n.size(); ++i)
    if ((x[i] / n[i]) / (x[imin] / n[imin]) > 1.25) out.push_back(i);
  // One wrong row pulls a least-squares curve towards itself and makes its
  // neighbours look wrong too: take out the worst, refit, look again.
  std::vector<std::size_t> rows(n.size());
  std::iota(rows.begin(), rows.end(), std::size_t{0});
  for (std::size_t found = 0; found < max_flagged; ++found) {
    std::vector<double> kn, kx;
    for (const std::size_t i : rows) kn.push_back(n[i]), kx.push_back(x[i]);
    std::optional<std::size_t> worst;
    try {
      worst = worst_outlier(n, x, rows, fit_scaling(kn, kx, model));
    } catch (const FitError&) {
      break;  // too few points left to fit: nothing more can be said
    }
    if (!worst) break;
    if (std::find(out.begin(), out.end(), *worst) == out.end()) out.push_back(*worst);
    rows.erase(std::find(rows.begin(), rows.end(), *worst));
  }
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace gpuplan
