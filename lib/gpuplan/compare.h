// Buy versus rent over a horizon: the monthly cash flow of each option
// (buy, rent hourly, rent monthly, spot, hybrid), its total, NPV, cost per
// GPU-hour actually used, the time until training can start, and the
// break-even between owning and renting. Inputs are fully resolved values
// (scenario.h turns files, --set and catalog defaults into them); every
// formula is written beside the code in compare.cc.
//
// Conventions: month 0 is the purchase (capex), months 1..H are the running
// months, cash flows are costs (positive = money out) rounded to the
// currency's minor unit per month, so totals equal the sum of printed months.
#pragma once

#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include "gpuplan/cost/financing.h"
#include "gpuplan/cost/spot.h"
#include "gpuplan/cost/vat.h"
#include "gpuplan/money.h"
#include "gpuplan/units.h"

namespace gpuplan {

// The structs below hold neutral values (zero, one run, a PUE of 1): every
// default a user gets lives in one row of scenario_fields.cc, with its reason.

/// What the team needs, whatever it runs on.
struct Workload {
  int gpus = 0;                       ///< cards busy while training
  double utilisation = 0.0;           ///< busy fraction of the month (0–1), after training can start
  int runs_per_month = 1;             ///< training runs (each billed and released separately when renting)
  Bytes dataset{};                    ///< kept in storage while renting, uploaded once
  Bytes egress_per_month{};           ///< results, checkpoints and logs downloaded per month
  BytesPerSecond upload_bandwidth{};  ///< measured upload rate to the provider
  /// A model served on the owned cards (workload.serving, a `serve` file):
  /// the share of the month it keeps them busy, added to utilisation for
  /// their power, and what renting that serving costs a month, which every
  /// rental option pays as "serving (rented)" (and the buy option while it waits).
  std::string serving{};
  double serving_share = 0.0;
  std::optional<Money> serving_rented{};
  std::vector<std::string> serving_notes{};  ///< how it was sized and what rents it: said in the report
  /// Why the bought cards cannot carry the served model beside training ("" = they can): buying is left out.
  std::string serving_overload{};
};

enum class LeadTimeCover { kDelayCost, kRent };

struct OwnInputs {
  std::string gpu{};  ///< catalog GPU id
  int cards = 0;
  int cards_per_server = 8;  ///< chassis, server power, operations and colocation are per server
  Money card_price = Money::zero(kCny);
  Money server_base = Money::zero(kCny);
  /// When the default base is the non-GPU share of a server: base = card_price ×
  /// cards_per_server × this (the workbook's formula); 0: given, or read otherwise.
  double server_base_factor = 0.0;  ///< per server: chassis, CPUs, memory, NVMe, NVSwitch board
  Money network = Money::zero(kCny);      ///< switches and NICs
  Money facility = Money::zero(kCny);     ///< room, cooling and power upgrades: sunk, not resold
  Seconds lead_time{};                    ///< order to first training day
  LeadTimeCover cover = LeadTimeCover::kRent;
  Money delay_cost_per_month = Money::zero(kCny);  ///< with kDelayCost: what a month without training costs
  Seconds useful_life{};
  double residual_share = 0.0;  ///< resale value at the end of the useful life, share of hardware capex
  /// What the hardware sells for at the horizon, overriding depreciation:
  /// a share of the hardware capex, or an amount (at most one is set).
  std::optional<double> resale_share{};
  std::optional<Money> resale_amount{};
  /// Yearly change of the price of new cards: the hardware's market value at
  /// month m is its book value × (1 + trend)^(m/12) (not with a resale override).
  double card_price_trend = 0.0;
  Watts gpu_busy{};  ///< per card, training (TDP)
  Watts gpu_idle{};  ///< per card, idle
  Watts server{};    ///< per server: CPUs, fans, NICs, storage
  double pue = 1.0;
  Money electricity_per_kwh = Money::zero(kCny);
  Money colocation_per_month = Money::zero(kCny);  ///< per server
  Money operations_per_month = Money::zero(kCny);  ///< per server
  /// How the hardware is paid (the facility is paid in cash): at purchase, or
  /// by a loan or a finance lease on the hardware (financing.h).
  Financing financing = Financing::kCash;
  double loan_rate = 0.0;  ///< nominal yearly
  int loan_term_months = 0;
  double down_payment = 0.0;  ///< share of the hardware paid at purchase
  double lease_rate = 0.0;    ///< the lease's implicit nominal yearly rate
  int lease_term_months = 0;
  double lease_upfront = 0.0;  ///< share of the hardware paid at signing
  double lease_buyout = 0.0;   ///< share of the hardware paid at the end of the term to own it
};

/// The loan or lease terms of `o` (financing is not cash).
FinancingTerms financing_terms(const OwnInputs& o);

/// Servers holding `cards`: ⌈cards / cards_per_server⌉.
inline int servers_for(const OwnInputs& o) {
  return (o.cards + o.cards_per_server - 1) / std::max(1, o.cards_per_server);
}

/// Hardware capex: cards, one server base per server, and the network.
Money hardware_capex(const OwnInputs& o);

/// One rental price and the add-ons billed with it.
struct RentInputs {
  std::string offer{};              ///< catalog offer id, or "" when given directly
  std::string description{};        ///< "autodl RTX4090 (1 GPU)", for tables
  Money price = Money::zero(kCny);  ///< per instance per hour (monthly: per month)
  int gpus_per_instance = 1;
  Seconds granularity{};  ///< 0: billed exactly
  Seconds minimum_billing{};
  Money storage_per_gb_month = Money::zero(kCny);
  Money egress_per_gb = Money::zero(kCny);
  double support_share = 0.0;
  Money support_minimum_monthly = Money::zero(kCny);
  Seconds provisioning{};            ///< order to a usable instance
  std::vector<std::string> notes{};  ///< what was not priced, and where add-on prices came from
  int commitment_months = 0;         ///< monthly: a committed-use term; months past the horizon are still owed
  /// Monthly with a commitment: the share of the committed compute paid in
  /// month 0 (1: all upfront, as a 包年 package); the rest is billed monthly.
  double upfront_share = 0.0;
};

struct HourlyInputs {
  RentInputs rent{};
  Hours idle_per_run{};       ///< left running after a run ends (the forgotten instance)
  bool auto_release = false;  ///< release on completion: no idle hours
};

struct SpotInputs {
  RentInputs rent{};
  SpotParams interruptions{};
  /// Set when the spot price is the hourly price less this share (rent.spot.discount).
  std::optional<double> discount{};
  /// With a discount, the instance shape and add-ons follow the hourly option
  /// except these rent.spot keys, given for spot itself.
  std::vector<std::string> own_keys{};
};

struct HybridInputs {
  double local_share = 0.0;  ///< share of the work done on local cards (in rented-card GPU-hours)
  double local_speed = 1.0;  ///< throughput of one local card ÷ one rented card
  int local_cards = 0;
  std::string local_gpu{};                ///< for labels
  Money local_capex = Money::zero(kCny);  ///< 0 when the local cards are already owned
  Watts local_gpu_busy{};
  Watts local_gpu_idle{};
};

struct Scenario {
  std::string name{};
  Currency currency = kCny;
  std::string region{};  ///< market for the catalog's purchase prices and operating costs
  /// Where rented nodes may be (data residency): countries ("CN") or provider
  /// regions ("cn-northwest-1"); "any" allows every offer.
  std::vector<std::string> rent_regions{};
  /// Yearly change of rental prices (−0.15: 15% cheaper each year); month m of a
  /// rental bill costs (1 + trend)^((m − 1)/12) of today's. Committed prices do not move.
  double rent_price_trend = 0.0;
  int horizon_months = 0;
  double discount_rate = 0.0;  ///< annual cost of capital, 0–1
  VatInputs vat{};
  Workload workload{};
  OwnInputs own{};
  std::optional<HourlyInputs> hourly{};
  std::optional<RentInputs> monthly{};
  std::optional<SpotInputs> spot{};
  std::optional<HybridInputs> hybrid{};
  /// Options left out of the decision whatever they cost (a purchase the
  /// market restricts, with exclude_restricted): each shown, never cheapest.
  struct Exclusion {
    std::string option{};  ///< "buy", "rent_hourly", …
    std::string why{};
  };
  bool exclude_restricted = false;
  std::vector<Exclusion> excluded{};
  /// Options the catalog says are restricted (or not known to be allowed) in
  /// the region and still in the decision: said in each one's notes.
  std::vector<Exclusion> caveats{};
};

/// One labelled part of an option's cost over the horizon ("compute", "power").
struct CostLine {
  std::string item;
  Money amount;
};

struct OptionResult {
  std::string key{};               ///< buy, rent_hourly, rent_monthly, spot, hybrid
  std::string label{};             ///< "Buy 8× A100-80G"
  std::vector<Money> cash_flow{};  ///< months 0..H, rounded to the minor unit
  /// VAT on each month's items (months 0..H): apart from cash_flow, unless it
  /// is not recoverable, when cash_flow carries it as an item of its own.
  std::vector<Money> vat_flow{};
  Money vat = Money::zero(kCny);  ///< Σ vat_flow
  std::vector<CostLine> breakdown{};
  std::vector<std::vector<CostLine>> items_by_month{};  ///< months 0..H: the items of each month
  Money total = Money::zero(kCny);                      ///< Σ cash_flow
  double npv = 0.0;                                     ///< Σ CF_m / (1 + r_m)^m, in currency units
  std::optional<double> cost_per_used_gpu_hour{};       ///< total / GPU-hours used; none when nothing is used
  double used_gpu_hours = 0.0;
  Hours start_delay{};  ///< until training can start
  /// Buy vs this option, months with one decimal (interpolated between month
  /// ends); none when owning is still behind at the horizon:
  /// break_even: from when owning stays at or below, counting what the
  /// hardware is still worth (net position); payback: the same on cash alone
  /// (no credit for the hardware's value).
  std::optional<double> break_even_month{};
  std::optional<double> payback_month{};
  bool available = true;  ///< false: it cannot deliver within the horizon (excluded from the decision)
  std::vector<std::string> notes{};
  std::vector<std::string> warnings{};  ///< notes that may make the answer wrong: on stderr too
};

/// Buy, with its parts shown apart.
struct OwnSummary {
  Money gross = Money::zero(kCny);   ///< every payment: hardware, facility, running, bridge or delay
  Money capex = Money::zero(kCny);   ///< hardware and facility (month 0)
  Money opex = Money::zero(kCny);    ///< running, bridge or delay cost
  Money resale = Money::zero(kCny);  ///< credited at the horizon (positive)
  Money net = Money::zero(kCny);     ///< gross − resale = the option's total
  /// Months 0..H: book value of the hardware at each month end (what it is
  /// worth by the stated depreciation, or by the resale override's line).
  std::vector<Money> value{};
  std::vector<Money> depreciation{};  ///< months 0..H: fall in value during the month
  /// Months 0..H: what is still owed on a loan or lease at each month end
  /// (zero in cash); the net position and payback count it as paid.
  std::vector<Money> owed{};
  Money interest = Money::zero(kCny);  ///< loan or lease interest paid within the horizon
};

struct Comparison {
  Scenario scenario{};
  std::vector<OptionResult> options{};  ///< buy first, then rent_hourly, rent_monthly, spot, hybrid
  OwnSummary own{};
  std::string cheapest{};  ///< key of the lowest NPV
  /// Buy against the cheapest rental option.
  std::string break_even_versus{};
  std::optional<double> break_even_month{};
  std::optional<double> payback_month{};
  /// Busy fraction at which buying and renting by the hour have equal NPV (none in 0–100%: nullopt).
  std::optional<double> break_even_utilisation{};
  std::optional<SpotOverhead> spot_overhead{};
  std::string recommendation{};
  std::string deciding_input{};
};

/// Throws std::invalid_argument for inputs no model can use (checked upstream with locations).
Comparison compare(const Scenario& s);

/// Monthly discount factor of an annual rate: (1 + r)^(1/12) − 1.
double monthly_rate(double annual);

}  // namespace gpuplan
