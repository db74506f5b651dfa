// Value-added tax on what each option pays. Every amount in the compare model
// excludes VAT; VAT is worked out beside it per month, by the class of each
// item, and reported apart: it enters an option's total only where it is a
// cost (not recoverable), as its own line.
#pragma once

#include <string_view>

#include "gpuplan/i18n.h"

namespace gpuplan {

/// What an item is, for VAT. China's rates (VAT Law of the PRC, in force
/// 2026-01-01, keeping the rates of Caishui [2016] No. 36 and MOF/STA/GACC
/// Announcement 2019 No. 39): goods, electricity and the leasing of
/// tangible movables (finance leases too) 13%; information-technology and
/// value-added telecom services (cloud rental, IDC colocation) 6%.
enum class VatClass {
  kNone,      ///< delay cost, resale credit, loan principal and interest (no VAT charged to the borrower), in-house staff
  kGoods,     ///< hardware, facility, electricity, lease payments
  kRent,      ///< rented compute and its add-ons, the bridge rental
  kServices,  ///< colocation, contracted operations
};

struct VatInputs {
  double goods = 0.0;
  double rent = 0.0;
  double services = 0.0;
  /// Prices as given include VAT: the model takes them less VAT first.
  bool prices_include_vat = false;
  /// A general VAT taxpayer deducts input VAT: paid and recovered, not a cost.
  bool recoverable = true;
  /// Operations is the team's own staff, whose salaries carry no VAT; false:
  /// a contracted service, at the services rate.
  bool operations_in_house = true;

  double rate(VatClass c) const;
};

/// The class of a cash-flow item of the compare model by its name ("power",
/// "bridge rental"). Throws std::logic_error for an item it does not know, so
/// a new item cannot go untaxed silently.
VatClass vat_class(std::string_view item);

/// The cash-flow item of operations: in-house staff (no VAT) or a contracted service.
inline constexpr std::string_view kOperationsItem = tr_noop("operations");
inline constexpr std::string_view kContractedOperationsItem = tr_noop("operations (contracted)");

/// The item line VAT takes when it is not recoverable.
inline constexpr std::string_view kVatCostItem = tr_noop("VAT (not recoverable)");

}  // namespace gpuplan
