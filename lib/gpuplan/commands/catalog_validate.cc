#include "gpuplan/i18n.h"
#include "gpuplan/commands/catalog_validate.h"

#include <fmt/format.h>

namespace gpuplan {

ValidationResult validate_catalogs(const std::vector<std::string>& files, bool with_builtin, Date today) {
  ValidationResult out;
  // The status is data ("ok", "invalid" in CSV); a person reads it in their language.
  static constexpr const char* kStatus = "catalog status: ";
  [[maybe_unused]] static constexpr const char* kStatusWords[] = {tr_noop("catalog status: ok"),
                                                                  tr_noop("catalog status: invalid")};
  Catalog merged = with_builtin ? builtin_catalog() : Catalog{};
  Table t;
  t.name = "files";
  t.columns = {{"file", tr_noop("file")},
               {.key = "status", .label = tr_noop("status"), .words = true, .context = kStatus},
               {"problems", tr_noop("problems")},
               {"gpus", tr_noop("gpus")},
               {"providers", tr_noop("providers")},
               {"offers", tr_noop("offers")},
               {"purchases", tr_noop("purchases")},
               {"operating", tr_noop("operating")},
               {"fx_rates", tr_noop("fx rates")},
               {"apis", tr_noop("apis")}};
  for (const std::string& file : files) {
    try {
      const Catalog c = load_catalog_file(file, &merged);
      if (auto future = future_dates(c, today); !future.empty()) throw InputErrors(std::move(future));
      const auto n = [](const auto& v) { return static_cast<std::int64_t>(v.size()); };
      t.add_row({file, std::string("ok"), std::int64_t{0}, n(c.gpus), n(c.providers), n(c.offers), n(c.purchases),
                 n(c.operating), n(c.fx_rates), n(c.apis)});
      merged = merge(std::move(merged), c);
    } catch (const InputErrors& e) {
      out.problems.insert(out.problems.end(), e.problems().begin(), e.problems().end());
      t.add_row({file, std::string("invalid"), static_cast<std::int64_t>(e.problems().size()), Cell{}, Cell{}, Cell{},
                 Cell{}, Cell{}, Cell{}, Cell{}});
    } catch (const InputError& e) {
      out.problems.push_back(e);
      t.add_row(
          {file, std::string("invalid"), std::int64_t{1}, Cell{}, Cell{}, Cell{}, Cell{}, Cell{}, Cell{}, Cell{}});
    }
  }
  out.report.command = "catalog validate";
  out.report.title = out.problems.empty() ? trf("{} catalog file(s) valid", files.size())
                                          : trf("{} problem(s) found", out.problems.size());
  Json in = Json::object();
  Json fs = Json::array();
  for (const auto& f : files) fs.push_back(f);
  in["files"] = std::move(fs);
  in["builtin"] = with_builtin;
  out.report.inputs = std::move(in);
  out.report.tables.push_back(std::move(t));
  Json probs = Json::array();
  for (const InputError& p : out.problems) {
    Json o = Json::object();
    o["file"] = p.where().file;
    o["line"] = p.where().line;
    o["column"] = p.where().column;
    o["field"] = p.field();
    o["message"] = p.message();
    probs.push_back(std::move(o));
  }
  out.report.extra = Json::object();
  out.report.extra["problems"] = std::move(probs);
  return out;
}

}  // namespace gpuplan
