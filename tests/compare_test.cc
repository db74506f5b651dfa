#include <array>
#include <catch2/catch.hpp>
#include <random>

#include "gpuplan/compare.h"
#include "gpuplan/fields.h"

using namespace gpuplan;

namespace {
Money cny(const char* s) { return Money::parse(s, kCny); }

// The hand case: 700k capex, 10k/month to run, against 100k/month
// rented; no lead time, no power, no add-ons.
Scenario hand_case() {
  Scenario s;
  s.horizon_months = 24;
  s.workload.gpus = 1;
  s.workload.utilisation = 1.0;
  s.workload.dataset = Bytes(0);
  s.workload.egress_per_month = Bytes(0);
  s.workload.upload_bandwidth = BytesPerSecond(100e6);
  s.own.cards = 1;
  s.own.card_price = cny("700000");
  s.own.server_base = cny("0");
  s.own.lead_time = Seconds(0);
  s.own.useful_life = Years(3);
  s.own.residual_share = 0.0;
  s.own.electricity_per_kwh = cny("0");
  s.own.operations_per_month = cny("10000");
  RentInputs monthly;
  monthly.description = "hand";
  monthly.price = cny("100000");
  monthly.gpus_per_instance = 1;
  s.monthly = monthly;
  return s;
}

// A 1-GPU offer by the hour, billed by the second.
HourlyInputs hourly_at(Money price, Hours idle_per_run, bool auto_release) {
  RentInputs h;
  h.description = "hand";
  h.price = price;
  h.gpus_per_instance = 1;
  h.granularity = Seconds(1);
  return HourlyInputs{h, idle_per_run, auto_release};
}

const OptionResult& option(const Comparison& c, const std::string& key) {
  for (const OptionResult& o : c.options)
    if (o.key == key) return o;
  FAIL("no option " << key);
  return c.options.front();
}

// A scenario with every option, for property tests; `seed` varies the inputs.
Scenario random_scenario(unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  Scenario s;
  s.horizon_months = 6 + static_cast<int>(unit(rng) * 30);
  s.discount_rate = unit(rng) < 0.5 ? 0.0 : 0.1 * unit(rng);
  s.workload.gpus = 1 + static_cast<int>(unit(rng) * 16);
  s.workload.utilisation = 0.05 + 0.9 * unit(rng);
  s.workload.runs_per_month = 1 + static_cast<int>(unit(rng) * 20);
  s.workload.dataset = Bytes(unit(rng) * 2e12);
  s.workload.egress_per_month = Bytes(unit(rng) * 2e11);
  s.workload.upload_bandwidth = BytesPerSecond(1e8);
  s.own.cards = s.workload.gpus;
  s.own.card_price = cny("80000").scaled(0.5 + unit(rng));
  s.own.server_base = cny("150000");
  s.own.lead_time = Months(unit(rng) * 3);
  s.own.residual_share = 0.3 * unit(rng);
  s.own.gpu_busy = Watts(400);
  s.own.gpu_idle = Watts(60);
  s.own.server = Watts(1500);
  s.own.pue = 1.5;
  s.own.electricity_per_kwh = cny("0.62");
  s.own.operations_per_month = cny("4750");
  RentInputs r;
  r.description = "random";
  r.price = cny("40").scaled(0.5 + unit(rng));
  r.gpus_per_instance = 1 + static_cast<int>(unit(rng) * 8);
  r.granularity = Seconds(unit(rng) < 0.5 ? 1 : 3600);
  r.storage_per_gb_month = cny("0.5");
  r.egress_per_gb = cny("0.8");
  r.support_share = unit(rng) < 0.5 ? 0.0 : 0.1;
  s.hourly = HourlyInputs{r, Hours(0.5), unit(rng) < 0.5};
  RentInputs m = r;
  m.price = r.price.scaled(730 * 0.7);
  s.monthly = m;
  RentInputs sp = r;
  sp.price = r.price.scaled(0.4);
  s.spot = SpotInputs{sp, SpotParams{unit(rng) * 0.2, Seconds(300), Seconds(600), std::nullopt}};
  s.hybrid = HybridInputs{0.3, 0.5 + unit(rng), 2, "RTX4090", cny("0"), Watts(450), Watts(60)};
  return s;
}
}  // namespace

TEST_CASE("gpu-tco case: 700k capex at 10k/month pays back in 7.8 months against 100k/month, 4.5 against 225/h",
          "[compare]") {
  // Cash alone: 700k + 10k·m = 100k·m at m = 700/90 = 7.78; against 225 CNY/h × 730 h = 164,250 a
  // month, 700k + 10k·m = 164,250·m at m = 700/154.25 = 4.54 (gpu-tco's own figures, no discounting).
  Scenario s = hand_case();
  s.hourly = hourly_at(cny("225"), Hours(0), true);
  const Comparison c = compare(s);
  REQUIRE(option(c, "rent_monthly").payback_month);
  CHECK(*option(c, "rent_monthly").payback_month == Approx(7.8));
  REQUIRE(option(c, "rent_hourly").payback_month);
  CHECK(*option(c, "rent_hourly").payback_month == Approx(4.5));
  // Counting what the hardware is worth (straight line over 3 years to 0: 19,444 a month), owning
  // costs 29,444 a month against 100,000: it is never behind, so it is ahead from month 0.
  REQUIRE(option(c, "rent_monthly").break_even_month);
  CHECK(*option(c, "rent_monthly").break_even_month == 0.0);
  CHECK(option(c, "buy").cash_flow[0] == cny("700000"));
  CHECK(option(c, "rent_monthly").total == cny("2400000"));  // 24 × 100k
  CHECK(c.own.gross == cny("940000"));                       // gpu-tco: 700k + 24 × 10k
  CHECK(c.own.resale == cny("233333.33"));                   // 12 of 36 months of life left
  CHECK(c.own.net == option(c, "buy").total);
}

TEST_CASE("hand case: a 10% annual discount rate moves the payback to month 8.1", "[compare]") {
  // r_m = 1.1^(1/12) − 1 = 0.0079741; with v = 1/(1 + r_m) the discounted sums are
  // buy 700k + 10k·a(m) and rent 100k·a(m), a(m) = Σ_{k=1..m} v^k = (1 − v^m)/r_m:
  // a(8) = 7.7204 (700k − 90k·a = 5,164 behind), a(9) = 8.6514 (78,626 ahead): 8 + 5,164/83,790 = 8.06.
  Scenario s = hand_case();
  s.discount_rate = 0.10;
  const Comparison c = compare(s);
  REQUIRE(c.payback_month);
  CHECK(*c.payback_month == Approx(8.1));
  CHECK(monthly_rate(0.10) == Approx(0.0079741404));
}

TEST_CASE("break-even counts the hardware's value month by month, not only at the horizon", "[compare]") {
  // Resale booked at the horizon made "break-even month" equal the horizon whenever owning won
  // only thanks to it. Here owning is behind on cash for the whole horizon but ahead from month
  // 3 once the server's book value is counted: 700k + 60k·m − value(m) against 80k·m.
  Scenario s = hand_case();
  s.horizon_months = 12;
  s.own.operations_per_month = cny("60000");
  s.own.residual_share = 0.5;
  s.monthly->price = cny("80000");
  const Comparison c = compare(s);
  const OptionResult& m = option(c, "rent_monthly");
  CHECK_FALSE(m.payback_month);  // 700k + 60k·12 = 1.42M > 960k
  REQUIRE(m.break_even_month);
  // value(m) = 700k·(1 − 0.5·m/36); net(m) = 60k·m + 9,722.2·m = 69,722·m < 80k·m from month 0.
  CHECK(*m.break_even_month == 0.0);
  CHECK(*m.break_even_month < s.horizon_months);
  // With a resale of nothing (resale_value 0%) owning never catches up.
  s.own.resale_share = 0.0;
  const Comparison none = compare(s);
  CHECK_FALSE(option(none, "rent_monthly").break_even_month);
  CHECK(none.own.resale == cny("0"));
  CHECK(option(none, "buy").total == cny("1420000"));
}

TEST_CASE("a resale override replaces depreciation: an amount or a share at the horizon", "[compare]") {
  Scenario s = hand_case();
  s.own.resale_amount = cny("350000");
  Comparison c = compare(s);
  CHECK(c.own.resale == cny("350000"));
  // A straight line from the price at delivery to the resale at the horizon: month 12 is halfway.
  CHECK(c.own.value[12] == cny("525000"));
  s.own.resale_amount.reset();
  s.own.resale_share = 0.25;
  c = compare(s);
  CHECK(c.own.resale == cny("175000"));
}

TEST_CASE("break-even is never later than payback, and exists exactly when owning wins at the horizon",
          "[compare][property]") {
  for (unsigned seed = 1; seed <= 200; ++seed) {
    const Comparison c = compare(random_scenario(seed));
    const OptionResult& buy = c.options.front();
    for (const OptionResult& o : c.options) {
      if (o.key == "buy" || !buy.available || !o.available) continue;
      INFO("seed " << seed << " vs " << o.key);
      CHECK(o.break_even_month.has_value() == (buy.npv <= o.npv + 1e-6));
      if (o.payback_month) {
        REQUIRE(o.break_even_month);
        CHECK(*o.break_even_month <= *o.payback_month);
      }
      if (o.break_even_month) {
        CHECK(*o.break_even_month >= 0);
        CHECK(*o.break_even_month <= c.scenario.horizon_months);
      }
    }
  }
}

TEST_CASE("server base, server power, operations and colocation count once per server of 8 cards", "[compare]") {
  // Before: one chassis whatever the card count (16 cards: 1,260,000 instead of 1,400,000).
  for (const auto& [cards, servers] : {std::pair{8, 1}, std::pair{9, 2}, std::pair{16, 2}, std::pair{64, 8}}) {
    Scenario s = hand_case();
    s.workload.gpus = cards;
    s.own.cards = cards;
    s.own.card_price = cny("70000");
    s.own.server_base = cny("140000");
    s.own.colocation_per_month = cny("3000");
    s.own.server = Watts(1500);
    s.own.pue = 1.0;
    s.own.electricity_per_kwh = cny("1");
    INFO(cards << " cards");
    CHECK(servers_for(s.own) == servers);
    const Comparison c = compare(s);
    const OptionResult& buy = option(c, "buy");
    CHECK(buy.cash_flow[0] == cny("70000").times(cards) + cny("140000").times(servers));
    // Month 1: operations 10,000 and colocation 3,000 per server; 1,500 W × 730 h per server at 1 CNY/kWh.
    const Money per_server = cny("10000") + cny("3000") + cny("1095");
    CHECK(buy.cash_flow[1] == per_server.times(servers));
  }
  Scenario s = hand_case();
  s.own.cards = 16;
  s.own.cards_per_server = 4;
  CHECK(servers_for(s.own) == 4);
}

TEST_CASE("a horizon no longer than the lead time leaves buying out instead of showing it free", "[compare]") {
  // Before: hardware 901,023.06, resale −901,023.06, "beats renting from 0%".
  Scenario s = hand_case();
  s.horizon_months = 3;
  s.own.lead_time = Months(3);
  s.own.cover = LeadTimeCover::kRent;
  const Comparison c = compare(s);
  const OptionResult& buy = option(c, "buy");
  CHECK_FALSE(buy.available);
  CHECK(c.cheapest == "rent_monthly");
  CHECK_FALSE(c.break_even_utilisation);
  CHECK_FALSE(option(c, "rent_monthly").break_even_month);
  CHECK(c.recommendation.find("left out") != std::string::npos);
  // One month longer and buying is back in.
  s.horizon_months = 4;
  CHECK(option(compare(s), "buy").available);
}

TEST_CASE("idle hours left running fit in the month: never more than 730 billed hours an instance", "[compare]") {
  // Before: at 100% utilisation 740 h were billed in a 730-h month.
  Scenario s = hand_case();
  s.hourly = hourly_at(cny("10"), Hours(1), false);
  s.workload.runs_per_month = 10;
  for (double u : {1.0, 0.999, 0.99, 0.5}) {
    s.workload.utilisation = u;
    const Comparison c = compare(s);
    const OptionResult& o = option(c, "rent_hourly");
    INFO("u " << u);
    CHECK(o.cash_flow[1] <= cny("7300"));
    // Room for idle: 730·(1 − u) hours, at most 10 × 1 h.
    const double idle = std::min(10.0, 730 * (1 - u));
    CHECK(o.cash_flow[1].units() == Approx((730 * u + idle) * 10).margin(0.01));
  }
}

TEST_CASE("the lead time is bridged by the cheaper of renting by the hour and by the month", "[compare]") {
  Scenario s = hand_case();  // monthly 100,000
  s.own.lead_time = Months(2);
  s.hourly = hourly_at(cny("225"), Hours(0), true);  // 164,250 a month at 100%
  Comparison c = compare(s);
  CHECK(option(c, "buy").cash_flow[1] == cny("100000"));
  CHECK(option(c, "buy").notes.front().find("bridged by renting by the month") != std::string::npos);
  s.workload.utilisation = 0.25;  // 41,062.50 by the hour
  c = compare(s);
  CHECK(option(c, "buy").cash_flow[1] == cny("41062.50"));
  CHECK(option(c, "buy").notes.front().find("by the hour") != std::string::npos);
  // Half a month to wait: half an hour-billed month, or a whole package.
  s.own.lead_time = Months(0.5);
  s.workload.utilisation = 1.0;
  c = compare(s);
  CHECK(option(c, "buy").cash_flow[1].units() == Approx(82125 + 5000));  // hourly half, running half
}

TEST_CASE("no lead time, no words about bridging it", "[compare]") {
  Scenario s = hand_case();
  s.own.lead_time = Seconds(0);
  const Comparison c = compare(s);
  for (const auto& n : option(c, "buy").notes) CHECK(n.find("lead time") == std::string::npos);
}

namespace {
// One GPU an instance at `price` an hour, billed in steps of `step` (to the second by default).
RentInputs single_gpu_at(Money price, Seconds step = Seconds(1)) {
  RentInputs r;
  r.price = price;
  r.gpus_per_instance = 1;
  r.granularity = step;
  return r;
}
}  // namespace

TEST_CASE("a spot option with zero interruption rate costs exactly its price × hours", "[compare]") {
  Scenario s = hand_case();
  s.workload.utilisation = 0.5;
  s.workload.runs_per_month = 1;
  const RentInputs r = single_gpu_at(cny("20"));
  s.spot = SpotInputs{r, SpotParams{0.0, Seconds(300), Seconds(600), std::nullopt}};
  const Comparison c = compare(s);
  // 730 h × 50% = 365 h a month × 20 CNY = 7,300 CNY; × 24 months = 175,200 CNY.
  CHECK(option(c, "spot").total == cny("175200"));
  const auto& lines = option(c, "spot").breakdown;
  REQUIRE(lines.size() == 1);  // compute only: no interruption overhead (and zero add-ons are left out)
  CHECK(lines[0].item == "compute");
  REQUIRE(c.spot_overhead);
  CHECK(c.spot_overhead->wall_per_work == 1.0);
}

TEST_CASE("Daly: the higher-order interval and the complete model, finite at any rate", "[compare][spot]") {
  // C = 5 min = 300 s, MTBF = 1 day = 86,400 s. Young: τ = sqrt(2 · 300 · 86,400) = 7,200 s = 2 h.
  CHECK(young_daly_interval(Seconds(300), Seconds(86400)).count() == Approx(7200));
  // Daly (2006, eq. 12): x = C/2M = 1/576, τ = 7200 · (1 + sqrt(x)/3 + x/9) − 300
  //   = 7200 · (1 + 0.0138889 + 0.0001929) − 300 = 7001.39 s.
  const SpotOverhead ov = spot_overhead(SpotParams{1.0 / 24, Seconds(300), Seconds(600), std::nullopt});
  CHECK(ov.interval.count() == Approx(7001.389).epsilon(1e-6));
  // T/W = M·e^(R/M)·(e^((τ+C)/M) − 1)/τ = 86400 · e^(600/86400) · (e^(7301.39/86400) − 1) / 7001.39 = 1.095764
  // (the first-order model gave 1.096893 with Young's τ).
  CHECK(ov.wall_per_work == Approx(1.095764).epsilon(1e-6));
  CHECK(ov.checkpoint_share == Approx((300 / 7001.389) / 1.095764).epsilon(1e-6));
  CHECK(ov.checkpoint_share + ov.lost_share == Approx(1 - 1 / ov.wall_per_work).epsilon(1e-12));
  // Interruptions every 10 minutes, 5-minute writes, 10-minute restarts: the first-order model has no
  // finite answer (λ(R + (τ+C)/2) > 1); the complete one does: τ = 416.67 s, T/W = 9.0097.
  const SpotOverhead storm = spot_overhead(SpotParams{6.0, Seconds(300), Seconds(600), std::nullopt});
  CHECK(storm.interval.count() == Approx(416.667).epsilon(1e-5));
  CHECK(storm.wall_per_work == Approx(9.009694).epsilon(1e-6));
  // A checkpoint longer than the MTBF (C = 2 h, M = 30 min ⇒ C ≥ 2M): τ = M, T/W = e^(R/M)·(e^5 − 1) = 216.4.
  const SpotOverhead slow = spot_overhead(SpotParams{2.0, Seconds(7200), Seconds(600), std::nullopt});
  CHECK(slow.interval.count() == Approx(1800));
  CHECK(slow.wall_per_work == Approx(std::exp(600.0 / 1800) * std::expm1(5.0)).epsilon(1e-9));
}

TEST_CASE("property: the spot factor rises with the rate, the write and the restart", "[compare][spot]") {
  double previous = 1.0;
  for (double per_day : {0.0, 0.5, 1.0, 4.0, 24.0, 96.0, 500.0}) {
    const double f = spot_overhead(SpotParams{per_day / 24, Seconds(300), Seconds(600), std::nullopt}).wall_per_work;
    INFO(per_day << " a day");
    CHECK(std::isfinite(f));
    CHECK(f >= previous);
    previous = f;
  }
  for (double c : {60.0, 300.0, 3600.0, 36000.0}) {
    const SpotParams p{24.0 / 24, Seconds(c), Seconds(600), std::nullopt};
    const double f = spot_overhead(p).wall_per_work;
    CHECK(spot_overhead(SpotParams{p.interruptions_per_hour, Seconds(2 * c), p.restart, std::nullopt}).wall_per_work >
          f);
    CHECK(spot_overhead(SpotParams{p.interruptions_per_hour, p.checkpoint_write, Seconds(1200), std::nullopt})
              .wall_per_work > f);
    // Daly's τ is the optimum: a given interval 20% either side never does better.
    for (double k : {0.8, 1.2}) {
      SpotParams q = p;
      q.interval = spot_overhead(p).interval * k;
      CHECK(spot_overhead(q).wall_per_work >= f * (1 - 1e-4));
    }
  }
}

TEST_CASE("property: raising any price never lowers that option's total", "[compare]") {
  for (unsigned seed = 1; seed <= 40; ++seed) {
    const Scenario s = random_scenario(seed);
    const Comparison base = compare(s);
    const auto raised = [&](auto edit, const std::string& key) {
      Scenario t = s;
      edit(t);
      const Comparison c = compare(t);
      INFO("seed " << seed << " option " << key);
      CHECK(option(c, key).total >= option(base, key).total);
    };
    raised([](Scenario& t) { t.hourly->rent.price = t.hourly->rent.price.scaled(1.1); }, "rent_hourly");
    raised([](Scenario& t) { t.monthly->price = t.monthly->price.scaled(1.1); }, "rent_monthly");
    raised([](Scenario& t) { t.spot->rent.price = t.spot->rent.price.scaled(1.1); }, "spot");
    raised([](Scenario& t) { t.own.card_price = t.own.card_price.scaled(1.1); }, "buy");
    raised([](Scenario& t) { t.own.electricity_per_kwh = t.own.electricity_per_kwh.scaled(1.5); }, "buy");
    raised([](Scenario& t) { t.own.operations_per_month = t.own.operations_per_month.scaled(1.5); }, "buy");
    raised([](Scenario& t) { t.hourly->rent.storage_per_gb_month = cny("1"); }, "rent_hourly");
    raised([](Scenario& t) { t.hourly->rent.price = t.hourly->rent.price.scaled(1.1); }, "hybrid");
  }
}

TEST_CASE("property: at the break-even utilisation buying and renting by the hour agree within 0.1%", "[compare]") {
  int checked = 0;
  for (unsigned seed = 1; seed <= 60; ++seed) {
    Scenario s = random_scenario(seed);
    s.discount_rate = 0.0;  // NPV = total, so the totals must agree
    // Per-second billing: with hourly steps the tie falls on a step of the bill
    // and the totals there differ by up to one billed hour per run.
    s.hourly->rent.granularity = Seconds(1);
    const Comparison c = compare(s);
    if (!c.break_even_utilisation) continue;
    Scenario t = s;
    t.workload.utilisation = *c.break_even_utilisation;
    const Comparison at = compare(t);
    const double buy = option(at, "buy").total.units();
    const double hourly = option(at, "rent_hourly").total.units();
    INFO("seed " << seed << " u* " << *c.break_even_utilisation);
    CHECK(std::abs(buy - hourly) <= 0.001 * std::max(buy, hourly));
    ++checked;
  }
  CHECK(checked >= 5);
}

namespace {
// Whether NPV(buy) − NPV(rent by the hour), by the full model, changes sign
// within a millionth of `u`. The search's bracket ends 2^-21 wide and its answer
// is rounded to a millionth: the sign change lies within 7.4e-7 of it.
bool changes_sign_around(const Scenario& s, double u) {
  const auto diff = [&](double at_u) {
    Scenario t = s;
    t.workload.utilisation = std::clamp(at_u, 0.0, 1.0);
    const Comparison at = compare(t);
    return option(at, "buy").npv - option(at, "rent_hourly").npv;
  };
  return (diff(u - 1e-6) > 0) != (diff(u + 1e-6) > 0);
}
}  // namespace

TEST_CASE("property: the break-even utilisation is a sign change of NPV(buy) − NPV(hourly), hourly steps included",
          "[compare]") {
  int checked = 0;
  for (unsigned seed = 1; seed <= 80; ++seed) {
    const Scenario s = random_scenario(seed);  // the bill steps with its billing granularity
    const Comparison c = compare(s);
    if (!c.break_even_utilisation) continue;
    const double u = *c.break_even_utilisation;
    INFO("seed " << seed << " u* " << u);
    if (u == 0.0) continue;
    CHECK(changes_sign_around(s, u));
    ++checked;
  }
  CHECK(checked >= 10);
}

TEST_CASE("property: the break-even search prices months as the full model does, with VAT, financing and trends",
          "[compare]") {
  // The search builds lean cash flows (a whole month in service priced once,
  // equal rental months copied, no notes): each must equal the full model's, so
  // the answer is a sign change of the full NPVs whatever the inputs.
  int checked = 0;
  for (unsigned seed = 1; seed <= 60; ++seed) {
    Scenario s = random_scenario(seed);
    std::mt19937 rng(seed * 7919u);
    std::uniform_real_distribution<double> unit(0.0, 1.0);
    s.vat = VatInputs{0.13, 0.06, 0.06, false, unit(rng) < 0.5};
    s.own.financing = std::array{Financing::kCash, Financing::kLoan, Financing::kLease}[seed % 3];
    s.own.loan_rate = s.own.lease_rate = 0.08;
    s.own.loan_term_months = s.own.lease_term_months = 12 + static_cast<int>(unit(rng) * 36);  // past the horizon too
    s.own.down_payment = s.own.lease_upfront = 0.2;
    s.own.lease_buyout = 0.1;
    s.own.card_price_trend = unit(rng) < 0.5 ? 0.0 : -0.2 * unit(rng);
    s.rent_price_trend = unit(rng) < 0.5 ? 0.0 : -0.15 * unit(rng);
    s.own.cover = unit(rng) < 0.7 ? LeadTimeCover::kRent : LeadTimeCover::kDelayCost;
    s.own.delay_cost_per_month = cny("30000");
    s.own.lead_time = Months(unit(rng) * 4);
    const Comparison c = compare(s);
    if (!c.break_even_utilisation || *c.break_even_utilisation == 0.0) continue;
    const double u = *c.break_even_utilisation;
    INFO("seed " << seed << " u* " << u << " vat recoverable " << s.vat.recoverable);
    CHECK(changes_sign_around(s, u));
    ++checked;
  }
  CHECK(checked >= 10);
}

TEST_CASE("property: owning's cost per used GPU-hour falls as utilisation rises", "[compare]") {
  for (unsigned seed = 1; seed <= 30; ++seed) {
    Scenario s = random_scenario(seed);
    double previous = 1e300;
    for (double u = 0.1; u <= 1.0001; u += 0.1) {
      s.workload.utilisation = u;
      const Comparison c = compare(s);
      const auto per = option(c, "buy").cost_per_used_gpu_hour;
      REQUIRE(per);
      INFO("seed " << seed << " u " << u);
      CHECK(*per < previous);
      previous = *per;
    }
  }
}

TEST_CASE("property: doubling the horizon doubles a monthly rental's total", "[compare]") {
  for (unsigned seed = 1; seed <= 20; ++seed) {
    Scenario s = random_scenario(seed);
    const Money one = option(compare(s), "rent_monthly").total;
    s.horizon_months *= 2;
    const Money two = option(compare(s), "rent_monthly").total;
    CHECK(two == one.times(2));
  }
}

TEST_CASE("monthly cash flows add up to the totals and the breakdown", "[compare]") {
  const Comparison c = compare(random_scenario(7));
  for (const OptionResult& o : c.options) {
    Money sum = Money::zero(kCny);
    for (const Money& m : o.cash_flow) sum += m;
    CHECK(sum == o.total);
    Money parts = Money::zero(kCny);
    for (const CostLine& l : o.breakdown) parts += l.amount;
    CHECK(parts == o.total);
    for (const Money& m : o.cash_flow) CHECK(m == m.rounded());  // whole cents
  }
}

TEST_CASE("on-demand billing rounds each run up to the granularity and bills forgotten idle hours", "[compare]") {
  Scenario s = hand_case();
  s.monthly.reset();
  s.workload.utilisation = 0.5;   // 365 h a month
  s.workload.runs_per_month = 7;  // 52.142857 h a run
  const RentInputs r = single_gpu_at(cny("10"), Seconds(3600));
  s.hourly = HourlyInputs{r, Hours(0.5), false};
  const Comparison c = compare(s);
  // Billed per run: ceil(52.14) = 53 h of work; with 0.5 h idle, ceil(52.64) = 53 h as well:
  // 7 × 53 × 10 = 3,710 CNY a month, no idle line.
  CHECK(option(c, "rent_hourly").cash_flow[1] == cny("3710"));
  s.hourly->idle_per_run = Hours(1);  // ceil(53.14) = 54 h: one more billed hour per run
  const Comparison c2 = compare(s);
  CHECK(option(c2, "rent_hourly").cash_flow[1] == cny("3780"));
  s.hourly->auto_release = true;
  CHECK(option(compare(s), "rent_hourly").cash_flow[1] == cny("3710"));
}

TEST_CASE("runs rounded up to the billing step never bill more than a month's 730 h an instance",
          "[compare]") {
  // Before: 1,000 runs of 0.365 h each, billed by the started hour, billed 1,000 h in a 730-h month.
  Scenario s = hand_case();
  s.monthly.reset();
  s.workload.utilisation = 0.5;  // 365 h a month
  const RentInputs r = single_gpu_at(cny("10"), Seconds(3600));
  s.hourly = HourlyInputs{r, Hours(0), true};
  s.spot = SpotInputs{r, SpotParams{0.0, Seconds(300), Seconds(600), std::nullopt}};
  for (const int runs : {1, 7, 100, 365, 366, 500, 1000, 100000}) {
    s.workload.runs_per_month = runs;
    const Comparison c = compare(s);
    INFO("runs " << runs);
    // By hand: ⌈365/runs⌉ h a run × runs, at most 730; × 10 CNY.
    const double billed = std::min(std::ceil(365.0 / runs - 1e-9) * runs, 730.0);
    for (const char* key : {"rent_hourly", "spot"}) {
      CHECK(option(c, key).cash_flow[1].units() == Approx(billed * 10));
      const bool noted = std::any_of(option(c, key).notes.begin(), option(c, key).notes.end(),
                                     [](const std::string& n) { return n.find("kept the whole month") != n.npos; });
      CHECK(noted == (std::ceil(365.0 / runs - 1e-9) * runs > 730));
    }
  }
}

TEST_CASE("spot that cannot fit its stretched runs in a month counts only the work its hours deliver",
          "[compare][spot]") {
  // 50% utilisation: a month holds a stretch of 2. Past it the month is billed whole and
  // the work done is 730 h ÷ the stretch: GPU-h used and the price per used hour follow.
  Scenario s = hand_case();
  s.workload.utilisation = 0.5;
  s.workload.runs_per_month = 1;
  const RentInputs r = single_gpu_at(cny("20"));
  double last_used = 1e300;
  for (const double per_day : {0.0, 1.0, 10.0, 24.0, 48.0, 96.0, 400.0}) {
    s.spot = SpotInputs{r, SpotParams{per_day, Seconds(300), Seconds(600), std::nullopt}};
    const Comparison c = compare(s);
    const OptionResult& o = option(c, "spot");
    REQUIRE(c.spot_overhead);
    const double stretch = c.spot_overhead->wall_per_work;
    INFO("interruptions a day " << per_day << ", stretch " << stretch);
    const double done = std::min(1.0, 2.0 / stretch);
    const double gpus = s.workload.gpus, months = s.horizon_months;
    CHECK(o.used_gpu_hours == Approx(gpus * 730 * 0.5 * done * months));
    CHECK(o.available == (stretch <= 2.0));
    CHECK(o.used_gpu_hours <= last_used);  // more interruptions never deliver more work
    last_used = o.used_gpu_hours;
    REQUIRE(o.cost_per_used_gpu_hour);
    CHECK(*o.cost_per_used_gpu_hour == Approx(o.total.units() / o.used_gpu_hours));
  }
}

TEST_CASE("hybrid counts work, not hours: a slower local card takes less of it", "[compare]") {
  // Before: one local hour counted as one rented hour. 2 local cards at 0.3 of a rented card's
  // speed can do 2 × 730 × 0.3 = 438 rented-card hours a month; the work is 8 × 730 × 0.5 =
  // 2,920, so they take at most 15% of it, whatever share is asked.
  Scenario s = hand_case();
  s.workload.gpus = 8;
  s.own.cards = 8;
  s.workload.utilisation = 0.5;
  s.hourly = hourly_at(cny("10"), Hours(0), true);
  s.hybrid = HybridInputs{0.9, 0.3, 2, "slow", cny("0"), Watts(0), Watts(0)};
  const Comparison c = compare(s);
  const OptionResult& y = option(c, "hybrid");
  // Rented: 8 × 730 × 0.5 × (1 − 0.15) = 2,482 GPU-hours at 10 CNY.
  CHECK(y.cash_flow[1] == cny("24820"));
  REQUIRE_FALSE(y.notes.empty());
  CHECK(y.notes.back().find("only 15% of the work, not 90%") != std::string::npos);
  // At full speed the same cards take 50% (2 × 730 of 2,920 hours).
  s.hybrid->local_speed = 1.0;
  CHECK(option(compare(s), "hybrid").cash_flow[1] == cny("14600"));
}

TEST_CASE("a default's quality is its weakest part", "[compare]") {
  CHECK(default_quality("assumption: the forgotten instance") == "assumption");
  CHECK(default_quality("catalog ops-engineer-cn-2020 × 0.5 (assumption: half an engineer's time): src") ==
        "assumption");
  CHECK(default_quality("default: no cost of capital") == "default");
  CHECK(default_quality("catalog residual-h100-node-36mo: v2pseo_tco: https://… (undated; weak), as_of 2026-12-02") ==
        "low");
  CHECK(default_quality("cheapest hourly price: brian8808: …, as_of 2026-12-02, confidence medium") == "medium");
  // An undated source is weak whatever it rates itself.
  CHECK(default_quality("cheapest hourly price: brian8808: …, as_of unknown, confidence medium") == "low");
  CHECK(default_quality("catalog pue-cn-average-2021: modb: https://www.modb.pro/db/630401, as_of 2026-12-02") ==
        "sourced");
}

TEST_CASE("price trends: rentals move a year at a time from today's price, committed ones and overrides do not",
          "[compare]") {
  Scenario s = hand_case();  // monthly 100,000; 24 months
  s.hourly = hourly_at(cny("100"), Hours(0), true);
  s.rent_price_trend = -0.15;
  Comparison c = compare(s);
  const OptionResult& m = option(c, "rent_monthly");
  CHECK(m.cash_flow[1] == cny("100000"));
  CHECK(m.cash_flow[13] == cny("85000"));  // a year later, 15% less
  CHECK(m.cash_flow[7].units() == Approx(100000 * std::pow(0.85, 0.5)).margin(0.005));
  CHECK(option(c, "rent_hourly").cash_flow[13] == cny("62050"));  // 730 h × 100 × 0.85
  // Never more than today's prices when they fall: a trend down lowers every rental total.
  const Comparison flat = compare(hand_case());
  CHECK(m.total < option(flat, "rent_monthly").total);
  s.monthly->commitment_months = 12;
  CHECK(option(compare(s), "rent_monthly").cash_flow[13] == cny("100000"));
  // New cards 20% cheaper a year: the two-year-old server resells for 0.8² of its book value.
  Scenario b = hand_case();
  b.own.card_price_trend = -0.2;
  const Comparison cb = compare(b);
  CHECK(cb.own.resale == cny("149333.33"));  // 700,000 × (1 − 24/36) × 0.64
  b.own.resale_share = 0.3;
  CHECK(compare(b).own.resale == cny("210000"));  // an override is what it says
}
