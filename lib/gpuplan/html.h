// A report as one self-contained HTML page (`--format html -o report.html`):
// for the people who decide, who read it in a browser or print it for a boss.
// No network, scripts or fonts from elsewhere: the styles are inline, the
// charts inline SVG drawn from the report's Chart data, the tables the ones
// the terminal shows, the notes (every default with its source) under them,
// and print CSS for a clean A4 page.
#pragma once

#include <string>

#include "gpuplan/report.h"

namespace gpuplan {

std::string render_html(const Report& report);

/// One chart as an SVG element (what the page inlines): a polyline a series,
/// axes with rounded ticks, a legend, the marker as a dashed line.
std::string render_svg(const Chart& chart);

}  // namespace gpuplan
