#include "gpuplan/commands/fit.h"

#include "gpuplan/commands/flags.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <fmt/format.h>
#include <map>
#include <optional>

#include "gpuplan/csv.h"
#include "gpuplan/error.h"
#include "gpuplan/fit.h"
#include "gpuplan/units.h"

namespace gpuplan {
namespace {

std::vector<double> positive_column(const CsvTable& t, const std::string& column) {
  std::vector<double> v = t.numbers(column);
  for (std::size_t r = 0; r < v.size(); ++r)
    if (!(v[r] > 0)) {
      const auto at = t.place(r, column);
      throw InputError(SourceLocation{t.file(), at.line, at.column}, column,
                       fmt::format("{:g} must be greater than zero", v[r]));
    }
  return v;
}

// A fit the data cannot determine is bad input: name the file.
template <class F>
auto fit_or_input_error(const std::string& file, F f) {
  try {
    return f();
  } catch (const FitError& e) {
    throw InputError(SourceLocation{file}, "", e.what());
  }
}

std::string column_or(const CsvTable& t, const std::string& wanted, const char* flag) {
  if (t.has(wanted)) return wanted;
  throw InputError(
      SourceLocation{t.file(), t.header_line(), 0}, wanted,
      fmt::format("no such column (the header has: {}; choose one with {})", fmt::join(t.header(), ", "), flag));
}

// A chart of the measured points and the fitted curves, within 80 columns.
std::string scaling_chart(const std::vector<double>& n, const std::vector<double>& x,
                          const std::vector<std::pair<char, const ScalingFit*>>& fits, double n_max) {
  const int w = 64, h = 16, label = 8;
  double y_max = *std::max_element(x.begin(), x.end());
  for (const auto& [c, f] : fits)
    for (int col = 0; col < w; ++col) y_max = std::max(y_max, f->predict(1 + (n_max - 1) * col / (w - 1)));
  std::vector<std::string> grid(h, std::string(w, ' '));
  const auto row_of = [&](double y) {
    return std::clamp(h - 1 - static_cast<int>(std::lround(y / y_max * (h - 1))), 0, h - 1);
  };
  const auto col_of = [&](double v) {
    return std::clamp(static_cast<int>(std::lround((v - 1) / (n_max - 1) * (w - 1))), 0, w - 1);
  };
  for (const auto& [c, f] : fits)
    for (int col = 0; col < w; ++col)
      grid[static_cast<std::size_t>(row_of(f->predict(1 + (n_max - 1) * col / (w - 1))))]
          [static_cast<std::size_t>(col)] = c;
  for (std::size_t i = 0; i < n.size(); ++i)
    grid[static_cast<std::size_t>(row_of(x[i]))][static_cast<std::size_t>(col_of(n[i]))] = '*';
  std::string out = "Throughput against GPUs (* measured";
  for (const auto& [c, f] : fits) out += fmt::format(", {} {}", c, f->model == ScalingModel::kUsl ? "USL" : "Amdahl");
  out += ")\n";
  for (int r = 0; r < h; ++r) {
    const bool show = r == 0 || r == h - 1 || r == h / 2;
    const double v = y_max * (h - 1 - r) / (h - 1);
    const std::string tick = v >= 1e6   ? fmt::format("{:.1f}M", v / 1e6)
                             : v >= 1e4 ? fmt::format("{:.1f}k", v / 1e3)
                                        : fmt::format("{:.4g}", v);
    std::string line = fmt::format("{:>{}} |{}", show ? tick : "", label, grid[static_cast<std::size_t>(r)]);
    while (!line.empty() && line.back() == ' ') line.pop_back();
    out += line + "\n";
  }
  out += std::string(label + 1, ' ') + "+" + std::string(w, '-') + "\n";
  const std::string right = fmt::format("{:g} GPUs", n_max);
  out += std::string(label + 2, ' ') + "1" + std::string(static_cast<std::size_t>(w - 1) - right.size(), ' ') + right +
         "\n";
  return out;
}

}  // namespace

namespace {

std::vector<double> predict_counts(const ScalingQuery& q) {
  std::vector<double> predict;
  for (const std::string& t : q.predict) {
    const double p = flag_number("--predict", t);
    if (p != std::floor(p) || p > 1e7)
      throw InputError(SourceLocation{"--predict " + t}, "",
                       fmt::format("{} is not a GPU count (a whole number, 1 to 10,000,000)", t));
    predict.push_back(p);
  }
  return predict;
}

struct ScalingFits {
  std::vector<ScalingFit> fits{};
  std::string usl_refused{};  ///< why the USL was not fitted (model both)
};

ScalingFits scaling_fits(const std::string& file, const std::vector<double>& n, const std::vector<double>& x,
                         const std::string& model) {
  ScalingFits out;
  if (model == "usl")
    out.fits.push_back(fit_or_input_error(file, [&] { return fit_scaling(n, x, ScalingModel::kUsl); }));
  if (model == "both") {
    // With too few points for the USL's three parameters, Amdahl's two may still be determined.
    try {
      out.fits.push_back(fit_scaling(n, x, ScalingModel::kUsl));
    } catch (const FitError& e) {
      out.usl_refused = e.what();
    }
  }
  if (model != "usl")
    out.fits.push_back(fit_or_input_error(file, [&] { return fit_scaling(n, x, ScalingModel::kAmdahl); }));
  return out;
}

std::string model_name(const ScalingFit& f) { return f.model == ScalingModel::kUsl ? "usl" : "amdahl"; }

Table models_table(const std::vector<ScalingFit>& fits) {
  Table models;
  models.name = "models";
  models.columns = {{"model", "model"},         {"r_squared", "R²", -6}, {"residual_std_error", "resid SE", 4},
                    {"aicc", "AICc", 2},        {"peak_gpus", "N*", 1},  {"peak_throughput", "X(N*)", 2},
                    {"converged", "converged"}, {"note", "note"}};
  for (const ScalingFit& f : fits) {
    const auto peak = f.peak_gpus();
    std::string note;
    for (const auto& c : f.constrained) note += (note.empty() ? "" : "; ") + c + " held at 0 (fit made it negative)";
    if (f.model == ScalingModel::kAmdahl && f.sigma > 0)
      note += (note.empty() ? "" : "; ") + fmt::format("no peak: approaches λ/σ = {:.4g}", f.lambda / f.sigma);
    models.add_row({model_name(f), f.r_squared, f.residual_std_error, f.aicc ? Cell{*f.aicc} : Cell{},
                    peak ? Cell{*peak} : Cell{}, peak ? Cell{f.predict(*peak)} : Cell{}, f.converged,
                    note.empty() ? Cell{} : Cell{note}});
  }
  return models;
}

Table coefficients_table(const std::vector<ScalingFit>& fits) {
  Table coef;
  coef.name = "coefficients";
  coef.title = "Coefficients (95% confidence intervals)";
  coef.columns = {{"model", "model"},           {"parameter", "parameter"},
                  {"estimate", "estimate", -7}, {"std_error", "std error", -4},
                  {"ci_low", "low", -6},        {"ci_high", "high", -6}};
  for (const ScalingFit& f : fits) {
    const double tq = t_quantile_975(std::max(1, f.observations - f.parameters));
    const auto row = [&](const char* p, double v, double se, bool fixed) {
      coef.add_row({model_name(f), std::string(p), v, fixed ? Cell{} : Cell{se}, fixed ? Cell{} : Cell{v - tq * se},
                    fixed ? Cell{} : Cell{v + tq * se}});
    };
    const auto held = [&](const char* p) {
      return std::find(f.constrained.begin(), f.constrained.end(), p) != f.constrained.end();
    };
    row("lambda", f.lambda, f.se_lambda, false);
    row("sigma", f.sigma, f.se_sigma, held("sigma"));
    if (f.model == ScalingModel::kUsl) row("kappa", f.kappa, f.se_kappa, held("kappa"));
  }
  return coef;
}

// The measurements per distinct GPU count: how many runs, their mean and
// spread. The laws depend on N alone, so this is what the fit sees (least
// squares over rows = weighted least squares over the per-N means), and a
// million-row log prints a few lines, not a million.
struct PointGroup {
  double n = 0, sum = 0, sum_sq = 0;
  std::int64_t runs = 0;
  double mean() const { return sum / static_cast<double>(runs); }
  /// Sample standard deviation; none for a single run.
  std::optional<double> spread() const {
    if (runs < 2) return std::nullopt;
    const double m = mean();
    return std::sqrt(std::max(0.0, (sum_sq - static_cast<double>(runs) * m * m) / static_cast<double>(runs - 1)));
  }
};

std::vector<PointGroup> group_points(const std::vector<double>& n, const std::vector<double>& x) {
  std::map<double, PointGroup> by_n;
  for (std::size_t i = 0; i < n.size(); ++i) {
    PointGroup& g = by_n[n[i]];
    g.n = n[i];
    g.sum += x[i];
    g.sum_sq += x[i] * x[i];
    ++g.runs;
  }
  std::vector<PointGroup> out;
  out.reserve(by_n.size());
  for (const auto& [key, g] : by_n) out.push_back(g);
  return out;
}

Table points_table(const std::vector<PointGroup>& groups, const std::vector<ScalingFit>& fits) {
  Table pts;
  pts.name = "points";
  pts.title = "Measured points (per GPU count: runs, mean, sample standard deviation)";
  pts.columns = {{"gpus", "GPUs", -6},
                 {"runs", "runs"},
                 {"measured", "measured", 2},
                 {"spread", "spread", 2},
                 {"efficiency", "efficiency", 3}};
  for (const ScalingFit& f : fits) pts.columns.push_back({model_name(f) + "_fit", model_name(f), 2});
  // Scaling efficiency: mean throughput per GPU relative to the smallest configuration's.
  const double base = groups.front().mean() / groups.front().n;
  for (const PointGroup& g : groups) {
    const auto spread = g.spread();
    std::vector<Cell> r{g.n, g.runs, g.mean(), spread ? Cell{*spread} : Cell{}, (g.mean() / g.n) / base};
    for (const ScalingFit& f : fits) r.emplace_back(f.predict(g.n));
    pts.add_row(std::move(r));
  }
  return pts;
}

Table predictions_table(const std::vector<double>& predict, const std::vector<ScalingFit>& fits) {
  Table pred;
  pred.name = "predictions";
  pred.title = "Predictions (95% prediction intervals)";
  pred.columns = {
      {"gpus", "GPUs", 0}, {"model", "model"}, {"throughput", "predicted", 2}, {"low", "low", 2}, {"high", "high", 2}};
  for (const double p : predict) {
    for (const ScalingFit& f : fits) {
      const auto [lo, hi] = f.prediction_interval(p);
      pred.add_row({p, model_name(f), f.predict(p), std::max(0.0, lo), hi});
    }
  }
  return pred;
}

// What should stop a user from planning with this fit: a poor R², points
// that do not belong with the rest (named by line, so they can be checked).
std::vector<std::string> scaling_warnings(const CsvTable& t, const std::vector<double>& n, const std::vector<double>& x,
                                          const ScalingFits& sf) {
  std::vector<std::string> out;
  const auto best = std::max_element(sf.fits.begin(), sf.fits.end(), [](const ScalingFit& a, const ScalingFit& b) {
    return a.r_squared < b.r_squared;
  });
  if (best == sf.fits.end()) return out;
  if (std::string w = poor_scaling_fit(best->r_squared, "The best fit (" + model_name(*best) + ")"); !w.empty())
    out.push_back(std::move(w));
  const auto imin = static_cast<std::size_t>(std::min_element(n.begin(), n.end()) - n.begin());
  for (const std::size_t i : scaling_outliers(n, x, best->model))
    out.push_back(fmt::format(
        "{}:{}: {:g} at {:g} GPUs does not belong with the other points (efficiency {:.2f}, "
        "{} predicts {:.6g}): a typo, or another workload?",
        t.file(), t.line(i), x[i], n[i], (x[i] / n[i]) / (x[imin] / n[imin]), model_name(*best), best->predict(n[i])));
  return out;
}

void scaling_notes(Report& rep, const ScalingFits& sf) {
  const std::vector<ScalingFit>& fits = sf.fits;
  if (fits.size() == 2 && fits[0].aicc && fits[1].aicc) {
    const double d = *fits[1].aicc - *fits[0].aicc;
    rep.notes.push_back(fmt::format("AICc prefers {} by {:.1f} ({}).", d > 0 ? "the USL" : "Amdahl", std::abs(d),
                                    std::abs(d) < 2    ? "not a meaningful difference"
                                    : std::abs(d) < 10 ? "some support"
                                                       : "strong support"));
  }
  if (!sf.usl_refused.empty()) rep.notes.push_back("USL not fitted: " + sf.usl_refused + ".");
  rep.notes.push_back(
      "X(N) = λN / (1 + σ(N−1) + κN(N−1)) (Gunther 2007), Amdahl with κ = 0; least squares by "
      "Levenberg-Marquardt; N* = sqrt((1−σ)/κ).");
  rep.notes.push_back("Save the fit for plan: gpuplan fit scaling FILE --format json -o scaling.json");
}

}  // namespace

Report fit_scaling_report(const Context&, const ScalingQuery& q) {
  const std::vector<double> predict = predict_counts(q);
  const CsvTable t = CsvTable::load(q.file);
  const std::string xcol = column_or(t, q.x, "--x");
  const std::string ycol = column_or(t, q.y, "--y");
  const std::vector<double> n = positive_column(t, xcol);
  const std::vector<double> x = positive_column(t, ycol);
  const ScalingFits sf = scaling_fits(t.file(), n, x, q.model);
  Report rep;
  rep.command = "fit scaling";
  rep.title = fmt::format("Scaling fit of {} against {} ({} points, {})", ycol, xcol, n.size(), t.file());
  const std::vector<PointGroup> groups = group_points(n, x);
  rep.tables = {models_table(sf.fits), coefficients_table(sf.fits), points_table(groups, sf.fits)};
  rep.warnings = scaling_warnings(t, n, x, sf);
  if (!predict.empty()) rep.tables.push_back(predictions_table(predict, sf.fits));
  rep.primary = 1;
  if (q.chart) {
    double n_max = *std::max_element(n.begin(), n.end());
    for (double p : predict) n_max = std::max(n_max, p);
    std::vector<std::pair<char, const ScalingFit*>> curves;
    for (const ScalingFit& f : sf.fits) curves.emplace_back(f.model == ScalingModel::kUsl ? 'U' : 'A', &f);
    rep.figures.push_back(scaling_chart(n, x, curves, n_max));
  }
  Json in = Json::object();
  in["file"] = q.file;
  in["x"] = xcol;
  in["y"] = ycol;
  in["model"] = q.model;
  Json pr = Json::array();
  for (double p : predict) pr.push_back(p);
  in["predict"] = std::move(pr);
  rep.inputs = std::move(in);
  scaling_notes(rep, sf);
  return rep;
}

double parse_timestamp(std::string_view s) {
  const auto bad = [&] {
    return std::invalid_argument(fmt::format("'{}' is not a timestamp (YYYY-MM-DDTHH:MM:SS)", s));
  };
  if (s.size() < 19 || (s[10] != 'T' && s[10] != ' ') || s[13] != ':' || s[16] != ':') throw bad();
  const Date d = parse_date(s.substr(0, 10));
  int hh = 0, mm = 0;
  double ss = 0;
  if (std::from_chars(s.data() + 11, s.data() + 13, hh).ec != std::errc() ||
      std::from_chars(s.data() + 14, s.data() + 16, mm).ec != std::errc())
    throw bad();
  std::string_view rest = s.substr(17);
  if (rest.ends_with('Z')) rest.remove_suffix(1);
  const auto [ptr, ec] = std::from_chars(rest.data(), rest.data() + rest.size(), ss);
  if (ec != std::errc() || ptr != rest.data() + rest.size() || hh > 23 || mm > 59 || ss >= 61) throw bad();
  return static_cast<double>(d.time_since_epoch().count()) * 86400.0 + hh * 3600.0 + mm * 60.0 + ss;
}

Report fit_progress_report(const Context& ctx, const ProgressQuery& q) {
  (void)ctx;
  const CsvTable t = CsvTable::load(q.file);
  const std::vector<double> steps = t.numbers(q.step);
  std::string tcol = q.time;
  if (tcol.empty()) {
    for (const char* c : {"elapsed_s", "elapsed", "seconds", "timestamp", "time"})
      if (t.has(c)) {
        tcol = c;
        break;
      }
    if (tcol.empty())
      throw InputError(
          SourceLocation{t.file(), t.header_line(), 0}, "elapsed_s",
          fmt::format("no time column (the header has: {}; choose one with --time)", fmt::join(t.header(), ", ")));
  }
  std::vector<double> elapsed;
  const std::vector<std::string> raw = t.text(tcol);
  const bool stamps = !raw.empty() && raw[0].find('-') != std::string::npos && raw[0].size() >= 19;
  for (std::size_t r = 0; r < raw.size(); ++r) {
    try {
      elapsed.push_back(stamps ? parse_timestamp(raw[r]) : parse_number(raw[r]));
    } catch (const std::invalid_argument& e) {
      const auto at = t.place(r, tcol);
      throw InputError(SourceLocation{t.file(), at.line, at.column}, tcol, e.what());
    }
  }
  if (stamps)
    for (double& e : elapsed) e -= raw.empty() ? 0 : parse_timestamp(raw[0]);
  // Order problems point at their cell.
  for (std::size_t r = 0; r < steps.size(); ++r) {
    if (r > 0 && !(steps[r] > steps[r - 1])) {
      const auto at = t.place(r, q.step);
      throw InputError(SourceLocation{t.file(), at.line, at.column}, q.step,
                       fmt::format("{:g} does not follow {:g}: steps must increase", steps[r], steps[r - 1]));
    }
    if (elapsed[r] < 0 || (r > 0 && elapsed[r] < elapsed[r - 1])) {
      const auto at = t.place(r, tcol);
      throw InputError(SourceLocation{t.file(), at.line, at.column}, tcol,
                       elapsed[r] < 0 ? "elapsed time is negative" : "elapsed time goes backwards");
    }
  }
  const ProgressFit p = fit_or_input_error(t.file(), [&] { return fit_progress(steps, elapsed); });
  const double tq = t_quantile_975(std::max(1, p.observations - 2));

  Report rep;
  rep.command = "fit progress";
  rep.title = fmt::format("Training progress from {} ({} rows, {} warm-up rows dropped)", t.file(), steps.size(),
                          p.warmup_points);
  Table rate;
  rate.name = "rate";
  rate.columns = {
      {"quantity", "quantity"}, {"value", "value", 4}, {"low", "low", 4}, {"high", "high", 4}, {"unit", "unit"}};
  const double b = p.seconds_per_step, se = p.se_seconds_per_step;
  rate.add_row({std::string("seconds per step"), b, b - tq * se, b + tq * se, std::string("s")});
  rate.add_row({std::string("steps per second"), 1 / b, 1 / (b + tq * se),
                b - tq * se > 0 ? Cell{1 / (b - tq * se)} : Cell{}, std::string("1/s")});
  rate.add_row({std::string("last step"), p.last_step, Cell{}, Cell{}, std::string("step")});
  rate.add_row({std::string("elapsed at last step"), p.last_elapsed / 3600, Cell{}, Cell{}, std::string("h")});
  rep.tables.push_back(std::move(rate));
  std::optional<double> total;
  if (q.total_steps) total = flag_number("--total-steps", *q.total_steps);
  if (q.total_tokens) {
    if (!q.tokens_per_step) throw UsageError("--total-tokens needs --tokens-per-step");
    total = flag_number("--total-tokens", *q.total_tokens) / flag_number("--tokens-per-step", *q.tokens_per_step);
  }
  if (total && !(*total > 0 && *total < 1e15))
    throw InputError(SourceLocation{q.total_tokens ? "--total-tokens" : "--total-steps"}, "",
                     fmt::format("{:g} is not a step count (greater than zero, below 1e15)", *total));
  if (total) {
    if (*total < p.last_step)
      throw InputError(SourceLocation{"--total-steps"}, "",
                       fmt::format("{:g} is before the last logged step {:g}", *total, p.last_step));
    const auto at = p.elapsed_at(*total);
    Table eta;
    eta.name = "eta";
    eta.title = "ETA (95% prediction interval)";
    eta.columns = {{"total_steps", "total steps", 0},
                   {"elapsed_hours", "elapsed h", 2},
                   {"low_hours", "low", 2},
                   {"high_hours", "high", 2},
                   {"remaining_hours", "remaining h", 2}};
    eta.add_row({*total, at.value / 3600, at.low / 3600, at.high / 3600, (at.value - p.last_elapsed) / 3600});
    rep.tables.push_back(std::move(eta));
    rep.primary = 1;
  }
  Json in = Json::object();
  in["file"] = q.file;
  in["step"] = q.step;
  in["time"] = tcol;
  in["total_steps"] = total ? Json(*total) : Json();
  rep.inputs = std::move(in);
  if (p.downweighted > 0)
    rep.notes.push_back(fmt::format("{} interval(s) look like stalls and were downweighted (Huber).", p.downweighted));
  rep.notes.push_back("Robust fit of the increments Δt = b·Δs after warm-up; the ETA runs from the last row.");
  return rep;
}

}  // namespace gpuplan
