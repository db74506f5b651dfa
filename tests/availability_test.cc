// Export controls and other software stacks: a card's status per market, what
// `plan --include-buy` does with it, and the MFU default off CUDA.
#include <catch2/catch.hpp>

#include "gpuplan/catalog.h"
#include "gpuplan/compare.h"
#include "gpuplan/context.h"
#include "gpuplan/efficiency.h"
#include "gpuplan/error.h"
#include "gpuplan/i18n.h"
#include "gpuplan/plan.h"
#include "gpuplan/scenario.h"

using namespace gpuplan;
using Catch::Matchers::Contains;

namespace {

// Two cards with a purchase price each; R is restricted in CN, O is not.
const char* kCards = R"(schema_version: 1
gpus:
  - id: R
    name: Restricted card
    form_factor: pcie
    memory: 80GB
    tflops: {bf16: 200}
    tdp: 400W
    pcie_gen: 4
    availability:
      - {market: CN, status: restricted, reason: "export licence required", reason_zh: "须获出口许可", source: "rule", as_of: 2023-10-17}
      - {market: US, status: available, source: "shop", as_of: 2024-01-01}
    source: test
    as_of: 2026-11-01
  - {id: O, name: Open card, form_factor: pcie, memory: 80GB, tflops: {bf16: 100}, tdp: 300W, pcie_gen: 4, source: test, as_of: 2026-11-01}
purchases:
  - {id: r-cn, kind: card, gpu: R, price: 10000, currency: CNY, region: CN, source: quote, as_of: 2026-11-01}
  - {id: o-cn, kind: card, gpu: O, price: 10000, currency: CNY, region: CN, source: quote, as_of: 2026-11-01}
)";

// Card O rented at two offers, one restricted for renters in CN; R bought from
// a dealer whose own record says its in-country stock is available.
const char* kOffers = R"(schema_version: 1
gpus:
  - {id: O, name: Open card, form_factor: pcie, memory: 80GB, tflops: {bf16: 100}, tdp: 300W, pcie_gen: 4, source: test, as_of: 2026-11-01}
  - id: R
    name: Restricted card
    form_factor: pcie
    memory: 80GB
    tflops: {bf16: 200}
    tdp: 400W
    pcie_gen: 4
    availability: [{market: CN, status: restricted, reason: "export licence required", source: rule, as_of: 2023-10-17}]
    source: test
    as_of: 2026-11-01
providers:
  - {id: p, name: P, kind: gpu_cloud, country: US, currency: CNY, billing_granularity: 1s, source: test, as_of: 2026-11-01}
offers:
  - {id: open, provider: p, region: r, instance: one, gpu: O, gpus: 1, hourly: 10, source: test, as_of: 2026-11-01}
  - id: closed
    provider: p
    region: r
    instance: one
    gpu: O
    gpus: 1
    hourly: 5
    availability: [{market: CN, status: restricted, reason: "no customers in CN", source: terms, as_of: 2026-01-01}]
    source: test
    as_of: 2026-11-01
purchases:
  - id: r-stock
    kind: card
    gpu: R
    price: 10000
    currency: CNY
    region: CN
    availability: [{market: CN, status: available, source: "dealer", as_of: 2023-09-01}]
    source: quote
    as_of: 2026-11-01
  - id: o-card
    kind: card
    gpu: O
    price: 10000
    currency: CNY
    region: CN
    availability: [{market: CN, status: unknown, reason: "dealer cannot confirm", source: "dealer", as_of: 2026-11-01}]
    source: quote
    as_of: 2026-11-01
)";

std::string joined(const std::vector<std::string>& lines) {
  std::string all;
  for (const auto& n : lines) all += n + "\n";
  return all;
}

// The fixture catalog with `overlay` merged over it.
Context fixture_with(const char* overlay) {
  GlobalOptions g;
  g.today = "2026-12-02";
  g.no_default_catalog = true;
  g.catalog_files = {GPUPLAN_SOURCE_DIR "/tests/data/catalog-fixture.yaml", overlay};
  return make_context(g);
}

PlanInputs buy_job() {
  PlanInputs in;
  in.job.forward_flops_per_sample = 1e12;
  in.job.samples = 3.6e6;
  in.job.global_batch = 64;
  in.job.parameters = 0;
  in.include_buy = true;
  in.max_gpus = 8;
  in.market = "CN";
  in.deadline = Days(400);
  return in;
}

}  // namespace

TEST_CASE("availability: a card's status per market, read and checked", "[availability]") {
  const Catalog c = parse_catalog(kCards, "cards.yaml");
  const Gpu* r = c.find_gpu("R");
  REQUIRE(r);
  REQUIRE(r->availability.size() == 2);
  CHECK(r->availability_in("cn")->status == Availability::kRestricted);  // markets compare case-insensitively
  CHECK(r->availability_in("CN")->reason == "export licence required");
  CHECK(format_date(r->availability_in("CN")->provenance.as_of) == "2023-10-17");
  CHECK(r->availability_in("US")->status == Availability::kAvailable);
  CHECK(r->availability_in("DE") == nullptr);  // not stated: not known to be restricted
  CHECK_FALSE(r->memory_bandwidth);            // optional: left out where no source agrees
  CHECK(r->software == "cuda");
}

TEST_CASE("availability: the reason in the reader's language, where the catalog gives it", "[availability][i18n]") {
  const Catalog c = parse_catalog(kCards, "cards.yaml");
  const auto en = purchase_caveat(c, "R", "CN");
  REQUIRE(en);
  CHECK_THAT(en->detail, Contains("export licence required"));
  set_language(Language::kChinese);
  const auto zh = purchase_caveat(c, "R", "CN");
  const auto none = parse_catalog(kOffers, "offers.yaml").find_gpu("R")->availability_in("CN")->reason_shown();
  set_language(Language::kEnglish);
  REQUIRE(zh);
  CHECK_THAT(zh->detail, Contains("须获出口许可"));
  CHECK(none == "export licence required");  // no reason_zh: the catalog's own words
}

TEST_CASE("plan --include-buy: a restricted card is marked, or left out and named", "[availability][plan]") {
  const Catalog c = parse_catalog(kCards, "cards.yaml");
  const CurrencyConverter fx(c, kCny);
  PlanInputs in = buy_job();
  PlanResult r = plan(in, c, fx);
  bool r_seen = false;
  for (const PlanSource& s : r.sources) {
    if (s.gpu->id == "R") {
      r_seen = true;
      REQUIRE(s.availability);
      CHECK(s.availability->status == Availability::kRestricted);
    } else {
      CHECK_FALSE(s.availability);
    }
  }
  CHECK(r_seen);
  const auto notes = [&] {
    std::string all;
    for (const auto& n : r.notes) all += n + "\n";
    return all;
  };
  CHECK_THAT(notes(), Contains("Buying R in CN is restricted: export licence required (rule, as_of 2023-10-17)"));
  // The fast restricted card is the recommendation here: marked in its row, and warned about.
  REQUIRE(r.recommended);
  CHECK(r.recommended->source->gpu->id == "R");
  CHECK(std::find(r.recommended->notes.begin(), r.recommended->notes.end(), "restricted in CN") !=
        r.recommended->notes.end());
  REQUIRE(r.warnings.size() == 1);
  CHECK_THAT(r.warnings[0], Contains("the recommendation buys R, restricted in CN"));

  in.exclude_restricted = true;
  r = plan(in, c, fx);
  for (const PlanSource& s : r.sources) CHECK(s.gpu->id != "R");
  CHECK_THAT(notes(), Contains("Left out as restricted in CN (--exclude-restricted): buying R."));
  REQUIRE(r.recommended);
  CHECK(r.recommended->source->gpu->id == "O");
  CHECK(r.warnings.empty());

  // In a market where R is available, nothing is said.
  in.exclude_restricted = false;
  in.market = "US";
  r = plan(in, c, fx);
  CHECK(r.warnings.empty());
  CHECK(notes().find("restricted") == std::string::npos);
  // Its only price is a CN one: used, and said where it is from.
  for (const PlanSource& src : r.sources)
    if (!src.offer) CHECK_THAT(src.notes.at(0), Contains("priced in CN: no record for US"));
}

TEST_CASE("MFU default off CUDA: the same figure, said to be uncalibrated, with its low end halved",
          "[availability][efficiency]") {
  Gpu cuda;
  cuda.form_factor = "sxm";
  Gpu cann = cuda;
  cann.software = "cann";
  const Job job;
  const MfuDefault a = default_mfu(cuda, job), b = default_mfu(cann, job);
  CHECK(b.value == a.value);
  CHECK(b.high == a.high);
  CHECK(b.low == Approx(a.value / 2));
  CHECK_THAT(b.source, Contains("not calibrated on cann") && Contains("fit mfu"));
  CHECK(a.source.find("not calibrated") == std::string::npos);
}

TEST_CASE("MFU default by job.stack: NVIDIA's recipes above the median, other runs below, each band inside [0, 1]",
          "[availability][efficiency]") {
  Gpu sxm;
  sxm.form_factor = "sxm";
  Gpu pcie = sxm;
  pcie.form_factor = "pcie";
  Job job;
  const MfuDefault unknown = default_mfu(sxm, job);
  job.stack = Stack::kNvidiaRecipe;
  const MfuDefault recipe = default_mfu(sxm, job);
  job.stack = Stack::kOther;
  const MfuDefault other = default_mfu(sxm, job);
  CHECK(other.value < unknown.value);
  CHECK(unknown.value < recipe.value);
  for (const MfuDefault& d : {unknown, recipe, other}) {
    INFO(d.source);
    CHECK(0 < d.low);
    CHECK(d.low < d.value);
    CHECK(d.value < d.high);
    CHECK(d.high < 1);
    CHECK_THAT(d.source, Contains("published-runs.yaml"));
  }
  CHECK_THAT(recipe.source, Contains("nvidia_recipe") && Contains("15 published runs"));
  CHECK_THAT(other.source, Contains("job.stack other") && Contains("25 published runs"));
  // A PCIe card gets the SXM figure, said to be the SXM cards'.
  const MfuDefault pcie_recipe = default_mfu(pcie, job);
  CHECK(pcie_recipe.value == other.value);
  CHECK_THAT(pcie_recipe.source, Contains("none on PCIe"));
  // Mixtures of experts and consumer cards do not split by stack: too few runs.
  job.experts = 8;
  job.experts_per_token = 2;
  job.stack = Stack::kNvidiaRecipe;
  const MfuDefault moe_recipe = default_mfu(sxm, job);
  CHECK(moe_recipe.stack.empty());
  CHECK_THAT(moe_recipe.source, Contains("job.stack does not change it"));
  job.stack = Stack::kUnknown;
  CHECK(moe_recipe.value == default_mfu(sxm, job).value);
  CHECK(default_mfu(sxm, job).source.find("job.stack") == std::string::npos);
  Gpu consumer = sxm;
  consumer.form_factor = "consumer";
  Job small;
  small.stack = Stack::kNvidiaRecipe;
  const double consumer_recipe = default_mfu(consumer, small).value;
  small.stack = Stack::kOther;
  CHECK(consumer_recipe == default_mfu(consumer, small).value);
  CHECK_THAT(default_mfu(consumer, small).source, Contains("job.stack does not change it"));
  // Off CUDA NVIDIA's recipes do not run: the figure for an unknown stack, and said so.
  Gpu cann = sxm;
  cann.software = "cann";
  small.stack = Stack::kNvidiaRecipe;
  const MfuDefault off = default_mfu(cann, small);
  CHECK(off.value == unknown.value);
  CHECK(off.stack.empty());
  CHECK_THAT(off.source, Contains("does not apply off CUDA"));
  CHECK(recipe.stack == "nvidia_recipe");
  CHECK(unknown.stack == "unknown");
}

TEST_CASE("the built-in catalog: an Ascend card with sources, and the export-controlled cards marked in CN",
          "[availability][catalog]") {
  const Catalog& c = builtin_catalog();
  const Gpu* ascend = c.find_gpu("Ascend910B");
  REQUIRE(ascend);
  CHECK(ascend->software == "cann");
  CHECK_FALSE(ascend->provenance.source.empty());
  CHECK(ascend->provenance.confidence == "low");
  REQUIRE(ascend->availability_in("CN"));
  CHECK(ascend->availability_in("CN")->status == Availability::kAvailable);
  for (const char* id : {"A100-80G", "H100", "H800", "A800-80G", "RTX4090", "L40S"}) {
    INFO(id);
    const MarketStatus* m = c.find_gpu(id)->availability_in("CN");
    REQUIRE(m);
    CHECK(m->status == Availability::kRestricted);
    CHECK_THAT(std::string(m->provenance.source), Contains("8-K"));
  }
  CHECK(c.find_gpu("H20")->availability_in("CN")->status == Availability::kUnknown);
  CHECK(c.find_gpu("V100-32G")->availability_in("CN") == nullptr);
}

TEST_CASE("an offer's own status: plan marks and warns, or leaves it out and names it", "[availability][plan]") {
  const Catalog c = parse_catalog(kOffers, "offers.yaml");
  REQUIRE(c.find_offer("closed")->availability.size() == 1);
  CHECK(c.find_offer("open")->availability.empty());
  const CurrencyConverter fx(c, kCny);
  PlanInputs in = buy_job();
  in.include_buy = false;
  in.gpus = {"O"};
  PlanResult r = plan(in, c, fx);
  REQUIRE(r.recommended);
  CHECK(r.recommended->source->offer->id == "closed");  // half the price
  CHECK(std::find(r.recommended->notes.begin(), r.recommended->notes.end(), "restricted in CN") !=
        r.recommended->notes.end());
  CHECK_THAT(joined(r.notes), Contains("Renting closed in CN is restricted: no customers in CN (terms, as_of "
                                       "2026-01-01). --exclude-restricted leaves it out."));
  REQUIRE(r.warnings.size() == 1);
  CHECK_THAT(r.warnings[0], Contains("the recommendation rents closed, restricted in CN: no customers in CN"));

  in.exclude_restricted = true;
  r = plan(in, c, fx);
  REQUIRE(r.recommended);
  CHECK(r.recommended->source->offer->id == "open");
  CHECK(r.warnings.empty());
  CHECK_THAT(joined(r.notes), Contains("Left out as restricted in CN (--exclude-restricted): offer closed."));

  // The data leaves CN for p's US nodes: said.
  CHECK_THAT(joined(r.notes), Contains("The recommendation rents on p r, outside CN: the training data leaves CN"));

  // Renters elsewhere are not concerned, and p is a US provider.
  in.exclude_restricted = false;
  in.market = "US";
  r = plan(in, c, fx);
  CHECK(r.recommended->source->offer->id == "closed");
  CHECK(r.warnings.empty());
  CHECK(joined(r.notes).find("outside") == std::string::npos);
}

TEST_CASE("a purchase record's own status wins over its card's", "[availability][plan]") {
  const Catalog c = parse_catalog(kOffers, "offers.yaml");
  const Gpu& r_card = *c.find_gpu("R");
  const Purchase* stock = find_purchase(c, PurchaseKind::kCard, "R", "CN");
  REQUIRE(stock);
  CHECK(purchase_status(r_card, stock, "CN")->status == Availability::kAvailable);
  CHECK(purchase_status(r_card, nullptr, "CN")->status == Availability::kRestricted);
  CHECK(purchase_status(r_card, stock, "US") == nullptr);

  const CurrencyConverter fx(c, kCny);
  PlanInputs in = buy_job();
  in.providers = {"none-such"};  // buying only
  in.exclude_restricted = true;
  const PlanResult r = plan(in, c, fx);
  bool bought_r = false;
  for (const PlanSource& s : r.sources) {
    if (s.gpu->id == "R") {
      bought_r = true;
      CHECK_FALSE(s.availability);  // the dealer's stock is available: not left out, not marked
    } else {
      REQUIRE(s.availability);  // O's record is unsure, over a card with no status
      CHECK(s.availability->status == Availability::kUnknown);
    }
  }
  CHECK(bought_r);
  CHECK_THAT(joined(r.notes), Contains("Whether buying O in CN is allowed is unknown: dealer cannot confirm (dealer, "
                                       "as_of 2026-11-01). --exclude-restricted leaves out restricted options only."));
  CHECK(joined(r.notes).find("Left out") == std::string::npos);
}

TEST_CASE("compare and sensitivity: every option of the scenario that is not plainly available is said",
          "[availability][compare]") {
  const Catalog c = parse_catalog(kOffers, "offers.yaml");
  Scenario s;
  s.region = "CN";
  s.own.gpu = "O";
  s.hourly.emplace();
  s.hourly->rent.offer = "closed";
  s.monthly.emplace();
  s.monthly->offer = "open";
  std::vector<AvailabilityCaveat> v = availability_caveats(c, s);
  REQUIRE(v.size() == 2);
  CHECK(v[0].warning == "buy: whether O can be had in CN is unknown: dealer cannot confirm");
  CHECK(v[1].warning == "rent_hourly: offer closed is restricted in CN: no customers in CN");
  CHECK(v[1].source_note == "rent_hourly: offer closed is restricted in CN: terms, as_of 2026-01-01.");

  s.own.gpu = "R";  // the dealer's stock is available
  s.region = "US";  // and nothing is stated for US renters
  CHECK(availability_caveats(c, s).empty());
  s.region = "CN";
  s.hourly->rent.offer = "";  // a price given directly has no offer to judge
  CHECK(availability_caveats(c, s).empty());
}

TEST_CASE("compare: exclude_restricted leaves a restricted purchase out of the decision, never out of the table",
          "[availability][compare]") {
  const Context ctx = fixture_with(GPUPLAN_SOURCE_DIR "/tests/data/restricted-a100.yaml");
  const std::string path = GPUPLAN_SOURCE_DIR "/examples/qingdao-8xa100.yaml";
  const ResolvedScenario marked = load_scenario(path, {}, ctx);
  CHECK(marked.scenario.excluded.empty());
  const Comparison before = compare(marked.scenario);
  REQUIRE(before.cheapest == "buy");  // the example's utilisation makes owning cheapest
  // Still in the decision, and said where machine readers look (options[].notes in JSON).
  CHECK_THAT(joined(before.options.front().notes), Contains("A100-80G is restricted in CN: US export licence"));

  const ResolvedScenario left_out = load_scenario(path, {"exclude_restricted=true"}, ctx);
  REQUIRE(left_out.scenario.excluded.size() == 1);
  const Comparison after = compare(left_out.scenario);
  CHECK(after.cheapest != "buy");
  CHECK_FALSE(after.options.front().available);
  CHECK(after.options.front().total == before.options.front().total);  // still priced and shown
  for (std::size_t i = 1; i < after.options.size(); ++i) {
    CHECK(after.options[i].available == before.options[i].available);
    CHECK(after.options[i].total == before.options[i].total);
  }
  CHECK_THAT(after.recommendation, Contains("buying is left out: A100-80G is restricted in CN"));
  CHECK(after.deciding_input == "exclude_restricted");

  // Where the card is not restricted, the flag changes nothing.
  const ResolvedScenario us = load_scenario(path, {"exclude_restricted=true", "region=US"}, ctx);
  CHECK(us.scenario.excluded.empty());
}

TEST_CASE("compare: a rental left out of the decision bridges no lead time and is named in the recommendation",
          "[availability][compare]") {
  const Context ctx = fixture_with(GPUPLAN_SOURCE_DIR "/tests/data/restricted-offer.yaml");
  const std::string path = GPUPLAN_SOURCE_DIR "/examples/qingdao-8xa100.yaml";
  const std::vector<std::string> sets = {"rent.hourly.offer=lambda-us-8x-a100-sxm-80gb", "workload.utilisation=5%",
                                         "exclude_restricted=true"};
  const Comparison c = compare(load_scenario(path, sets, ctx).scenario);
  const std::string buy_notes = joined(c.options.front().notes);
  CHECK_THAT(buy_notes, Contains("bridged by renting by the month"));
  CHECK(buy_notes.find("by the hour") == std::string::npos);
  CHECK_THAT(c.recommendation, Contains("Left out of the decision as restricted in CN: rent_hourly, spot."));
  CHECK_FALSE(c.break_even_utilisation);  // against an option out of the decision: not shown
}
