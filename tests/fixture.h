// The frozen fixture catalog (tests/data/catalog-fixture.yaml) alone, on the
// day the golden tests pin: behaviour tests run on it, so a price refresh of
// pricing/default.yaml does not rewrite them.
#pragma once

#include "gpuplan/context.h"

namespace gpuplan::testing {

inline Context fixture_context() {
  GlobalOptions o;
  o.today = "2026-12-02";
  o.no_default_catalog = true;
  o.catalog_files = {GPUPLAN_TEST_DATA "/catalog-fixture.yaml"};
  return make_context(o);
}

}  // namespace gpuplan::testing
