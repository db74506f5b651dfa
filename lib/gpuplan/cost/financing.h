// Paying for hardware over time: a loan or a finance lease as an amortising
// schedule (equal monthly payments of interest and principal, an optional
// final balloon such as a lease buyout). The compare model lays the schedule
// into owning's cash flow; the workbook rebuilds it with the same rounding.
#pragma once

#include <vector>

#include "gpuplan/money.h"

namespace gpuplan {

enum class Financing { kCash, kLoan, kLease };

/// The terms of a loan or lease on `amount` (the hardware's price).
struct FinancingTerms {
  double upfront_share = 0.0;  ///< paid at signing (down payment, lease first payment)
  double annual_rate = 0.0;    ///< nominal yearly rate, compounded monthly (rate / 12 a month)
  int months = 0;              ///< term: payments in months 1..months
  double balloon_share = 0.0;  ///< paid with the last payment (a lease's buyout price)
};

/// Month by month; every amount rounded to the minor unit.
struct Schedule {
  Money upfront = Money::zero(kCny);  ///< month 0
  Money payment = Money::zero(kCny);  ///< the level monthly payment (interest + principal)
  std::vector<Money> interest{};      ///< months 0..term (month 0: zero)
  std::vector<Money> principal{};
  std::vector<Money> balance{};       ///< owed at each month end, after that month's payment
  Money balloon = Money::zero(kCny);  ///< in month `term`, on top of its payment
};

/// The level payment of an annuity: A = (P − B·v^n)·i / (1 − v^n) with
/// v = 1/(1 + i), i = annual/12; (P − B)/n at a zero rate. P: financed,
/// B: balloon, n: months. Standard annuity arithmetic (e.g. Brealey, Myers &
/// Allen, Principles of Corporate Finance, ch. 2); rounded to the minor unit.
Money level_payment(Money financed, Money balloon, double annual_rate, int months);

/// The schedule of `amount` under `t`: interest each month is the balance ×
/// rate/12 (rounded), principal the payment less it; the last month clears
/// what is left, less the balloon paid beside it. Throws std::invalid_argument
/// for a term below one month, shares outside 0..1 or their sum above 1.
Schedule amortise(Money amount, const FinancingTerms& t);

}  // namespace gpuplan
