#include "gpuplan/cost/vat.h"

#include <fmt/format.h>
#include <stdexcept>
#include <utility>

namespace gpuplan {

double VatInputs::rate(VatClass c) const {
  switch (c) {
    case VatClass::kGoods:
      return goods;
    case VatClass::kRent:
      return rent;
    case VatClass::kServices:
      return services;
    case VatClass::kNone:
      break;
  }
  return 0.0;
}

VatClass vat_class(std::string_view item) {
  using enum VatClass;
  // A loan's principal and interest carry no VAT for the borrower (the bank's
  // VAT on interest is inside the rate and not deductible); a finance lease is
  // the leasing of tangible movables: every payment carries the goods rate.
  static constexpr std::pair<std::string_view, VatClass> kItems[] = {
      {"hardware", kGoods},
      {"facility", kGoods},
      {"local hardware", kGoods},
      {"power", kGoods},
      {"local power", kGoods},
      {"lease upfront", kGoods},
      {"lease principal", kGoods},
      {"lease interest", kGoods},
      {"lease buyout", kGoods},
      {"lease payoff", kGoods},
      {"compute", kRent},
      {"idle (left running)", kRent},
      {"interruption overhead", kRent},
      {"storage", kRent},
      {"egress", kRent},
      {"support", kRent},
      {"commitment beyond horizon", kRent},
      {"commitment paid upfront", kRent},
      {"bridge rental", kRent},
      {"serving (rented)", kRent},
      {kOperationsItem, kNone},  // salaries are not a taxable supply
      {kContractedOperationsItem, kServices},
      {"colocation", kServices},
      {"delay cost", kNone},
      {"resale value at horizon", kNone},
      {"loan drawn", kNone},
      {"loan principal", kNone},
      {"loan interest", kNone},
      {"loan payoff", kNone},
      {kVatCostItem, kNone},
  };
  for (const auto& [name, c] : kItems)
    if (name == item) return c;
  throw std::logic_error(fmt::format("vat_class: no VAT class for item '{}'", item));
}

}  // namespace gpuplan
