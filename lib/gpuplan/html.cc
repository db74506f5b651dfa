#include "gpuplan/html.h"

#include "gpuplan/i18n.h"

#include "gpuplan/xlsx.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <fmt/format.h>

namespace gpuplan {
namespace {

std::string escape(std::string_view s) { return xlsx::escape_xml(s); }

// Okabe and Ito's palette (2008): told apart with every common colour-vision deficiency, and in grey print.
// Beyond eight, Tol's muted colours (2021) and a grey.
constexpr std::array<std::string_view, 12> kColours = {"#0072B2", "#E69F00", "#009E73", "#D55E00",
                                                       "#CC79A7", "#56B4E9", "#F0E442", "#000000",
                                                       "#332288", "#882255", "#88CCEE", "#999999"};

// Ticks at 1, 2 or 5 × a power of ten, about `count` of them over [lo, hi].
std::vector<double> ticks(double lo, double hi, int count) {
  const double raw = (hi - lo) / count;
  const double power = std::pow(10.0, std::floor(std::log10(raw)));
  double step = power;
  for (const double m : {1.0, 2.0, 5.0, 10.0})
    if (raw <= m * power) {
      step = m * power;
      break;
    }
  std::vector<double> out;
  for (double t = std::ceil(lo / step) * step; t <= hi + step * 1e-9; t += step)
    out.push_back(std::abs(t) < step * 1e-9 ? 0.0 : t);
  return out;
}

struct Frame {
  double x0 = 0, x1 = 1, y0 = 0, y1 = 1;  // data range
  static constexpr double kWidth = 760, kHeight = 360, kLeft = 70, kRight = 170, kTop = 40, kBottom = 50;
  double x(double v) const { return kLeft + (v - x0) / (x1 - x0) * (kWidth - kLeft - kRight); }
  double y(double v) const { return kHeight - kBottom - (v - y0) / (y1 - y0) * (kHeight - kTop - kBottom); }
};

std::string fit_label(const std::string& s, std::size_t columns);

// A bar's name under it: on one line when it fits the bar's slot (about 7 px a
// column at 12 px), else broken at spaces onto a second line (the rest shortened).
std::string bar_label(const std::string& name, double x, double y, double slot) {
  const auto columns = static_cast<std::size_t>(std::max(4.0, slot / 7));
  if (display_width(name) <= columns)
    return fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\" text-anchor=\"middle\">{}</text>", x, y, escape(name));
  std::string first, rest;
  for (std::size_t start = 0; start < name.size();) {
    const std::size_t end = std::min(name.find(' ', start), name.size());
    const std::string word = name.substr(start, end - start);
    const bool on_first = rest.empty() && (first.empty() || display_width(first) + 1 + display_width(word) <= columns);
    std::string& line = on_first ? first : rest;
    line += (line.empty() ? "" : " ") + word;
    start = end + 1;
  }
  return fmt::format(
      "<text x=\"{0:.1f}\" y=\"{1:.1f}\" text-anchor=\"middle\"><tspan x=\"{0:.1f}\">{2}</tspan><tspan x=\"{0:.1f}\" "
      "dy=\"1.2em\">{3}</tspan></text>",
      x, y, escape(fit_label(first, columns)), escape(fit_label(rest, columns)));
}

// Stacked bars: each category's positive layers upwards from zero, negative ones downwards.
Frame bars_frame(const Chart& c) {
  Frame f{-0.5, static_cast<double>(c.categories.size()) - 0.5, 0, 0};
  for (std::size_t k = 0; k < c.categories.size(); ++k) {
    double up = 0, down = 0;
    for (const ChartSeries& s : c.series)
      for (const auto& [x, y] : s.points)
        if (static_cast<std::size_t>(x) == k) (y > 0 ? up : down) += y;
    f.y1 = std::max(f.y1, up);
    f.y0 = std::min(f.y0, down);
  }
  if (!(f.y1 > f.y0)) f.y1 = f.y0 + 1;
  return f;
}

Frame frame_of(const Chart& c) {
  if (c.kind == Chart::Kind::kStackedBars) return bars_frame(c);
  Frame f{1e300, -1e300, 0, -1e300};
  const auto take = [&f](double x, double y) {
    f.x0 = std::min(f.x0, x);
    f.x1 = std::max(f.x1, x);
    f.y0 = std::min(f.y0, y);
    f.y1 = std::max(f.y1, y);
  };
  for (const ChartSeries& s : c.series)
    for (const auto& [x, y] : s.points) take(x, y);
  if (c.band)
    for (const auto& [x, lo, hi] : c.band->points) take(x, lo), take(x, hi);
  if (!(f.x1 > f.x0)) f = {0, 1, f.y0, f.y1};
  if (!(f.y1 > f.y0)) f.y1 = f.y0 + 1;
  return f;
}

std::string axes(const Chart& c, const Frame& f) {
  std::string out;
  const double bottom = Frame::kHeight - Frame::kBottom, right = Frame::kWidth - Frame::kRight;
  for (const double t : ticks(f.y0, f.y1, 5))
    out += fmt::format(
        "<line class=\"grid\" x1=\"{0:.1f}\" y1=\"{1:.1f}\" x2=\"{2:.1f}\" y2=\"{1:.1f}\"/><text x=\"{3:.1f}\" "
        "y=\"{4:.1f}\" text-anchor=\"end\">{5}</text>",
        Frame::kLeft, f.y(t), right, Frame::kLeft - 6, f.y(t) + 4, short_number(t, 6));
  if (c.kind == Chart::Kind::kStackedBars)
    for (std::size_t k = 0; k < c.categories.size(); ++k)
      out += bar_label(c.categories[k], f.x(static_cast<double>(k)), bottom + 18,
                       (right - Frame::kLeft) / static_cast<double>(c.categories.size()));
  else
    for (const double t : ticks(f.x0, f.x1, 8))
      out += fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\" text-anchor=\"middle\">{}</text>", f.x(t), bottom + 18,
                         short_number(t, 6));
  if (f.y0 < 0 && f.y1 > 0)  // amounts below zero (a resale): zero drawn like an axis
    out += fmt::format("<line class=\"axis\" x1=\"{0}\" y1=\"{1:.1f}\" x2=\"{2}\" y2=\"{1:.1f}\"/>", Frame::kLeft,
                       f.y(0), right);
  out += fmt::format(
      "<line class=\"axis\" x1=\"{0}\" y1=\"{1}\" x2=\"{2}\" y2=\"{1}\"/><line class=\"axis\" x1=\"{0}\" y1=\"{3}\" "
      "x2=\"{0}\" y2=\"{1}\"/>",
      Frame::kLeft, bottom, right, Frame::kTop);
  out += fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\" text-anchor=\"middle\">{}</text>", (Frame::kLeft + right) / 2,
                     Frame::kHeight - 10, escape(c.x_label));
  out += fmt::format("<text x=\"14\" y=\"{:.1f}\" transform=\"rotate(-90 14 {:.1f})\" text-anchor=\"middle\">{}</text>",
                     (Frame::kTop + bottom) / 2, (Frame::kTop + bottom) / 2, escape(c.y_label));
  return out;
}

// Inside each chart, so that it draws the same alone (--format svg, pasted into slides) as in the page.
constexpr std::string_view kSvgStyle =
    "text { font-family: \"Noto Sans\", \"Noto Sans CJK SC\", sans-serif; font-size: 12px; fill: #111; } "
    ".grid { stroke: #e3e3e3; } .axis { stroke: #333; } .marker { stroke: #444; stroke-dasharray: 5 4; } "
    ".title { font-weight: bold; font-size: 14px; }";

}  // namespace

namespace {

std::string legend_entry(std::size_t i, std::string_view colour, const std::string& name, bool swatch) {
  const double ly = Frame::kTop + 16.0 * static_cast<double>(i), lx = Frame::kWidth - Frame::kRight + 12;
  const std::string mark =
      swatch
          ? fmt::format("<rect x=\"{:.1f}\" y=\"{:.1f}\" width=\"12\" height=\"10\" fill=\"{}\"/>", lx, ly - 6, colour)
          : fmt::format(
                "<line x1=\"{0:.1f}\" y1=\"{1:.1f}\" x2=\"{2:.1f}\" y2=\"{1:.1f}\" stroke=\"{3}\" "
                "stroke-width=\"3\"/>",
                lx, ly, lx + 16, colour);
  return mark + fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\">{}</text>", lx + 20, ly + 4, escape(name));
}

// The band as one closed shape: along the highs, back along the lows.
std::string band(const ChartBand& b, const Frame& f, std::size_t legend_row) {
  std::string points;
  for (const auto& p : b.points)
    points += fmt::format("{}{:.1f},{:.1f}", points.empty() ? "" : " ", f.x(p[0]), f.y(p[2]));
  for (auto p = b.points.rbegin(); p != b.points.rend(); ++p)
    points += fmt::format(" {:.1f},{:.1f}", f.x((*p)[0]), f.y((*p)[1]));
  const std::string_view colour = kColours[0];
  const double ly = Frame::kTop + 16.0 * static_cast<double>(legend_row), lx = Frame::kWidth - Frame::kRight + 12;
  return fmt::format(
      "<polygon class=\"band\" data-band=\"{}\" fill=\"{}\" fill-opacity=\"0.18\" stroke=\"none\" "
      "points=\"{}\"/><rect x=\"{:.1f}\" y=\"{:.1f}\" width=\"16\" height=\"10\" fill=\"{}\" "
      "fill-opacity=\"0.18\"/><text x=\"{:.1f}\" y=\"{:.1f}\">{}</text>",
      escape(b.name), colour, points, lx, ly - 6, colour, lx + 20, ly + 4, escape(b.name));
}

// Measurements: dots alone, in a group of their own (not a line).
std::string dots(const ChartSeries& s, std::string_view colour, const Frame& f, std::size_t legend_row) {
  std::string out = fmt::format("<g class=\"points\" data-series=\"{}\" fill=\"{}\">", escape(s.name), colour);
  for (const auto& [x, y] : s.points)
    out += fmt::format("<circle cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"4\"/>", f.x(x), f.y(y));
  const double ly = Frame::kTop + 16.0 * static_cast<double>(legend_row), lx = Frame::kWidth - Frame::kRight + 12;
  return out + fmt::format(
                   "</g><circle cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"4\" fill=\"{}\"/><text x=\"{:.1f}\" "
                   "y=\"{:.1f}\">{}</text>",
                   lx + 8, ly, colour, lx + 20, ly + 4, escape(s.name));
}

std::string lines(const Chart& c, const Frame& f) {
  std::string out;
  if (c.band) out += band(*c.band, f, c.series.size());
  for (std::size_t i = 0; i < c.series.size(); ++i) {
    const std::string_view colour = kColours[i % kColours.size()];
    if (!c.series[i].line) {
      out += dots(c.series[i], colour, f, i);
      continue;
    }
    std::string points;
    for (const auto& [x, y] : c.series[i].points)
      points += fmt::format("{}{:.1f},{:.1f}", points.empty() ? "" : " ", f.x(x), f.y(y));
    out += fmt::format(
        "<polyline class=\"series\" data-series=\"{}\" fill=\"none\" stroke=\"{}\" stroke-width=\"2\" "
        "points=\"{}\"/>",
        escape(c.series[i].name), colour, points);
    if (c.dots)
      for (const auto& [x, y] : c.series[i].points)
        out += fmt::format("<circle cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"4\" fill=\"{}\"/>", f.x(x), f.y(y), colour);
    out += legend_entry(i, colour, c.series[i].name, false);
  }
  return out;
}

// Each series a layer of every category's bar: positive amounts stack up from zero, negative ones down.
std::string stacked_bars(const Chart& c, const Frame& f) {
  std::string out;
  std::vector<double> up(c.categories.size(), 0.0), down(c.categories.size(), 0.0);
  const double bar = 0.6 * (f.x(1) - f.x(0));  // a bar's width: 60% of a category's
  for (std::size_t i = 0; i < c.series.size(); ++i) {
    const ChartSeries& s = c.series[i];
    const std::string_view colour = kColours[i % kColours.size()];
    out += fmt::format("<g class=\"series\" data-series=\"{}\" fill=\"{}\">", escape(s.name), colour);
    for (const auto& [x, y] : s.points) {
      const auto k = static_cast<std::size_t>(x);
      if (k >= up.size() || y == 0) continue;
      double& base = y > 0 ? up[k] : down[k];
      const double top = f.y(base + y), bottom = f.y(base);
      out += fmt::format(
          "<rect x=\"{:.1f}\" y=\"{:.1f}\" width=\"{:.1f}\" height=\"{:.1f}\"><title>{}: {}</title></rect>",
          f.x(x) - bar / 2, std::min(top, bottom), bar, std::abs(bottom - top), escape(s.name), short_number(y));
      base += y;
    }
    out += "</g>" + legend_entry(i, colour, s.name, true);
  }
  return out;
}

// A label cut to `columns` of width (CJK counts 2): its start and its end, which
// name the scenario and the option, joined by an ellipsis. Whole code points only.
std::string fit_label(const std::string& s, std::size_t columns) {
  if (display_width(s) <= columns) return s;
  std::vector<std::string> cps;
  for (std::size_t i = 0; i < s.size();) {
    std::size_t n = 1;
    while (i + n < s.size() && (static_cast<unsigned char>(s[i + n]) & 0xC0) == 0x80) ++n;
    cps.push_back(s.substr(i, n));
    i += n;
  }
  std::string head, tail;
  std::size_t w = 0, front = 0, back = cps.size();
  while (front < back && w + display_width(cps[front]) <= columns * 2 / 5)
    w += display_width(cps[front]), head += cps[front++];
  while (back > front && w + display_width(cps[back - 1]) + 1 <= columns)
    w += display_width(cps[back - 1]), tail.insert(0, cps[--back]);
  return head + "…" + tail;
}

// A tornado: a row a category (the largest swing on top), each series a bar
// from zero to its change; labels on the left, the change along the bottom.
// Bars (kBars) of amounts none below zero start at the left edge instead.
std::string tornado(const Chart& c) {
  constexpr double kWidth = 760, kLabels = 260, kRight = 140, kTop = 40, kRow = 22, kBottom = 40;
  const double height = kTop + kRow * static_cast<double>(c.categories.size()) + kBottom;
  double most = 0;
  for (const ChartSeries& s : c.series)
    for (const auto& [k, v] : s.points) most = std::max(most, std::abs(v));
  if (!(most > 0)) most = 1;
  // The scale's end a round number (500k, not 467.62k): the next tick at or past the longest bar.
  if (const std::vector<double> t = ticks(0, most, 4); t.size() > 1) most = std::ceil(most / t[1] - 1e-9) * t[1];
  bool negative = false;
  for (const ChartSeries& s : c.series)
    for (const auto& p : s.points) negative |= p.second < 0;
  const bool from_left = c.kind == Chart::Kind::kBars && !negative;
  const double span = kWidth - kLabels - kRight;
  const double mid = from_left ? kLabels : kLabels + span / 2, half = from_left ? span : span / 2;
  const auto x = [&](double v) { return mid + v / most * half; };
  std::string out = fmt::format(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"chart\" data-chart=\"{}\" viewBox=\"0 0 {} {}\" "
      "role=\"img\" aria-label=\"{}\"><style>{}</style><text class=\"title\" x=\"10\" y=\"22\">{}</text>",
      escape(c.name), kWidth, height, escape(c.title), kSvgStyle, escape(c.title));
  for (std::size_t k = 0; k < c.categories.size(); ++k)
    out += fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\" text-anchor=\"end\"><title>{}</title>{}</text>", kLabels - 8,
                       kTop + kRow * (static_cast<double>(k) + 0.7), escape(c.categories[k]),
                       escape(fit_label(c.categories[k], 40)));
  for (std::size_t i = 0; i < c.series.size(); ++i) {
    const std::string_view colour = kColours[i % kColours.size()];
    out += fmt::format("<g class=\"series\" data-series=\"{}\" fill=\"{}\" fill-opacity=\"0.8\">",
                       escape(c.series[i].name), colour);
    for (const auto& [k, v] : c.series[i].points)
      out +=
          fmt::format("<rect x=\"{:.1f}\" y=\"{:.1f}\" width=\"{:.1f}\" height=\"{:.1f}\"><title>{}: {}</title></rect>",
                      std::min(x(0), x(v)), kTop + kRow * k + 3, std::abs(x(v) - x(0)), kRow - 6,
                      escape(c.series[i].name), short_number(v));
    out += fmt::format(
        "</g><rect x=\"{:.1f}\" y=\"{:.1f}\" width=\"12\" height=\"10\" fill=\"{}\"/><text "
        "x=\"{:.1f}\" y=\"{:.1f}\">{}</text>",
        kWidth - kRight + 12, kTop + 16.0 * static_cast<double>(i) - 6, colour, kWidth - kRight + 32,
        kTop + 16.0 * static_cast<double>(i) + 4, escape(c.series[i].name));
  }
  const double bottom = height - kBottom;
  if (from_left)
    return out +
           fmt::format(
               "<line class=\"axis\" x1=\"{0:.1f}\" y1=\"{1}\" x2=\"{0:.1f}\" y2=\"{2:.1f}\"/><text x=\"{0:.1f}\" "
               "y=\"{3:.1f}\" text-anchor=\"start\">0</text><text x=\"{4:.1f}\" y=\"{3:.1f}\" "
               "text-anchor=\"end\">{5}</text><text x=\"{6:.1f}\" y=\"{7:.1f}\" text-anchor=\"middle\">{8}</text>",
               mid, kTop, bottom, bottom + 16, mid + half, short_number(most), mid + half / 2, bottom + 32,
               escape(c.x_label)) +
           "</svg>";
  out += fmt::format(
      "<line class=\"axis\" x1=\"{0:.1f}\" y1=\"{1}\" x2=\"{0:.1f}\" y2=\"{2:.1f}\"/><text x=\"{3:.1f}\" "
      "y=\"{4:.1f}\" text-anchor=\"start\">-{5}</text><text x=\"{0:.1f}\" y=\"{4:.1f}\" "
      "text-anchor=\"middle\">{6}</text><text x=\"{7:.1f}\" y=\"{4:.1f}\" text-anchor=\"end\">+{5}</text><text "
      "x=\"{0:.1f}\" y=\"{8:.1f}\" text-anchor=\"middle\">{9}</text>",
      mid, kTop, bottom, mid - half, bottom + 16, short_number(most), "0", mid + half, bottom + 32, escape(c.x_label));
  return out + "</svg>";
}

}  // namespace

std::string render_svg(const Chart& c) {
  if (c.kind == Chart::Kind::kTornado || c.kind == Chart::Kind::kBars) return tornado(c);
  const Frame f = frame_of(c);
  std::string out = fmt::format(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"chart\" data-chart=\"{}\" viewBox=\"0 0 {} {}\" "
      "role=\"img\" aria-label=\"{}\"><style>{}</style><text class=\"title\" x=\"{}\" y=\"22\">{}</text>",
      escape(c.name), Frame::kWidth, Frame::kHeight, escape(c.title), kSvgStyle, Frame::kLeft, escape(c.title));
  out += axes(c, f);
  if (c.marker_x) {
    const double x = f.x(*c.marker_x);
    out += fmt::format(
        "<line class=\"marker\" x1=\"{0:.1f}\" y1=\"{1}\" x2=\"{0:.1f}\" y2=\"{2}\"/><text class=\"marker-label\" "
        "x=\"{3:.1f}\" y=\"{4}\">{5}</text>",
        x, Frame::kTop, Frame::kHeight - Frame::kBottom, x + 4, Frame::kTop + 12, escape(c.marker_label));
  }
  out += c.kind == Chart::Kind::kStackedBars ? stacked_bars(c, f) : lines(c, f);
  return out + "</svg>";
}

namespace {

constexpr std::string_view kStyle = R"(
body { font-family: "Noto Sans", "Noto Sans CJK SC", "Source Han Sans SC", "PingFang SC", "Microsoft YaHei", sans-serif;
       margin: 2em auto; max-width: 1100px; color: #111; line-height: 1.4; }
h1 { font-size: 1.35em; }
h2 { font-size: 1.1em; margin-top: 1.6em; }
table { border-collapse: collapse; margin: 0.6em 0; font-size: 0.86em; }
th, td { border-bottom: 1px solid #ccc; padding: 0.2em 0.6em; text-align: left; vertical-align: top; }
th { background: #f2f2f2; }
td.n, th.n { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
.warnings { border-left: 4px solid #D55E00; background: #fff4ec; padding: 0.4em 1em; }
.notes p { margin: 0.3em 0; font-size: 0.88em; }
.notes p.default { margin: 0 0 0 1.5em; font-size: 0.8em; color: #333; }
svg.chart { width: 100%; max-width: 760px; height: auto; font-size: 12px; }
footer { margin-top: 2em; font-size: 0.75em; color: #555; }
@media print {
  @page { size: A4 landscape; margin: 12mm; }
  body { margin: 0; max-width: none; font-size: 10pt; }
  table { page-break-inside: auto; } tr { page-break-inside: avoid; }
  svg.chart { page-break-inside: avoid; max-width: 100%; }
}
)";

std::string html_table(const Table& t) {
  const std::vector<std::size_t> cols = shown_columns(t);
  std::vector<bool> right(cols.size(), false);
  for (std::size_t j = 0; j < cols.size(); ++j) right[j] = t.columns[cols[j]].numeric;
  for (const auto& row : t.rows)
    for (std::size_t j = 0; j < cols.size(); ++j)
      if (cell_is_number(row[cols[j]])) right[j] = true;
  std::string out = fmt::format("<table data-table=\"{}\"><thead><tr>", escape(t.name));
  for (std::size_t j = 0; j < cols.size(); ++j)
    out += fmt::format("<th{}>{}</th>", right[j] ? " class=\"n\"" : "", escape(t.columns[cols[j]].label));
  out += "</tr></thead><tbody>";
  for (const std::size_t ri : t.text_row_indices()) {
    out += "<tr>";
    for (std::size_t j = 0; j < cols.size(); ++j)
      out += fmt::format("<td{}>{}</td>", right[j] ? " class=\"n\"" : "",
                         escape(cell_text(t.rows[ri][cols[j]], t.columns[cols[j]])));
    out += "</tr>";
  }
  return out + "</tbody></table>\n";
}

}  // namespace

std::string render_html(const Report& r) {
  std::string out = fmt::format(
      "<!DOCTYPE html>\n<html lang=\"{}\"><head><meta charset=\"utf-8\"><meta name=\"viewport\" "
      "content=\"width=device-width, initial-scale=1\"><title>{}</title><style>{}</style></head><body>\n<h1>{}</h1>\n",
      language() == Language::kChinese ? "zh-CN" : "en", escape(r.title.empty() ? "gpuplan " + r.command : r.title),
      kStyle, escape(r.title));
  if (!r.warnings.empty()) {
    out += fmt::format("<div class=\"warnings\"><strong>{}</strong>", escape(tr("Warnings")));
    for (const std::string& w : r.warnings) out += "<p>" + escape(w) + "</p>";
    out += "</div>\n";
  }
  for (const Chart& c : r.charts) out += render_svg(c) + "\n";
  for (const Table& t : r.tables) {
    if (!t.text) continue;
    if (!t.title.empty()) out += "<h2>" + escape(t.title) + "</h2>\n";
    out += html_table(t);
  }
  // The terminal's pictures only where no chart stands for them.
  if (r.charts.empty())
    for (const std::string& fig : r.figures) out += "<pre>" + escape(fig) + "</pre>\n";
  if (!r.notes.empty()) {
    out += fmt::format("<div class=\"notes\"><h2>{}</h2>", escape(tr("Notes")));
    for (const std::string& n : r.notes)
      out += n.starts_with("  ") ? "<p class=\"default\">" + escape(n.substr(2)) + "</p>" : "<p>" + escape(n) + "</p>";
    out += "</div>\n";
  }
  out += "<footer>" +
         escape(trf("gpuplan {}: every number above comes from the inputs and sources in the notes; `gpuplan {} "
                    "--format json` holds them all.",
                    r.command, r.command)) +
         "</footer>\n</body></html>\n";
  return out;
}

}  // namespace gpuplan
