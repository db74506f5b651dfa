// Fuzzes the catalog loader: YAML text -> Catalog (merged over the built-in one).
#include <cstddef>
#include <cstdint>
#include <string>

#include "fuzz_common.h"
#include "gpuplan/catalog.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  gpuplan_fuzz::expect_handled([&] {
    const gpuplan::Catalog overlay = gpuplan::parse_catalog(text, "fuzz.yaml", &gpuplan::builtin_catalog());
    const gpuplan::Catalog merged = gpuplan::merge(gpuplan::builtin_catalog(), overlay);
    for (const gpuplan::Offer& o : merged.offers)
      for (const auto& p : {o.hourly, o.monthly, o.spot})
        if (p) gpuplan_fuzz::expect_finite(p->amount.units(), "price");
  });
  return 0;
}
