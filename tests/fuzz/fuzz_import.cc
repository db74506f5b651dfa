// Fuzzes catalog import: the first byte picks the format (even: SkyPilot's
// vms.csv, priced as RunPod's; odd: the quote CSV), the rest is the file.
// Bad input must end in a documented error; whatever is imported must load
// back as a catalog over the built-in one (catalog import promises its output
// always passes `catalog validate`), with a finite price for every offer.

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "fuzz_common.h"
#include "gpuplan/catalog_import.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 1) return 0;
  const gpuplan::Catalog& catalog = gpuplan::builtin_catalog();
  const bool quotes = (data[0] & 1) != 0;
  const std::string file = gpuplan_fuzz::as_file(data + 1, size - 1);
  gpuplan::ImportOptions o;
  o.provider = "runpod";
  o.as_of = gpuplan::parse_date("2026-11-30");
  o.today = gpuplan::parse_date("2026-12-02");
  gpuplan_fuzz::expect_handled([&] {
    const gpuplan::ImportResult r =
        quotes ? gpuplan::import_quotes({file}, o, catalog) : gpuplan::import_skypilot({file}, o, catalog);
    gpuplan::check_imported(r, catalog);  // refused rows are input errors, found before writing
    const std::string yaml = gpuplan::to_catalog_yaml(r, "fuzz");
    try {
      const gpuplan::Catalog c = gpuplan::parse_catalog(yaml, "<import>", &catalog);
      for (const gpuplan::Offer& offer : c.offers)
        for (const gpuplan::BillingMode m : gpuplan::kAllModes)
          if (const auto& p = offer.price(m)) gpuplan_fuzz::expect_finite(p->amount.units(), "imported price");
    } catch (const std::exception& e) {
      std::fprintf(stderr, "imported catalog does not load: %s\n%s\n", e.what(), yaml.c_str());
      std::abort();
    }
  });
  return 0;
}
