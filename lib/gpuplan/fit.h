// Least-squares fits of measured runs. Linear fits are solved by QR (never
// the normal equations) with the covariance from the R factor; the scaling
// laws (Amdahl, USL) by Levenberg–Marquardt. Every fit returns its
// coefficients with standard errors, goodness of fit and a verdict, and
// throws FitError when the data cannot determine it (too few points, all x
// equal). Printing lives in commands/fit.cc.
#pragma once

#include <Eigen/Dense>
#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace gpuplan {

struct LinearFit {
  Eigen::VectorXd coefficients;     ///< β, in the column order of X
  Eigen::VectorXd standard_errors;  ///< sqrt(diag(σ²·(XᵀX)⁻¹))
  Eigen::MatrixXd covariance;       ///< σ²·(XᵀX)⁻¹, from the QR factors
  double residual_std_error = 0.0;  ///< σ = sqrt(RSS / (n − p))
  double r_squared = 0.0;           ///< 1 − RSS/TSS
  Eigen::Index observations = 0;    ///< n
  Eigen::Index parameters = 0;      ///< p
  double predict(const Eigen::RowVectorXd& x) const { return x.dot(coefficients); }
};

/// Weighted when `weights` is given (IRLS). Throws FitError when the data cannot determine the fit.
LinearFit fit_linear(const Eigen::MatrixXd& X, const Eigen::VectorXd& y, const Eigen::VectorXd* weights = nullptr);

/// The 97.5% quantile of Student's t with `df` degrees of freedom (95% two-sided intervals).
double t_quantile_975(int df);

/// Throughput measured at GPU counts, kept per distinct count: the scaling
/// laws depend on N alone, so least squares over the rows equals weighted
/// least squares over the per-N means (weights = runs), plus the within-N sum
/// of squares no law can explain. Memory grows with the distinct counts and
/// not with the rows, so a 100M-row log streams in the memory of ten rows.
class ScalingSample {
 public:
  /// One measured row, for messages: its value and its tag (e.g. its line).
  struct Row {
    double throughput = 0;
    std::int64_t tag = 0;
  };
  /// The rows at one GPU count: their mean and sum of squared deviations
  /// (from shifted sums, stable for a million rows), and the extremes kept
  /// for the outlier checks (a wrong row in a group is its smallest or largest).
  struct Group {
    double gpus = 0;
    std::int64_t runs = 0;
    double mean = 0, m2 = 0;
    double shift = 0, s1 = 0, s2 = 0;  ///< the first value K, Σ(x − K), Σ(x − K)²
    std::int64_t first_tag = 0;
    std::vector<Row> low{}, high{};  ///< up to kExtremes smallest (ascending) and largest (descending)
    /// Sample standard deviation; none below two runs.
    std::optional<double> spread() const;
  };
  static constexpr std::size_t kExtremes = 5;

  /// Throws FitError for a non-finite or non-positive count or throughput.
  void add(double gpus, double throughput, std::int64_t tag);
  /// The rows of the vectors, tagged with their indices.
  static ScalingSample from_rows(const std::vector<double>& gpus, const std::vector<double>& throughput);
  /// Takes out one row kept as an extreme (the outlier checks).
  void remove_row(double gpus, const Row& row);
  /// Takes out every row at a GPU count.
  void remove_gpus(double gpus);
  /// Adds every row of `other` (a part read separately), as if added here.
  void merge(const ScalingSample& other);

  /// Ascending GPU count (sorted on first use after an add).
  const std::vector<Group>& groups() const;
  std::int64_t rows() const { return rows_; }

 private:
  Group& group(double gpus);
  void reindex() const;
  // Groups in order of arrival while rows are added, sorted when read; found
  // by a hash of the count (open addressing, index + 1, 0 empty), so a row
  // costs O(1) however the log interleaves its counts.
  mutable std::vector<Group> groups_{};
  mutable std::vector<std::uint32_t> slots_{};
  // Whole counts below kSmall (nearly every real one) skip the hash: a direct table.
  static constexpr std::size_t kSmall = 1024;
  static std::optional<std::size_t> small_count(double gpus);
  mutable std::array<std::uint32_t, kSmall> small_{};
  mutable bool sorted_ = true;
  mutable bool stale_ = false;  ///< mean and m2 not yet derived from the sums
  std::int64_t rows_ = 0;
};

enum class ScalingModel { kAmdahl, kUsl };

/// X(N) = λN / (1 + σ(N−1) + κN(N−1)); Amdahl is κ = 0 (Gunther 2007).
struct ScalingFit {
  ScalingModel model = ScalingModel::kUsl;
  double lambda = 0, sigma = 0, kappa = 0;
  double se_lambda = 0, se_sigma = 0, se_kappa = 0;
  Eigen::Matrix3d covariance = Eigen::Matrix3d::Zero();  ///< of (λ, σ, κ); zero rows for fixed parameters
  int observations = 0;
  int parameters = 0;  ///< free parameters
  double rss = 0, residual_std_error = 0, r_squared = 0;
  std::optional<double> aicc{};  ///< none for a perfect fit or too few points
  bool converged = false;
  int iterations = 0;
  std::string message{};                   ///< why it stopped; what was constrained
  std::vector<std::string> constrained{};  ///< parameters held at 0 because the free fit made them negative

  double predict(double n) const;
  /// Throughput at its maximum, N* = sqrt((1 − σ)/κ) (USL with κ > 0).
  std::optional<double> peak_gpus() const;
  /// 95% prediction interval at N (delta method plus residual variance).
  std::pair<double, double> prediction_interval(double n) const;
};

/// Below this R² a scaling fit explains too little of its measurements to
/// plan with (judgement: clean scaling data fits a law with R² > 0.99; a
/// wrong row or a mixed workload is what brings it under 0.9). `fit scaling`
/// and `plan --scaling` warn, they do not refuse.
inline constexpr double kPoorScalingR2 = 0.9;
/// "…" when `r_squared` < kPoorScalingR2, else "". `what` names the fit.
std::string poor_scaling_fit(double r_squared, const std::string& what);

struct LmOptions {
  int max_iterations = 200;
  double tolerance = 1e-12;  ///< relative change of the parameters and of the RSS
  /// Names the bad field, LBFGSpp style; throws std::invalid_argument.
  void validate() const;
};

/// Throws FitError for data that cannot determine the model.
ScalingFit fit_scaling(const ScalingSample& sample, ScalingModel model, const LmOptions& options = {});
/// The same over rows (each a tagged row of a sample).
ScalingFit fit_scaling(const std::vector<double>& gpus, const std::vector<double>& throughput, ScalingModel model,
                       const LmOptions& options = {});

/// A measurement that does not belong with the rest: one row (runs = 1, its
/// tag), or every run at one GPU count (their mean; the first row's tag).
struct ScalingOutlier {
  double gpus = 0, throughput = 0;
  std::int64_t runs = 1;
  std::int64_t tag = 0;
  double efficiency = 0;  ///< throughput per GPU over the smallest configuration's
};
struct ScalingOutliers {
  std::vector<ScalingOutlier> flagged{};  ///< ascending tag
  /// The fit without every flagged measurement: what the others predict
  /// (none when nothing was flagged or too little is left to fit).
  std::optional<ScalingFit> without{};
};

/// Measurements that do not belong with the rest, found one at a time and
/// taken out before looking again (one wrong row pulls a least-squares curve
/// towards itself and makes its neighbours look wrong), at most `max_flagged`:
/// - a row far from the other runs at its GPU count: its relative deviation
///   from their mean over the pooled relative spread of every count, beyond
///   max(5, √(2 ln rows) + 3) (the largest of a million normal deviates is
///   about 5.3: noise alone is never named), the spread at least 1%;
/// - a GPU count whose mean is off the law the other counts follow: relative
///   residual (measured ÷ fitted − 1) more than 5 robust standard deviations
///   (1.4826 × MAD, at least 1%) from the median one;
/// - a count whose mean efficiency is above 1.25 (superlinear beyond caches).
ScalingOutliers scaling_outliers(ScalingSample sample, ScalingModel model, std::size_t max_flagged = 5);

/// Time per step from a training log, after warm-up. The increments between
/// log rows are fitted, Δt = b·Δs, by robust (Huber IRLS) regression through
/// the origin, so a stall is one outlying increment, not a shift of every
/// later point; ETAs run from the last observation.
struct ProgressFit {
  double seconds_per_step = 0, se_seconds_per_step = 0;
  int observations = 0;           ///< rows after warm-up
  int warmup_points = 0;          ///< rows dropped from the start
  int downweighted = 0;           ///< increments the robust fit gave a weight below 0.5 (stalls)
  double residual_std_error = 0;  ///< of an increment, seconds
  double mean_interval = 0;       ///< steps between log rows
  double last_step = 0, last_elapsed = 0;
  struct Prediction {
    double value, low, high;
  };
  /// Predicted elapsed seconds at `step` ≥ the last step, with a 95% prediction
  /// interval: var = (T − s_last)²·var(b) + s²·(T − s_last)/mean interval.
  Prediction elapsed_at(double step) const;
};

ProgressFit fit_progress(const std::vector<double>& steps, const std::vector<double>& elapsed);

}  // namespace gpuplan
