#include "gpuplan/i18n.h"
#include "gpuplan/commands/fit.h"

#include "gpuplan/commands/flags.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <fmt/format.h>
#include <exception>
#include <memory>
#include <optional>
#include <thread>

#include "gpuplan/csv.h"
#include "gpuplan/error.h"
#include "gpuplan/fit.h"
#include "gpuplan/units.h"

namespace gpuplan {
namespace {

// A measurement must be greater than zero; the cell is named otherwise.
double positive_cell(const CsvStream& csv, std::size_t column) {
  const double v = csv.number(column);
  if (!(v > 0)) {
    const auto at = csv.place(column);
    throw InputError(SourceLocation{csv.file(), at.line, at.column}, csv.header()[column],
                     trf("{:g} must be greater than zero", v));
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

template <class Csv>
std::string column_or(const Csv& t, const std::string& wanted, const char* flag) {
  if (t.has(wanted)) return wanted;
  throw InputError(SourceLocation{t.file(), t.header_line(), 0}, wanted,
                   trf("no such column (the header has: {}; choose one with {})", fmt::join(t.header(), ", "), flag));
}

// A chart of the measured points and the fitted curves, within 80 columns.
std::string scaling_chart(const ScalingSample& sample, const std::vector<std::pair<char, const ScalingFit*>>& fits,
                          double n_max) {
  const int w = 64, h = 16, label = 8;
  double y_max = 0;
  for (const auto& g : sample.groups()) y_max = std::max(y_max, g.mean);
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
  for (const auto& g : sample.groups())
    grid[static_cast<std::size_t>(row_of(g.mean))][static_cast<std::size_t>(col_of(g.gpus))] = '*';
  std::string legend;
  for (const auto& [c, f] : fits)
    legend += fmt::format(", {} {}", c, f->model == ScalingModel::kUsl ? "USL" : "Amdahl");
  std::string out = trf("Throughput against GPUs (* measured mean{})", legend) + "\n";
  for (int r = 0; r < h; ++r) {
    const bool show = r == 0 || r == h - 1 || r == h / 2;
    const double v = y_max * (h - 1 - r) / (h - 1);
    const std::string tick = short_number(v, 3);
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
                       trf("{} is not a GPU count (a whole number, 1 to 10,000,000)", t));
    predict.push_back(p);
  }
  return predict;
}

struct ScalingFits {
  std::vector<ScalingFit> fits{};
  std::string usl_refused{};  ///< why the USL was not fitted (model both)
};

ScalingFits scaling_fits(const std::string& file, const ScalingSample& sample, const std::string& model) {
  ScalingFits out;
  if (model == "usl")
    out.fits.push_back(fit_or_input_error(file, [&] { return fit_scaling(sample, ScalingModel::kUsl); }));
  if (model == "both") {
    // With too few points for the USL's three parameters, Amdahl's two may still be determined.
    try {
      out.fits.push_back(fit_scaling(sample, ScalingModel::kUsl));
    } catch (const FitError& e) {
      out.usl_refused = e.what();
    }
  }
  if (model != "usl")
    out.fits.push_back(fit_or_input_error(file, [&] { return fit_scaling(sample, ScalingModel::kAmdahl); }));
  return out;
}

std::string model_name(const ScalingFit& f) {
  return f.model == ScalingModel::kUsl ? tr_noop("usl") : tr_noop("amdahl");
}

Table models_table(const std::vector<ScalingFit>& fits) {
  Table models;
  models.name = "models";
  models.columns = {{"model", tr_noop("model")},
                    {"r_squared", tr_noop("R²"), -6},
                    {"residual_std_error", tr_noop("resid SE"), 4},
                    {"aicc", tr_noop("AICc"), 2},
                    {"peak_gpus", tr_noop("N*"), 1},
                    {"peak_throughput", tr_noop("X(N*)"), 2},
                    {"converged", tr_noop("converged")},
                    {"note", tr_noop("note")}};
  for (const ScalingFit& f : fits) {
    const auto peak = f.peak_gpus();
    std::string note;
    for (const auto& c : f.constrained)
      note += (note.empty() ? "" : std::string(tr("; "))) + trf("{} held at 0 (fit made it negative)", c);
    if (f.model == ScalingModel::kAmdahl && f.sigma > 0)
      note += (note.empty() ? "" : std::string(tr("; "))) + trf("no peak: approaches λ/σ = {:.4g}", f.lambda / f.sigma);
    models.add_row({model_name(f), f.r_squared, f.residual_std_error, f.aicc ? Cell{*f.aicc} : Cell{},
                    peak ? Cell{*peak} : Cell{}, peak ? Cell{f.predict(*peak)} : Cell{}, f.converged,
                    note.empty() ? Cell{} : Cell{note}});
  }
  return models;
}

Table coefficients_table(const std::vector<ScalingFit>& fits) {
  Table coef;
  coef.name = "coefficients";
  coef.title = tr_noop("Coefficients (95% confidence intervals)");
  coef.columns = {{"model", tr_noop("model")},           {"parameter", tr_noop("parameter")},
                  {"estimate", tr_noop("estimate"), -7}, {"std_error", tr_noop("std error"), -4},
                  {"ci_low", tr_noop("low"), -6},        {"ci_high", tr_noop("high"), -6}};
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
Table points_table(const ScalingSample& sample, const std::vector<ScalingFit>& fits) {
  Table pts;
  pts.name = "points";
  pts.title = tr_noop("Measured points (per GPU count: runs, mean, sample standard deviation)");
  pts.columns = {{"gpus", tr_noop("GPUs"), -6},
                 {"runs", tr_noop("runs")},
                 {"measured", tr_noop("measured"), 2},
                 {"spread", tr_noop("spread"), 2},
                 {"efficiency", tr_noop("efficiency"), 3}};
  for (const ScalingFit& f : fits) pts.columns.push_back({model_name(f) + "_fit", model_name(f), 2});
  // Scaling efficiency: mean throughput per GPU relative to the smallest configuration's.
  const auto& groups = sample.groups();
  const double base = groups.front().mean / groups.front().gpus;
  for (const auto& g : groups) {
    const auto spread = g.spread();
    std::vector<Cell> r{g.gpus, g.runs, g.mean, spread ? Cell{*spread} : Cell{}, (g.mean / g.gpus) / base};
    for (const ScalingFit& f : fits) r.emplace_back(f.predict(g.gpus));
    pts.add_row(std::move(r));
  }
  return pts;
}

Table predictions_table(const std::vector<double>& predict, const std::vector<ScalingFit>& fits) {
  Table pred;
  pred.name = "predictions";
  pred.title = tr_noop("Predictions (95% prediction intervals)");
  pred.columns = {{"gpus", tr_noop("GPUs"), 0},
                  {"model", tr_noop("model")},
                  {"throughput", tr_noop("predicted"), 2},
                  {"low", tr_noop("low"), 2},
                  {"high", tr_noop("high"), 2}};
  for (const double p : predict) {
    for (const ScalingFit& f : fits) {
      const auto [lo, hi] = f.prediction_interval(p);
      pred.add_row({p, model_name(f), f.predict(p), std::max(0.0, lo), hi});
    }
  }
  return pred;
}

// What should stop a user from planning with this fit: a poor R², rows or
// GPU counts that do not belong with the rest (named by line, so they can be
// checked, with what the other points predict there).
std::vector<std::string> scaling_warnings(const std::string& file, const ScalingSample& sample, const ScalingFits& sf) {
  std::vector<std::string> out;
  const auto best = std::max_element(sf.fits.begin(), sf.fits.end(), [](const ScalingFit& a, const ScalingFit& b) {
    return a.r_squared < b.r_squared;
  });
  if (best == sf.fits.end()) return out;
  if (std::string w = poor_scaling_fit(best->r_squared, "The best fit (" + model_name(*best) + ")"); !w.empty())
    out.push_back(std::move(w));
  const ScalingOutliers found = scaling_outliers(sample, best->model);
  const ScalingFit& others = found.without ? *found.without : *best;
  const std::string predicts = !found.without              ? trf("{} predicts", model_name(*best))
                               : found.flagged.size() == 1 ? trf("{} without it predicts", model_name(*best))
                                                           : trf("{} without them predicts", model_name(*best));
  for (const ScalingOutlier& o : found.flagged) {
    if (o.runs == 1)
      out.push_back(
          trf("{}:{}: {:.10g} at {:g} GPUs does not belong with the other points (efficiency {:.2f}, {} "
              "{:.6g}): a typo, or another workload?",
              file, o.tag, o.throughput, o.gpus, o.efficiency, predicts, others.predict(o.gpus)));
    else
      out.push_back(
          trf("{}:{}: the {} runs at {:g} GPUs (mean {:.6g}, from this line) do not belong with the other "
              "points (efficiency {:.2f}, {} {:.6g}): a typo, or another workload?",
              file, o.tag, o.runs, o.gpus, o.throughput, o.efficiency, predicts, others.predict(o.gpus)));
  }
  return out;
}

// What the prediction intervals cannot say: how far the model's form holds
// beyond the measurements, and anything at all when no noise was measured.
std::vector<std::string> prediction_warnings(const std::vector<double>& predict, const ScalingSample& sample,
                                             const ScalingFits& sf) {
  std::vector<std::string> out;
  if (predict.empty() || sf.fits.empty()) return out;
  const double measured = sample.groups().back().gpus;
  for (const double p : predict)
    if (p > 2 * measured)
      out.push_back(
          trf("--predict {:g} is {:.3g}× the largest measured count ({:g}): its interval covers the "
              "measurements' noise, not whether the model still holds that far; measure nearer {:g} GPUs "
              "before relying on it",
              p, p / measured, measured, p));
  if (std::all_of(sf.fits.begin(), sf.fits.end(), [](const ScalingFit& f) { return f.residual_std_error == 0; }))
    out.push_back(std::string(
        tr("the fit passes through every point, so there is no noise to measure: the intervals have zero width and "
           "say nothing about the uncertainty; give repeated runs or more GPU counts than the model has parameters")));
  return out;
}

void scaling_notes(Report& rep, const ScalingFits& sf) {
  const std::vector<ScalingFit>& fits = sf.fits;
  if (fits.size() == 2 && fits[0].aicc && fits[1].aicc) {
    const double d = *fits[1].aicc - *fits[0].aicc;
    rep.notes.push_back(trf("AICc prefers {} by {:.1f} ({}).", d > 0 ? "the USL" : "Amdahl", std::abs(d),
                            std::abs(d) < 2    ? "not a meaningful difference"
                            : std::abs(d) < 10 ? "some support"
                                               : "strong support"));
  }
  if (!sf.usl_refused.empty()) rep.notes.push_back("USL not fitted: " + sf.usl_refused + ".");
  rep.notes.push_back(
      std::string(tr("X(N) = λN / (1 + σ(N−1) + κN(N−1)) (Gunther 2007), Amdahl with κ = 0; least squares by "
                     "Levenberg-Marquardt; N* = sqrt((1−σ)/κ).")));
  rep.notes.push_back(std::string(tr("Save the fit for plan: gpuplan fit scaling FILE --format json -o scaling.json")));
}

}  // namespace

namespace {

// The two columns in one pass into per-GPU-count accumulators: memory is
// the distinct counts, not the rows.
struct ScalingInput {
  ScalingSample sample{};
  std::string file{}, xcol{}, ycol{};
};

void read_rows(CsvStream& csv, std::size_t xi, std::size_t yi, ScalingSample& sample) {
  while (csv.next()) {
    const double n = positive_cell(csv, xi);
    sample.add(n, positive_cell(csv, yi), csv.line());
  }
}

ScalingInput read_scaling(const ScalingQuery& q) {
  CsvStream csv(q.file);
  ScalingInput in{.file = csv.file(), .xcol = column_or(csv, q.x, "--x"), .ycol = column_or(csv, q.y, "--y")};
  const std::size_t xi = csv.index(in.xcol), yi = csv.index(in.ycol);
  // A large file is read in two halves at once (the user waits for the read);
  // an error in the first half is the one reported, as a single pass would.
  const std::unique_ptr<CsvStream> second = csv.split_off();
  if (!second) {
    read_rows(csv, xi, yi, in.sample);
    return in;
  }
  ScalingSample tail;
  std::exception_ptr tail_error;
  std::thread reader([&] {
    try {
      read_rows(*second, xi, yi, tail);
    } catch (...) {
      tail_error = std::current_exception();
    }
  });
  try {
    read_rows(csv, xi, yi, in.sample);
  } catch (...) {
    reader.join();
    throw;
  }
  reader.join();
  if (tail_error) std::rethrow_exception(tail_error);
  in.sample.merge(tail);
  return in;
}

}  // namespace

// Each law's curve from the smallest GPU count to the largest asked about,
// the best fit's 95% prediction band behind them, the measured means as dots.
Chart scaling_fit_chart(const ScalingInput& in, const std::vector<ScalingFit>& fits, double n_max) {
  Chart c;
  c.name = "scaling_fit";
  c.title = tr_noop("Throughput against GPU count: the fits, the best one's 95% prediction band, the measurements");
  c.x_label = trf("GPU count (column {})", in.xcol);
  c.y_label = trf("throughput (column {})", in.ycol);
  c.words = true;  // the series are the laws and "measured"
  const double n_min = in.sample.groups().front().gpus;
  constexpr int kSteps = 60;
  const auto n_at = [&](int k) { return n_min + (n_max - n_min) * k / kSteps; };
  const auto best = std::max_element(
      fits.begin(), fits.end(), [](const ScalingFit& a, const ScalingFit& b) { return a.r_squared < b.r_squared; });
  for (const ScalingFit& f : fits) {
    ChartSeries s{model_name(f), {}};
    for (int k = 0; k <= kSteps; ++k) s.points.emplace_back(n_at(k), f.predict(n_at(k)));
    c.series.push_back(std::move(s));
  }
  if (best != fits.end()) {
    std::swap(c.series.front(), c.series.at(static_cast<std::size_t>(best - fits.begin())));  // the band's colour
    ChartBand band{trf("95% band ({})", tr(model_name(*best))), {}};
    for (int k = 0; k <= kSteps; ++k) {
      const auto [lo, hi] = best->prediction_interval(n_at(k));
      band.points.push_back({n_at(k), std::max(0.0, lo), hi});
    }
    c.band = std::move(band);
  }
  ChartSeries measured{tr_noop("measured"), {}, false};
  for (const auto& g : in.sample.groups()) measured.points.emplace_back(g.gpus, g.mean);
  c.series.push_back(std::move(measured));
  return c;
}

Report fit_scaling_report(const Context&, const ScalingQuery& q) {
  const std::vector<double> predict = predict_counts(q);
  const ScalingInput in = read_scaling(q);
  const ScalingFits sf = scaling_fits(in.file, in.sample, q.model);
  Report rep;
  rep.command = "fit scaling";
  rep.title = trf("Scaling fit of {} against {} ({} rows at {} GPU counts, {})", in.ycol, in.xcol, in.sample.rows(),
                  in.sample.groups().size(), in.file);
  rep.tables = tables_of(models_table(sf.fits), coefficients_table(sf.fits), points_table(in.sample, sf.fits));
  rep.warnings = scaling_warnings(in.file, in.sample, sf);
  for (std::string& w : prediction_warnings(predict, in.sample, sf)) rep.warnings.push_back(std::move(w));
  if (!predict.empty()) rep.tables.push_back(predictions_table(predict, sf.fits));
  rep.primary = 1;
  double n_max = in.sample.groups().back().gpus;
  for (double p : predict) n_max = std::max(n_max, p);
  if (!sf.fits.empty()) rep.charts.push_back(scaling_fit_chart(in, sf.fits, n_max));
  if (q.chart) {
    std::vector<std::pair<char, const ScalingFit*>> curves;
    for (const ScalingFit& f : sf.fits) curves.emplace_back(f.model == ScalingModel::kUsl ? 'U' : 'A', &f);
    rep.figures.push_back(scaling_chart(in.sample, curves, n_max));
  }
  Json inputs = Json::object();
  inputs["file"] = q.file;
  inputs["x"] = in.xcol;
  inputs["y"] = in.ycol;
  inputs["model"] = q.model;
  Json pr = Json::array();
  for (double p : predict) pr.push_back(p);
  inputs["predict"] = std::move(pr);
  rep.inputs = std::move(inputs);
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
  // Both digits of the hour and of the minute ("10:0x" is not 10:00).
  const auto two_digits = [&](std::size_t at, int& v) {
    const auto [ptr, ec] = std::from_chars(s.data() + at, s.data() + at + 2, v);
    return ec == std::errc() && ptr == s.data() + at + 2 && v >= 0;
  };
  if (!two_digits(11, hh) || !two_digits(14, mm)) throw bad();
  std::string_view rest = s.substr(17);
  if (rest.ends_with('Z')) rest.remove_suffix(1);
  const auto [ptr, ec] = std::from_chars(rest.data(), rest.data() + rest.size(), ss);
  if (ec != std::errc() || ptr != rest.data() + rest.size() || hh > 23 || mm > 59 || ss >= 61) throw bad();
  return static_cast<double>(d.time_since_epoch().count()) * 86400.0 + hh * 3600.0 + mm * 60.0 + ss;
}

namespace {

// The step and elapsed-time columns, read as a stream (no text kept, no size
// cap; two numbers a row for the robust fit), each cell checked where it is.
struct ProgressInput {
  std::string file{}, time_column{};
  std::vector<double> steps{}, elapsed{};
};

std::string time_column(const CsvStream& csv, const std::string& wanted) {
  if (!wanted.empty()) return wanted;
  for (const char* c : {"elapsed_s", "elapsed", "seconds", "timestamp", "time"})
    if (csv.has(c)) return c;
  throw InputError(SourceLocation{csv.file(), csv.header_line(), 0}, "elapsed_s",
                   trf("no time column (the header has: {}; choose one with --time)", fmt::join(csv.header(), ", ")));
}

ProgressInput read_progress(const ProgressQuery& q) {
  CsvStream csv(q.file);
  ProgressInput in{.file = csv.file(), .time_column = time_column(csv, q.time)};
  const std::size_t si = csv.index(q.step), ti = csv.index(in.time_column);
  std::optional<bool> stamps;  // decided by the first row: timestamps or seconds
  double origin = 0;
  const auto fail = [&](std::size_t column, const std::string& what) {
    const auto at = csv.place(column);
    return InputError(SourceLocation{csv.file(), at.line, at.column}, csv.header()[column], what);
  };
  while (csv.next()) {
    const double step = csv.number(si);
    const std::string_view raw = csv.cell(ti);
    if (!stamps) stamps = raw.find('-') != std::string_view::npos && raw.size() >= 19;
    double t = 0;
    try {
      t = *stamps ? parse_timestamp(raw) : csv.number(ti);
    } catch (const std::invalid_argument& e) {
      throw fail(ti, e.what());
    }
    if (*stamps && in.steps.empty()) origin = t;
    t -= origin;
    if (!in.steps.empty() && !(step > in.steps.back()))
      throw fail(si, fmt::format("{:g} does not follow {:g}: steps must increase", step, in.steps.back()));
    if (t < 0) throw fail(ti, "elapsed time is negative");
    if (!in.elapsed.empty() && t < in.elapsed.back()) throw fail(ti, "elapsed time goes backwards");
    in.steps.push_back(step);
    in.elapsed.push_back(t);
  }
  return in;
}

}  // namespace

Report fit_progress_report(const Context& ctx, const ProgressQuery& q) {
  (void)ctx;
  const ProgressInput in = read_progress(q);
  const std::vector<double>& steps = in.steps;
  const std::string& tcol = in.time_column;
  const ProgressFit p = fit_or_input_error(in.file, [&] { return fit_progress(steps, in.elapsed); });
  const double tq = t_quantile_975(std::max(1, p.observations - 2));

  Report rep;
  rep.command = "fit progress";
  rep.title =
      trf("Training progress from {} ({} rows, {} warm-up rows dropped)", in.file, steps.size(), p.warmup_points);
  Table rate;
  rate.name = "rate";
  rate.columns = {{.key = "quantity", .label = tr_noop("quantity"), .words = true},
                  {"value", tr_noop("value"), 4},
                  {"low", tr_noop("low"), 4},
                  {"high", tr_noop("high"), 4},
                  {"unit", tr_noop("unit")}};
  const double b = p.seconds_per_step, se = p.se_seconds_per_step;
  rate.add_row({std::string(tr_noop("seconds per step")), b, b - tq * se, b + tq * se, std::string("s")});
  rate.add_row({std::string(tr_noop("steps per second")), 1 / b, 1 / (b + tq * se),
                b - tq * se > 0 ? Cell{1 / (b - tq * se)} : Cell{}, std::string("1/s")});
  rate.add_row({std::string(tr_noop("last step")), p.last_step, Cell{}, Cell{}, std::string("step")});
  rate.add_row({std::string(tr_noop("elapsed at last step")), p.last_elapsed / 3600, Cell{}, Cell{}, std::string("h")});
  rep.tables.push_back(std::move(rate));
  std::optional<double> total;
  if (q.total_steps) total = flag_number("--total-steps", *q.total_steps);
  if (q.total_tokens) {
    if (!q.tokens_per_step) throw UsageError(std::string(tr("--total-tokens needs --tokens-per-step")));
    total = flag_number("--total-tokens", *q.total_tokens) / flag_number("--tokens-per-step", *q.tokens_per_step);
  }
  if (total && !(*total > 0 && *total < 1e15))
    throw InputError(SourceLocation{q.total_tokens ? "--total-tokens" : "--total-steps"}, "",
                     trf("{:g} is not a step count (greater than zero, below 1e15)", *total));
  if (total) {
    if (*total < p.last_step)
      throw InputError(SourceLocation{"--total-steps"}, "",
                       trf("{:g} is before the last logged step {:g}", *total, p.last_step));
    const auto at = p.elapsed_at(*total);
    Table eta;
    eta.name = "eta";
    eta.title = tr_noop("ETA (95% prediction interval)");
    eta.columns = {{"total_steps", tr_noop("total steps"), 0},
                   {"elapsed_hours", tr_noop("elapsed h"), 2},
                   {"low_hours", tr_noop("low"), 2},
                   {"high_hours", tr_noop("high"), 2},
                   {"remaining_hours", tr_noop("remaining h"), 2}};
    eta.add_row({*total, at.value / 3600, at.low / 3600, at.high / 3600, (at.value - p.last_elapsed) / 3600});
    rep.tables.push_back(std::move(eta));
    rep.primary = 1;
  }
  Json inputs = Json::object();
  inputs["file"] = q.file;
  inputs["step"] = q.step;
  inputs["time"] = tcol;
  inputs["total_steps"] = total ? Json(*total) : Json();
  rep.inputs = std::move(inputs);
  if (p.downweighted > 0)
    rep.notes.push_back(trf("{} interval(s) look like stalls and were downweighted (Huber).", p.downweighted));
  rep.notes.push_back(
      std::string(tr("Robust fit of the increments Δt = b·Δs after warm-up; the ETA runs from the last row.")));
  return rep;
}

}  // namespace gpuplan
