// Fuzzes the scenario loader and the buy-vs-rent model: YAML text -> Scenario -> compare().
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>

#include "fuzz_common.h"
#include "gpuplan/compare.h"
#include "gpuplan/context.h"
#include "gpuplan/scenario.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const gpuplan::Context ctx = [] {
    gpuplan::GlobalOptions o;
    o.today = "2026-12-02";
    return gpuplan::make_context(o);
  }();
  const std::string text(reinterpret_cast<const char*>(data), size);
  gpuplan_fuzz::expect_handled([&] {
    const gpuplan::ResolvedScenario rs = gpuplan::load_scenario("fuzz.yaml", {}, ctx, &text);
    try {
      const gpuplan::Comparison c = gpuplan::compare(rs.scenario);
      for (const gpuplan::OptionResult& o : c.options) gpuplan_fuzz::expect_finite(o.npv, "NPV");
    } catch (const std::invalid_argument&) {
      // compare() documents it for amounts that overflow; the command reports it as bad input.
    }
  });
  return 0;
}
