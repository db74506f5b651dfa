#include "gpuplan/cost/financing.h"
#include "gpuplan/i18n.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace gpuplan {

Money level_payment(Money financed, Money balloon, double annual_rate, int months) {
  const double i = annual_rate / 12.0;
  const double n = months;
  if (i == 0.0) return (financed - balloon).scaled(1.0 / n).rounded();
  const double vn = std::pow(1.0 + i, -n);
  return (financed - balloon.scaled(vn)).scaled(i / (1.0 - vn)).rounded();
}

Schedule amortise(Money amount, const FinancingTerms& t) {
  if (t.months < 1) throw std::invalid_argument(std::string(tr("a loan or lease term is at least one month")));
  if (!(t.upfront_share >= 0 && t.balloon_share >= 0 && t.upfront_share + t.balloon_share <= 1))
    throw std::invalid_argument(std::string(tr("the upfront and buyout shares must add up to at most 100%")));
  const Currency c = amount.currency();
  const Money whole = amount.rounded();
  Schedule s{.upfront = whole.scaled(t.upfront_share).rounded(),
             .payment = Money::zero(c),
             .balloon = whole.scaled(t.balloon_share).rounded()};
  const Money financed = whole - s.upfront;
  s.payment = level_payment(financed, s.balloon, t.annual_rate, t.months);
  s.interest.assign(1, Money::zero(c));
  s.principal.assign(1, Money::zero(c));
  s.balance.assign(1, financed);
  Money owed = financed;
  for (int m = 1; m <= t.months; ++m) {
    const Money interest = owed.scaled(t.annual_rate / 12.0).rounded();
    // The last payment clears what is left beside the balloon; none repays more than is owed.
    Money principal = m == t.months ? owed - s.balloon : s.payment - interest;
    principal = std::clamp(principal, Money::zero(c), owed);
    owed -= principal;
    if (m == t.months) owed = Money::zero(c);  // the balloon is paid too
    s.interest.push_back(interest);
    s.principal.push_back(principal);
    s.balance.push_back(owed);
  }
  return s;
}

}  // namespace gpuplan
