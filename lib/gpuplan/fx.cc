// CurrencyConverter (declared in context.h): the catalog's dated FX rates,
// remembered as they are used so every report can name them. In the loader's
// core (lib/CMakeLists.txt) because field parsing converts money.
#include <fmt/format.h>

#include "gpuplan/context.h"
#include "gpuplan/error.h"
#include "gpuplan/i18n.h"

namespace gpuplan {

namespace {

std::string no_rate(Currency from, Currency to) {
  return trf("the catalog has no exchange rate between {} and {} (add one under fx_rates)", from.code(), to.code());
}

}  // namespace

void require_conversion(const Catalog& catalog, Currency from, Currency to) {
  if (from != to && !find_conversion(catalog, from, to)) throw std::invalid_argument(no_rate(from, to));
}

Conversion CurrencyConverter::lookup(Currency from) const {
  for (const auto& [c, conv] : used_)
    if (c == from) return conv;
  const std::optional<Conversion> conv = find_conversion(*catalog_, from, display_);
  if (!conv) throw InputError(SourceLocation{"--currency"}, "", no_rate(from, display_));
  if (conv->via) used_.emplace_back(from, *conv);
  return *conv;
}

Money CurrencyConverter::convert(Money m) const {
  if (m.currency() == display_) return m;
  return m.converted(display_, lookup(m.currency()).rate);
}

double CurrencyConverter::rate(Currency from) const { return from == display_ ? 1.0 : lookup(from).rate; }

std::vector<std::string> CurrencyConverter::notes() const {
  std::vector<std::string> out;
  for (const auto& [from, conv] : used_) {
    const FxRate& r = *conv.via;
    const std::string rate = conv.inverse ? trf("{:.6g} {} (inverse of {} {} per {})", conv.rate, display_.code(),
                                                r.rate_text, r.to.code(), r.from.code())
                                          : fmt::format("{} {}", r.rate_text, display_.code());
    out.push_back(trf("Converted at 1 {} = {}: fx rate {}, as_of {}, source: {}", from.code(), rate, r.id,
                      format_date(r.provenance.as_of), r.provenance.source));
  }
  return out;
}

Json CurrencyConverter::used_json() const {
  Json arr = Json::array();
  for (const auto& [from, conv] : used_) {
    Json o = Json::object();
    o["from"] = std::string(from.code());
    o["to"] = std::string(display_.code());
    o["rate"] = conv.rate;
    o["fx_id"] = conv.via->id;
    o["inverse"] = conv.inverse;
    o["as_of"] = format_date(conv.via->provenance.as_of);
    o["source"] = std::string(conv.via->provenance.source);
    arr.push_back(std::move(o));
  }
  return arr;
}

}  // namespace gpuplan
