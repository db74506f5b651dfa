// Scenario files for `compare` (and, later, `sensitivity`): YAML or nothing at
// all, plus --set overrides, resolved against the catalog into a fully
// specified Scenario. Every value the user did not give is a default that is
// named in `defaults_used` (with its catalog record or "assumption"), so a
// report always says what it assumed. The schema is in examples/README.md.
#pragma once

#include <string>
#include <vector>

#include "gpuplan/compare.h"
#include "gpuplan/context.h"
#include "gpuplan/fields.h"
#include "gpuplan/json.h"

namespace gpuplan {

struct ResolvedScenario {
  Scenario scenario{};
  std::string source{};                      ///< the file, or "built-in defaults"
  std::vector<std::string> defaults_used{};  ///< "buy.card_price = 100,000.00 CNY (catalog purchase a100-80g-cn)"
  std::vector<DefaultUsed> defaults{};       ///< the same as records, with each one's quality
  std::vector<std::string> defaulted{};      ///< every field filled by its row's default ("buy.cards")
  Json inputs{};                             ///< every resolved input, echoed in JSON
  std::vector<std::string> fx_notes{};       ///< the exchange rates applied, with their dates
  Json fx_used{};                            ///< the same as JSON
};

/// `path` empty: the built-in default scenario (an 8-card A100-class team in Qingdao).
/// `sets` are "path.to.field=VALUE". Throws InputErrors naming file, line and field.
/// `text`: the file's content already in memory (`path` then only names it).
ResolvedScenario load_scenario(const std::string& path, const std::vector<std::string>& sets, const Context& ctx,
                               const std::string* text = nullptr);

/// The built-in default scenario with no file read: every default comes from
/// the field tables (scenario_fields.h) and the catalog, exactly as
/// `gpuplan compare` with no file gets them.
ResolvedScenario default_scenario(const Context& ctx);

/// What the catalog says cannot plainly be bought or rented in the scenario's
/// region: buying its card, then each rental option's offer (catalog.h).
std::vector<AvailabilityCaveat> availability_caveats(const Catalog& c, const Scenario& s);

}  // namespace gpuplan
