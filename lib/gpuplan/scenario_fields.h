// The input fields of a scenario file (`compare`, `sensitivity`), one row
// each: see fields.h for what a row holds. The schema for people is in
// examples/README.md; lib/gpuplan/schemas/compare.schema.json describes the
// echo, and a test checks both against these rows.
#pragma once

#include <span>
#include <string_view>

#include "gpuplan/compare.h"
#include "gpuplan/fields.h"

namespace gpuplan {

/// Every section of a scenario file, in reading order: "" (the top level),
/// workload, buy, rent, rent.hourly, rent.monthly, rent.spot, hybrid, tax.
std::span<const Section<Scenario>> scenario_sections();

/// One section by name; throws std::logic_error for an unknown name.
const Section<Scenario>& scenario_section(std::string_view name);

/// What a rental option echoes besides its own rows: the offer it resolved
/// to and the add-ons billed with it ("offer", "description", "price", …).
/// Prices under keys that carry their basis: price_per_instance_hour and
/// price_per_gpu_hour (`monthly`: _month).
Json echo_rental(const RentInputs& r, bool monthly);

/// The scenario field an operating record of `kind` supplies a default for
/// (pue → buy.pue, lead_time → buy.lead_time, …): the catalog reads the
/// record's value with that row, so both share one range. Throws
/// std::logic_error for a money kind (read as a price).
const Field<Scenario>& operating_field(OperatingKind kind);

/// When buy.server_base's default is the non-GPU share of a server (the card
/// and server records far apart): base = card_price × cards_per_server × this
/// factor, share / (1 − share). nullopt when the default is not so derived.
std::optional<double> server_base_share_factor(const Scenario& s, const FieldContext& ctx);

/// The JSON Schema of what load_scenario echoes (the `inputs` of compare),
/// from the rows: the published schema must hold exactly this (a test checks).
Json scenario_echo_schema();

}  // namespace gpuplan
