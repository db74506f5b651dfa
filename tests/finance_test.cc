// Financing (loan, lease), committed-use prepayment and VAT in the compare
// model: closed forms, NPV neutrality and hostile cases.
#include <catch2/catch.hpp>
#include <cmath>
#include <random>

#include "gpuplan/compare.h"
#include "gpuplan/cost/financing.h"
#include "gpuplan/cost/vat.h"

using namespace gpuplan;

namespace {
Money cny(const char* s) { return Money::parse(s, kCny); }

// 700k of hardware, 10k a month to run, against 100k a month rented.
Scenario hand_case(int horizon = 24) {
  Scenario s;
  s.horizon_months = horizon;
  s.workload.gpus = 1;
  s.workload.utilisation = 1.0;
  s.workload.upload_bandwidth = BytesPerSecond(100e6);
  s.own.cards = 1;
  s.own.card_price = cny("700000");
  s.own.useful_life = Years(3);
  s.own.operations_per_month = cny("10000");
  RentInputs monthly;
  monthly.description = "hand";
  monthly.price = cny("100000");
  monthly.gpus_per_instance = 1;
  s.monthly = monthly;
  return s;
}

const OptionResult& option(const Comparison& c, const std::string& key) {
  for (const OptionResult& o : c.options)
    if (o.key == key) return o;
  FAIL("no option " << key);
  return c.options.front();
}

Money item_total(const OptionResult& o, const std::string& item) {
  for (const CostLine& l : o.breakdown)
    if (l.item == item) return l.amount;
  return Money::zero(kCny);
}

Scenario with_loan(Scenario s, double rate, int months, double down = 0.0) {
  s.own.financing = Financing::kLoan;
  s.own.loan_rate = rate;
  s.own.loan_term_months = months;
  s.own.down_payment = down;
  return s;
}
}  // namespace

TEST_CASE("an annuity's payment matches the published closed form", "[finance]") {
  // 1,000,000 at 6% a year over 36 months: A = P·i/(1 − (1+i)^−n), i = 0.005 → 30,421.94
  // (any amortisation table; 1.005^36 = 1.196681).
  CHECK(level_payment(cny("1000000"), cny("0"), 0.06, 36) == cny("30421.94"));
  // No interest: the principal in equal parts.
  CHECK(level_payment(cny("1200"), cny("0"), 0.0, 12) == cny("100"));
  const Schedule s = amortise(cny("1000000"), FinancingTerms{0.0, 0.06, 36, 0.0});
  CHECK(s.interest[1] == cny("5000"));  // the first month's interest: the whole amount × 0.5%
  Money principal = Money::zero(kCny), interest = Money::zero(kCny);
  for (int m = 1; m <= 36; ++m) principal += s.principal[static_cast<std::size_t>(m)];
  for (const Money& i : s.interest) interest += i;
  CHECK(principal == cny("1000000"));
  CHECK(s.balance.back() == cny("0"));
  // Interest is what the 36 payments add over the principal (to a cent of rounding a month).
  CHECK(std::abs(interest.units() - (36 * 30421.94 - 1e6)) < 0.36);
}

TEST_CASE("a lease's buyout is paid beside the last payment and the upfront at signing", "[finance]") {
  const Schedule s = amortise(cny("1000000"), FinancingTerms{0.1, 0.06, 36, 0.05});
  CHECK(s.upfront == cny("100000"));
  CHECK(s.balloon == cny("50000"));
  Money principal = Money::zero(kCny);
  for (const Money& p : s.principal) principal += p;
  CHECK(principal + s.balloon + s.upfront == cny("1000000"));
  CHECK(s.balance.back() == cny("0"));
  // The balance before the buyout is the balloon: payments amortise down to it.
  CHECK(std::abs((s.balance[35] - s.principal[36]).units() - 50000) < 0.01);
  CHECK_THROWS_AS(amortise(cny("1000"), FinancingTerms{0.7, 0.05, 12, 0.4}), std::invalid_argument);
  CHECK_THROWS_AS(amortise(cny("1000"), FinancingTerms{0.0, 0.05, 0, 0.0}), std::invalid_argument);
}

TEST_CASE("financing at the cost of capital changes no NPV, inside the term or past it", "[finance]") {
  // A loan whose monthly rate equals the discount rate's is worth exactly what it lends:
  // NPV(loan payments + payoff) = principal. So owning by loan has cash's NPV (to rounding).
  for (const int horizon : {12, 24, 48}) {
    Scenario cash = hand_case(horizon);
    cash.discount_rate = 0.08;
    const double nominal = 12 * monthly_rate(0.08);
    const Comparison a = compare(cash);
    for (const Financing how : {Financing::kLoan, Financing::kLease}) {
      Scenario f = with_loan(cash, nominal, 36, 0.2);
      if (how == Financing::kLease) {
        f.own.financing = Financing::kLease;
        f.own.lease_rate = nominal;
        f.own.lease_term_months = 36;
        f.own.lease_upfront = 0.1;
        f.own.lease_buyout = 0.05;
      }
      const Comparison b = compare(f);
      INFO("horizon " << horizon << (how == Financing::kLease ? " lease" : " loan"));
      CHECK(option(b, "buy").npv == Approx(option(a, "buy").npv).margin(0.01 * 40));
      CHECK(option(b, "buy").total > option(a, "buy").total);  // interest is paid all the same
    }
  }
}

TEST_CASE("a loan at 0% costs what cash costs and moves neither break-even nor payback", "[finance]") {
  // What is still owed counts as paid: otherwise a loan would look paid back on its first day.
  for (const int horizon : {12, 24, 48}) {
    const Comparison a = compare(hand_case(horizon));
    const Comparison b = compare(with_loan(hand_case(horizon), 0.0, 36));
    INFO("horizon " << horizon);
    CHECK(option(b, "buy").total == option(a, "buy").total);
    CHECK(option(b, "rent_monthly").payback_month == option(a, "rent_monthly").payback_month);
    CHECK(option(b, "rent_monthly").break_even_month == option(a, "rent_monthly").break_even_month);
    CHECK(item_total(option(b, "buy"), "loan interest") == cny("0"));
  }
  // Inside the term, the loan is paid off at the horizon, when the hardware is sold.
  const Comparison c = compare(with_loan(hand_case(12), 0.05, 36));
  CHECK(item_total(option(c, "buy"), "loan payoff").micros() > 0);
  CHECK(c.own.owed.back() == cny("0"));
  CHECK(c.own.owed[1] > cny("0"));
}

TEST_CASE("property: a higher loan or lease rate never lowers owning's total", "[finance]") {
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  for (int k = 0; k < 100; ++k) {
    const int horizon = 1 + static_cast<int>(unit(rng) * 60);
    const int term = 1 + static_cast<int>(unit(rng) * 60);
    const double r = unit(rng) * 0.2, down = unit(rng) * 0.5;
    const double lo = compare(with_loan(hand_case(horizon), r, term, down)).options.front().total.units();
    const double hi = compare(with_loan(hand_case(horizon), r + 0.01, term, down)).options.front().total.units();
    INFO("horizon " << horizon << " term " << term << " rate " << r);
    CHECK(hi >= lo);
  }
}

TEST_CASE("VAT is reported apart when recoverable and is a line of every total when not", "[finance][vat]") {
  Scenario s = hand_case();
  s.vat = VatInputs{0.13, 0.06, 0.06, false, true};
  s.vat.operations_in_house = false;  // a contracted service
  const Comparison a = compare(s);
  // Hardware 700,000 × 13% + operations 240,000 × 6% = 91,000 + 14,400; renting 2,400,000 × 6%.
  CHECK(option(a, "buy").vat == cny("105400"));
  CHECK(option(a, "rent_monthly").vat == cny("144000"));
  CHECK(option(a, "buy").total == compare(hand_case()).options.front().total);  // recoverable: not in the total
  s.vat.recoverable = false;
  const Comparison b = compare(s);
  CHECK(option(b, "buy").total == option(a, "buy").total + cny("105400"));
  CHECK(item_total(option(b, "buy"), std::string(kVatCostItem)) == cny("105400"));
  CHECK(option(b, "buy").breakdown.back().item == kVatCostItem);
  CHECK(option(b, "rent_monthly").total == cny("2544000"));
  // Prices that include VAT are taken less it: the same invoices, so the same totals to a cent a line.
  Scenario incl = s;
  incl.vat.prices_include_vat = true;
  incl.own.card_price = cny("791000");
  incl.own.operations_per_month = cny("10600");
  incl.monthly->price = cny("106000");
  const Comparison c = compare(incl);
  CHECK(std::abs(option(c, "buy").total.units() - option(b, "buy").total.units()) < 0.01 * 50);
  CHECK(std::abs(option(c, "rent_monthly").total.units() - 2544000) < 0.01 * 50);
}

TEST_CASE("in-house operations staff carry no VAT: not in VAT, not taken out of a price given with VAT",
          "[finance][vat]") {
  Scenario s = hand_case();
  s.vat = VatInputs{0.13, 0.06, 0.06, false, false};
  REQUIRE(s.vat.operations_in_house);  // the default: buy.operations is a salary
  const Comparison staff = compare(s);
  // Hardware 700,000 × 13% only; the salaries (240,000) carry none.
  CHECK(option(staff, "buy").vat == cny("91000"));
  CHECK(item_total(option(staff, "buy"), std::string(kOperationsItem)) == cny("240000"));
  s.vat.operations_in_house = false;
  const Comparison contracted = compare(s);
  CHECK(option(contracted, "buy").vat == cny("105400"));
  CHECK(item_total(option(contracted, "buy"), std::string(kContractedOperationsItem)) == cny("240000"));
  CHECK(option(contracted, "buy").total == option(staff, "buy").total + cny("14400"));
  // Prices given with VAT: a salary is paid as given, a contract's price holds 6%.
  Scenario incl = s;
  incl.vat.prices_include_vat = true;
  incl.vat.operations_in_house = true;
  const Comparison as_given = compare(incl);
  CHECK(item_total(option(as_given, "buy"), std::string(kOperationsItem)) == cny("240000"));
  incl.vat.operations_in_house = false;
  CHECK(std::abs(item_total(option(compare(incl), "buy"), std::string(kContractedOperationsItem)).units() -
                 240000 / 1.06) < 0.01 * 24);
  // Nothing else moves: renting is the same either way.
  CHECK(option(staff, "rent_monthly").total == option(contracted, "rent_monthly").total);
}

TEST_CASE("a lease carries the goods rate on every payment, a loan's interest none", "[finance][vat]") {
  Scenario s = hand_case(36);
  s.vat = VatInputs{0.13, 0.06, 0.06, false, true};
  Scenario loan = with_loan(s, 0.05, 36, 0.3);
  const Comparison lc = compare(loan);
  const OptionResult& l = lc.options.front();
  CHECK(l.vat_flow[0] == cny("91000"));  // the whole hardware is invoiced at purchase
  Scenario lease = s;
  lease.own.financing = Financing::kLease;
  lease.own.lease_rate = 0.06;
  lease.own.lease_term_months = 36;
  lease.own.lease_upfront = 0.1;
  lease.own.lease_buyout = 0.0;
  const Comparison c = compare(lease);
  const OptionResult& b = c.options.front();
  CHECK(b.vat_flow[0] == cny("9100"));  // only the upfront at signing
  const double paid = item_total(b, "lease upfront").units() + item_total(b, "lease principal").units() +
                      item_total(b, "lease interest").units();
  CHECK(std::abs(b.vat.units() - paid * 0.13) < 0.01 * 40);  // operations are in-house staff: no VAT
  CHECK_THROWS_AS(vat_class("a line no one taxed"), std::logic_error);
}

TEST_CASE("committed-use paid upfront: the same total, earlier, so a dearer NPV at a positive rate", "[finance]") {
  Scenario s = hand_case(12);
  s.monthly->commitment_months = 12;
  s.discount_rate = 0.1;
  const OptionResult monthly = option(compare(s), "rent_monthly");
  s.monthly->upfront_share = 1.0;
  const OptionResult upfront = option(compare(s), "rent_monthly");
  CHECK(upfront.cash_flow[0] == cny("1200000"));
  CHECK(upfront.cash_flow[1] == cny("0"));
  CHECK(upfront.total == monthly.total);
  CHECK(upfront.npv > monthly.npv);
  // A term longer than the horizon: the upfront covers it all, nothing is owed after.
  Scenario longer = hand_case(6);
  longer.monthly->commitment_months = 12;
  longer.monthly->upfront_share = 0.5;
  const OptionResult half = option(compare(longer), "rent_monthly");
  CHECK(half.total == cny("1200000"));
  CHECK(item_total(half, "commitment paid upfront") == cny("600000"));
  longer.monthly->commitment_months = 0;
  CHECK_THROWS_AS(compare(longer), std::invalid_argument);
}
