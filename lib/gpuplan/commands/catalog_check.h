// `gpuplan catalog check`: what a catalog's maintainer needs to know about its
// freshness and sources, for the catalog the other commands would use (the
// built-in one and every --catalog file, merged): prices per provider with
// the oldest and newest date, how many are stale or undated, and how the
// records rate their sources.
#pragma once

#include "gpuplan/context.h"
#include "gpuplan/report.h"

namespace gpuplan {

Report catalog_check_report(const Context& ctx);

}  // namespace gpuplan
