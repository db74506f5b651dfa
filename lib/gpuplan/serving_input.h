// The serving file (`gpuplan serve [SERVING]`): what is served (model), how
// much (traffic), how fast (targets) and on what (serve), one field table per
// section (fields.h). The schema for people is in doc/serve.md; the echo's in
// lib/gpuplan/schemas/serve.schema.json, checked against these rows.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "gpuplan/context.h"
#include "gpuplan/fields.h"
#include "gpuplan/serving.h"

namespace gpuplan {

/// A hosted model priced per token, to weigh serving it yourself against.
struct ApiPrice {
  std::string offer{};  ///< a catalog API (apis), whose name and prices fill the rest
  std::string name{};
  std::optional<Money> input_per_million{};   ///< per million prompt tokens, report currency
  std::optional<Money> output_per_million{};  ///< per million output tokens
};

struct Serving {
  std::string name{};
  ServedModel model{};
  Traffic traffic{};
  ServiceTargets targets{};
  ServingEfficiency efficiency{};
  ApiPrice api{};
  std::vector<std::string> gpus{}, providers{}, regions{};  ///< filters; empty = every one
  std::string market{};  ///< where the team buys and rents from: export controls, owned cards' prices
  int min_replicas = 1;  ///< kept up through quiet hours by hourly rentals that follow the day
  bool spot = false;     ///< price spot instances too (a reclaim breaks the latency targets)
};

struct ResolvedServing {
  Serving serving{};
  std::string source{};
  bool model_given = false;  ///< the file has a model section (else the built-in Llama 2 7B)
  std::vector<std::string> defaults_used{};
  std::vector<std::string> warnings{};
  Json inputs{};
  std::vector<std::string> fx_notes{};  ///< rates applied to the file's amounts (an API price in USD)
  Json fx_used{};                       ///< the same as JSON
};

/// Every section, in reading order: "" (the top level), model, traffic, targets, serve.
std::span<const Section<ResolvedServing>> serving_sections();
const Section<ResolvedServing>& serving_section(std::string_view name);

/// Throws InputErrors naming file, line and field (or --set).
ResolvedServing load_serving(const std::string& path, const std::vector<std::string>& sets, const Context& ctx);

/// The JSON Schema of the echo (`inputs` of serve), from the rows.
Json serving_echo_schema();

}  // namespace gpuplan
