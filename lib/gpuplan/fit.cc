#include "gpuplan/fit.h"
#include "gpuplan/i18n.h"

#include <algorithm>
#include <cmath>
#include <bit>
#include <cstring>
#include <fmt/format.h>
#include <limits>
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
  if (n <= p) throw FitError(trf("{} points cannot determine {} parameters; need at least {}", n, p, p + 1));
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
    throw FitError(trf("the data determine only {} of {} parameters (are all x values equal?)", qr.rank(), p));
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
  if (max_iterations < 1) throw std::invalid_argument(std::string(tr("max_iterations: must be at least 1")));
  if (!(tolerance > 0 && tolerance < 1))
    throw std::invalid_argument(std::string(tr("tolerance: must be within (0, 1)")));
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
  // Work arrays sized once: an iteration allocates nothing (k ≤ 3 free
  // parameters, so the k×k system lives on the stack).
  using Small = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, 0, 3, 3>;
  using SmallVector = Eigen::Matrix<double, Eigen::Dynamic, 1, 0, 3, 1>;
  Eigen::ArrayXd inv_d(m), common(m);
  Eigen::MatrixXd J(m, k);
  const auto residuals = [&](const Eigen::Vector3d& q, Eigen::VectorXd& into) {
    into = (sw.array() * (q[0] * n.array() / (1.0 + q[1] * nm1 + q[2] * nn1) - x.array())).matrix();
  };
  const auto jacobian = [&](const Eigen::Vector3d& q) {
    inv_d = 1.0 / (1.0 + q[1] * nm1 + q[2] * nn1);
    common = -q[0] * n.array() * inv_d * inv_d * sw.array();
    for (int j = 0; j < k; ++j) {
      const int idx = free[static_cast<std::size_t>(j)];
      if (idx == 0) J.col(j) = (sw.array() * n.array() * inv_d).matrix();
      else if (idx == 1) J.col(j) = (common * nm1).matrix();
      else J.col(j) = (common * nn1).matrix();
    }
  };
  Eigen::VectorXd r(m), rt(m);
  residuals(p, r);
  double rss = r.squaredNorm();
  double mu = -1, nu = 2;
  LmResult out{p, rss, false, 0, "iteration limit reached"};
  for (int it = 1; it <= opt.max_iterations; ++it) {
    out.iterations = it;
    jacobian(p);
    // JᵀJ is k×k (k ≤ 3): k(k+1)/2 dot products beat a general product on a tall J.
    Small A(k, k);
    for (int a = 0; a < k; ++a)
      for (int b = a; b < k; ++b) A(a, b) = A(b, a) = J.col(a).dot(J.col(b));
    const SmallVector grad = J.transpose() * r;
    if (grad.lpNorm<Eigen::Infinity>() <= opt.tolerance * std::max(1.0, rss)) {
      out.converged = true;
      out.message = "gradient vanished";
      break;
    }
    // The damping is scaled by diag(JᵀJ), so μ itself is dimensionless.
    if (mu < 0) mu = 1e-3;
    Small damped = A;
    for (int j = 0; j < k; ++j) damped(j, j) += mu * std::max(A(j, j), 1e-300);
    const SmallVector step = damped.ldlt().solve(-grad);
    Eigen::Vector3d trial = p;
    for (int j = 0; j < k; ++j) trial[free[static_cast<std::size_t>(j)]] += step[j];
    residuals(trial, rt);
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
      r.swap(rt);
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
void check_scaling_data(const ScalingSample& sample, int p_full) {
  const std::int64_t m = sample.rows();
  const auto& g = sample.groups();
  if (m >= 2 && g.size() == 1)
    throw FitError(trf("all GPU counts are equal ({:g}): the data determine only λ", g[0].gpus));
  if (m < p_full + 1)
    throw FitError(m == 1 ? trf("1 point cannot determine {} parameters; need at least {}", p_full, p_full + 1)
                          : trf("{} points cannot determine {} parameters; need at least {}", m, p_full, p_full + 1));
  if (static_cast<int>(g.size()) < p_full)
    throw FitError(
        trf("{} distinct GPU counts cannot determine {} parameters; measure at least {}", g.size(), p_full, p_full));
}

// Least squares decomposes by GPU count: Σ(f(N_i) − x_i)² = Σ_N c_N (f(N) − x̄_N)²
// + Σ (x_i − x̄_N)². So the fit runs on one weighted point per distinct N
// (weight c_N), exactly, however many rows were measured.
struct Groups {
  Eigen::VectorXd n, x, sqrt_weight;  ///< per distinct N: the count, the mean throughput, √c_N
  double within = 0;                  ///< Σ (x_i − x̄_N)²: the part no model can explain
};

Groups weighted_means(const ScalingSample& sample) {
  Groups g;
  const auto size = static_cast<Eigen::Index>(sample.groups().size());
  g.n.resize(size);
  g.x.resize(size);
  g.sqrt_weight.resize(size);
  Eigen::Index i = 0;
  for (const ScalingSample::Group& gr : sample.groups()) {
    g.n[i] = gr.gpus;
    g.x[i] = gr.mean;
    g.sqrt_weight[i] = std::sqrt(static_cast<double>(gr.runs));
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
    throw FitError(trf("the data determine only {} of {} parameters", qr.rank(), f.parameters));
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

// R² over the rows (TSS from the groups: within plus between), and
// AICc = n·ln(RSS/n) + 2k + 2k(k+1)/(n−k−1), k = parameters + 1 (the
// variance) (Burnham & Anderson 2002, eq. 2.14); undefined for a perfect fit.
void goodness(const ScalingSample& sample, ScalingFit& f) {
  const double m = static_cast<double>(sample.rows());
  double grand = 0;
  for (const auto& g : sample.groups()) grand += g.mean * static_cast<double>(g.runs) / m;
  double tss = 0;
  for (const auto& g : sample.groups()) tss += g.m2 + static_cast<double>(g.runs) * (g.mean - grand) * (g.mean - grand);
  f.r_squared = tss > 0 ? 1 - f.rss / tss : 1.0;
  const int kk = f.parameters + 1;
  if (f.rss > 0 && m - kk - 1 > 0) f.aicc = m * std::log(f.rss / m) + 2.0 * kk + 2.0 * kk * (kk + 1) / (m - kk - 1);
}

}  // namespace

std::optional<double> ScalingSample::Group::spread() const {
  if (runs < 2) return std::nullopt;
  return std::sqrt(std::max(0.0, m2 / static_cast<double>(runs - 1)));
}

namespace {
// Fibonacci hashing (Knuth, TAOCP 6.4): the top bits of the product, which
// depend on every bit of the count (integer-valued doubles end in zeros).
std::size_t slot_of(double gpus, std::size_t mask) {
  std::uint64_t bits = 0;
  std::memcpy(&bits, &gpus, sizeof bits);
  return static_cast<std::size_t>((bits * 0x9E3779B97F4A7C15ull) >> (64 - std::bit_width(mask)));
}
}  // namespace

const std::vector<ScalingSample::Group>& ScalingSample::groups() const {
  if (!sorted_) {
    std::sort(groups_.begin(), groups_.end(), [](const Group& a, const Group& b) { return a.gpus < b.gpus; });
    reindex();
    sorted_ = true;
  }
  if (stale_) {
    for (Group& g : groups_) {
      const double n = static_cast<double>(g.runs);
      g.mean = g.shift + g.s1 / n;
      g.m2 = std::max(0.0, g.s2 - g.s1 * g.s1 / n);
    }
    stale_ = false;
  }
  return groups_;
}

void ScalingSample::reindex() const {
  std::size_t size = 16;
  while (size < 2 * groups_.size()) size *= 2;
  slots_.assign(size, 0);
  small_.fill(0);
  for (std::size_t i = 0; i < groups_.size(); ++i) {
    std::size_t k = slot_of(groups_[i].gpus, size - 1);
    while (slots_[k] != 0) k = (k + 1) & (size - 1);
    slots_[k] = static_cast<std::uint32_t>(i + 1);
    if (const auto n = small_count(groups_[i].gpus)) small_[*n] = static_cast<std::uint32_t>(i + 1);
  }
}

std::optional<std::size_t> ScalingSample::small_count(double gpus) {
  if (!(gpus < static_cast<double>(kSmall))) return std::nullopt;
  const auto n = static_cast<std::size_t>(gpus);  // gpus > 0: add checked it
  return static_cast<double>(n) == gpus ? std::optional<std::size_t>(n) : std::nullopt;
}

ScalingSample::Group& ScalingSample::group(double gpus) {
  const auto small = small_count(gpus);
  if (small && small_[*small] != 0) return groups_[small_[*small] - 1];
  if (slots_.empty()) reindex();
  const std::size_t mask = slots_.size() - 1;
  std::size_t k = slot_of(gpus, mask);
  for (; slots_[k] != 0; k = (k + 1) & mask)
    if (groups_[slots_[k] - 1].gpus == gpus) return groups_[slots_[k] - 1];
  if (groups_.size() >= std::numeric_limits<std::uint32_t>::max() - 1)
    throw FitError("more distinct GPU counts than can be kept (4 billion)");
  if (!groups_.empty() && gpus < groups_.back().gpus) sorted_ = false;
  groups_.push_back(Group{.gpus = gpus});
  if (2 * groups_.size() > slots_.size()) {
    reindex();
  } else {
    slots_[k] = static_cast<std::uint32_t>(groups_.size());
    if (small) small_[*small] = static_cast<std::uint32_t>(groups_.size());
  }
  return groups_.back();
}

void ScalingSample::add(double gpus, double throughput, std::int64_t tag) {
  if (!std::isfinite(gpus) || !std::isfinite(throughput))
    throw FitError(std::string(tr("the data hold NaN or infinite values")));
  if (!(gpus > 0) || !(throughput > 0))
    throw FitError(std::string(tr("GPU counts and throughputs must be greater than zero")));
  Group& g = group(gpus);
  if (g.runs == 0) g.first_tag = tag;
  ++g.runs;
  ++rows_;
  // The shifted-data sums (Chan, Golub & LeVeque 1983): Σ(x − K) and Σ(x − K)²
  // with K the first value, as stable as Welford's method while the values
  // stay within many standard deviations of K, and no division per row.
  if (g.runs == 1) g.shift = throughput;
  const double d = throughput - g.shift;
  g.s1 += d;
  g.s2 += d * d;
  stale_ = true;
  // Keep the kExtremes smallest and largest; most rows pass one comparison each.
  const auto keep = [&](std::vector<Row>& v, auto before) {
    if (v.size() == kExtremes && !before(throughput, v.back().throughput)) return;
    const auto at = std::upper_bound(v.begin(), v.end(), throughput,
                                     [&](double t, const Row& r) { return before(t, r.throughput); });
    v.insert(at, Row{throughput, tag});
    if (v.size() > kExtremes) v.pop_back();
  };
  keep(g.low, std::less<double>());
  keep(g.high, std::greater<double>());
}

ScalingSample ScalingSample::from_rows(const std::vector<double>& gpus, const std::vector<double>& throughput) {
  if (gpus.size() != throughput.size()) throw std::logic_error("ScalingSample::from_rows: sizes differ");
  ScalingSample s;
  for (std::size_t i = 0; i < gpus.size(); ++i) s.add(gpus[i], throughput[i], static_cast<std::int64_t>(i));
  return s;
}

void ScalingSample::remove_row(double gpus, const Row& row) {
  Group& g = group(gpus);
  if (g.runs == 1) return remove_gpus(gpus);
  const double x = row.throughput, d = x - g.shift;
  g.s1 -= d;
  g.s2 -= d * d;
  --g.runs;
  --rows_;
  stale_ = true;
  for (auto* v : {&g.low, &g.high})
    std::erase_if(*v, [&](const Row& r) { return r.tag == row.tag && r.throughput == x; });
}

void ScalingSample::merge(const ScalingSample& other) {
  for (const Group& o : other.groups()) {
    Group& g = group(o.gpus);
    if (g.runs == 0) {
      g = o;
    } else {
      // Shift the other part's sums to this group's K: Σ(x − K) = s1' + n'(K' − K),
      // Σ(x − K)² = s2' + 2(K' − K)s1' + n'(K' − K)².
      const double d = o.shift - g.shift, n = static_cast<double>(o.runs);
      g.s2 += o.s2 + 2 * d * o.s1 + n * d * d;
      g.s1 += o.s1 + n * d;
      g.runs += o.runs;
      g.first_tag = std::min(g.first_tag, o.first_tag);
      const auto keep = [](std::vector<Row>& v, const std::vector<Row>& more, auto before) {
        v.insert(v.end(), more.begin(), more.end());
        std::stable_sort(v.begin(), v.end(),
                         [&](const Row& a, const Row& b) { return before(a.throughput, b.throughput); });
        if (v.size() > kExtremes) v.resize(kExtremes);
      };
      keep(g.low, o.low, std::less<double>());
      keep(g.high, o.high, std::greater<double>());
    }
    rows_ += o.runs;
  }
  stale_ = true;
}

void ScalingSample::remove_gpus(double gpus) {
  groups();  // sorted, so erasing keeps the order
  const auto it = std::find_if(groups_.begin(), groups_.end(), [&](const Group& g) { return g.gpus == gpus; });
  if (it == groups_.end()) return;
  rows_ -= it->runs;
  groups_.erase(it);
  reindex();
}

ScalingFit fit_scaling(const ScalingSample& sample, ScalingModel model, const LmOptions& options) {
  options.validate();
  check_scaling_data(sample, model == ScalingModel::kUsl ? 3 : 2);
  const Groups g = weighted_means(sample);
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
  f.observations = static_cast<int>(std::min<std::int64_t>(sample.rows(), std::numeric_limits<int>::max()));
  f.parameters = static_cast<int>(free.size());
  f.rss = r.rss + g.within;
  f.residual_std_error = std::sqrt(f.rss / std::max(1.0, static_cast<double>(sample.rows() - f.parameters)));
  goodness(sample, f);
  covariance(g, r.p, free, f);
  return f;
}

ScalingFit fit_scaling(const std::vector<double>& gpus, const std::vector<double>& throughput, ScalingModel model,
                       const LmOptions& options) {
  if (gpus.size() != throughput.size()) throw std::logic_error("fit_scaling: sizes differ");
  return fit_scaling(ScalingSample::from_rows(gpus, throughput), model, options);
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
    throw FitError(n == 1 ? std::string(tr("1 row cannot determine a rate after warm-up; need at least 4"))
                          : trf("{} rows cannot determine a rate after warm-up; need at least 4", n));
  for (std::size_t i = 0; i < n; ++i) {
    if (!std::isfinite(steps[i]) || !std::isfinite(elapsed[i]))
      throw FitError(std::string(tr("the data hold NaN or infinite values")));
    if (i > 0 && !(steps[i] > steps[i - 1])) throw FitError(trf("steps must increase (data row {})", i + 1));
    if (i > 0 && elapsed[i] < elapsed[i - 1]) throw FitError(trf("elapsed time goes backwards (data row {})", i + 1));
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
  if (!(p.seconds_per_step > 0))
    throw FitError(std::string(tr("the fitted time per step is not positive: is elapsed time constant?")));
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

// Relative spreads below 1% are rounding, not noise: exact data never flag.
constexpr double kSpreadFloor = 0.01;

struct RowCandidate {
  double gpus;
  ScalingSample::Row row;
};

// The extreme row furthest from the other runs at its GPU count, if beyond
// the threshold: deviation from their mean, relative, over the pooled
// relative standard deviation of every count without it (√(1 + 1/c) for the
// uncertainty of the others' mean of c runs).
std::optional<RowCandidate> worst_row(const ScalingSample& s) {
  double ss = 0, dof = 0;
  for (const auto& g : s.groups())
    if (g.runs >= 2) ss += g.m2 / (g.mean * g.mean), dof += static_cast<double>(g.runs - 1);
  const double limit = std::max(5.0, std::sqrt(2 * std::log(static_cast<double>(s.rows()))) + 3);
  std::optional<RowCandidate> best;
  double best_z = limit;
  for (const auto& g : s.groups()) {
    if (g.runs < 3) continue;
    const double c = static_cast<double>(g.runs - 1);
    for (const std::vector<ScalingSample::Row>* side : {&g.low, &g.high}) {
      if (side->empty()) continue;
      const ScalingSample::Row& r = side->front();
      const double others = (g.mean * static_cast<double>(g.runs) - r.throughput) / c;
      const double m2 = std::max(0.0, g.m2 - (r.throughput - g.mean) * (r.throughput - others));
      if (!(others > 0) || dof - 1 < 1) continue;
      const double pooled = (ss - g.m2 / (g.mean * g.mean) + m2 / (others * others)) / (dof - 1);
      const double sd = std::max(std::sqrt(std::max(0.0, pooled)), kSpreadFloor) * std::sqrt(1 + 1 / c);
      const double z = std::abs(r.throughput / others - 1) / sd;
      if (z > best_z) best_z = z, best = RowCandidate{g.gpus, r};
    }
  }
  return best;
}

// The GPU count whose mean lies furthest from the law the others follow:
// relative residual (measured ÷ fitted − 1; relative, because noise grows
// with the throughput) from the median one, if more than 5 robust standard
// deviations (1.4826 × MAD, at least 1%).
std::optional<double> worst_gpus(const ScalingSample& s, const ScalingFit& fit) {
  std::vector<double> r;
  for (const auto& g : s.groups()) r.push_back(g.mean / std::max(fit.predict(g.gpus), 1e-300) - 1.0);
  const auto median = [](std::vector<double> v) {
    std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(v.size() / 2), v.end());
    return v[v.size() / 2];
  };
  const double mid = median(r);
  std::vector<double> dev(r.size());
  for (std::size_t k = 0; k < r.size(); ++k) dev[k] = std::abs(r[k] - mid);
  const double scale = std::max(1.4826 * median(dev), kSpreadFloor);
  const auto worst = static_cast<std::size_t>(std::max_element(dev.begin(), dev.end()) - dev.begin());
  if (dev[worst] <= 5 * scale) return std::nullopt;
  return s.groups()[worst].gpus;
}

const ScalingSample::Group* find_gpus(const ScalingSample& s, double gpus) {
  for (const auto& g : s.groups())
    if (g.gpus == gpus) return &g;
  return nullptr;
}

}  // namespace

ScalingOutliers scaling_outliers(ScalingSample s, ScalingModel model, std::size_t max_flagged) {
  ScalingOutliers out;
  if (s.groups().empty()) return out;
  while (out.flagged.size() < max_flagged) {
    if (const auto row = worst_row(s)) {
      out.flagged.push_back({row->gpus, row->row.throughput, 1, row->row.tag});
      s.remove_row(row->gpus, row->row);
      continue;
    }
    std::optional<double> gpus;
    try {
      gpus = worst_gpus(s, fit_scaling(s, model));
    } catch (const FitError&) {
      break;  // too few points left to fit: nothing more can be said
    }
    if (!gpus) break;
    const ScalingSample::Group& g = *find_gpus(s, *gpus);
    out.flagged.push_back({g.gpus, g.mean, g.runs, g.first_tag});
    s.remove_gpus(*gpus);
  }
  // Superlinear beyond what caches explain, against the smallest configuration left.
  if (!s.groups().empty()) {
    const double base = s.groups().front().mean / s.groups().front().gpus;
    std::vector<double> superlinear;
    for (const auto& g : s.groups())
      if (out.flagged.size() + superlinear.size() < max_flagged && g.mean / g.gpus / base > 1.25) {
        out.flagged.push_back({g.gpus, g.mean, g.runs, g.first_tag});
        superlinear.push_back(g.gpus);
      }
    for (const double n : superlinear) s.remove_gpus(n);
  }
  if (out.flagged.empty()) return out;
  const double base = s.groups().empty() ? out.flagged.front().throughput / out.flagged.front().gpus
                                         : s.groups().front().mean / s.groups().front().gpus;
  for (ScalingOutlier& o : out.flagged) o.efficiency = o.throughput / o.gpus / base;
  std::sort(out.flagged.begin(), out.flagged.end(),
            [](const ScalingOutlier& a, const ScalingOutlier& b) { return a.tag < b.tag; });
  try {
    out.without = fit_scaling(s, model);
  } catch (const FitError&) {
  }
  return out;
}

}  // namespace gpuplan
