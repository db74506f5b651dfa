// Least-squares fits of measured runs. Linear fits are solved by QR (never
// the normal equations) with the covariance from the R factor; the scaling
// laws (Amdahl, USL) by Levenberg–Marquardt. Every fit returns its
// coefficients with standard errors, goodness of fit and a verdict, and
// throws FitError when the data cannot determine it (too few points, all x
// equal). Printing lives in commands/fit.cc.
#pragma once

#include <Eigen/Dense>
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

/// Measured points that do not belong with the rest: efficiency (throughput
/// per GPU over the smallest configuration's) above 1.25, or a relative
/// residual (measured ÷ fitted − 1) more than 5 robust standard deviations
/// (1.4826 × MAD, at least 1%) from the median one, found one at a time with
/// a refit of `model` without it (at most `max_flagged`). Sorted indices into n and x.
std::vector<std::size_t> scaling_outliers(const std::vector<double>& n, const std::vector<double>& x,
                                          ScalingModel model, std::size_t max_flagged = 5);

struct LmOptions {
  int max_iterations = 200;
  double tolerance = 1e-12;  ///< relative change of the parameters and of the RSS
  /// Names the bad field, LBFGSpp style; throws std::invalid_argument.
  void validate() const;
};

/// Throws FitError for data that cannot determine the model.
ScalingFit fit_scaling(const std::vector<double>& gpus, const std::vector<double>& throughput, ScalingModel model,
                       const LmOptions& options = {});

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
