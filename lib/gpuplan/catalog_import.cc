#include "gpuplan/catalog_import.h"
#include "gpuplan/i18n.h"

#include <fmt/format.h>
#include <sys/stat.h>

#include <algorithm>
#include <charconv>
#include <cstdio>
#include <cmath>
#include <filesystem>
#include <map>
#include <set>

#include "gpuplan/csv.h"
#include "gpuplan/io.h"
#include "gpuplan/json.h"
#include "gpuplan/yaml_reader.h"

namespace gpuplan {

namespace {

// An id from free text: letters, digits, '.', '_' and '-' kept, every run of
// anything else (spaces, "/", Chinese) one '-'.
std::string to_id(std::string_view text) {
  std::string out;
  for (const char c : text) {
    const bool ok = std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '.' || c == '_' || c == '-';
    if (ok) out += c;
    else if (!out.empty() && out.back() != '-') out += '-';
  }
  while (!out.empty() && out.back() == '-') out.pop_back();
  return out;
}

// Ids made unique: two instances whose names differ only in what to_id drops
// ("按量" and "包月") must stay two offers.
class Ids {
 public:
  std::string unique(const std::string& base) {
    std::string id = base;
    for (int k = 2; !taken_.insert(id).second; ++k) id = fmt::format("{}-{}", base, k);
    return id;
  }

 private:
  std::set<std::string> taken_{};
};

// Problems collected over a whole file, thrown together (every bad cell, not the first).
struct Problems {
  std::vector<InputError> list{};
  void add(const std::string& file, CsvTable::Place at, const std::string& column, const std::string& message) {
    list.emplace_back(SourceLocation{file, at.line, at.column}, column, message);
  }
  void throw_if_any() const {
    if (!list.empty()) throw InputErrors(list);
  }
};

// ---- which catalog GPU a name means ----

// Whether a card of `gpu` can be the one SkyPilot describes (10%: GiB against a marketed GB).
std::string memory_mismatch(const Gpu& gpu, std::optional<double> mib) {
  if (!mib) return "";
  const double bytes = *mib * 1024 * 1024;
  if (std::abs(bytes - gpu.memory.value()) <= 0.1 * gpu.memory.value()) return "";
  return fmt::format("the file gives {:g} GiB a card; {} has {:.0f} GB: a different card", *mib / 1024, gpu.id,
                     gpu.memory.value() / 1e9);
}

struct Resolution {
  std::string gpu{};                    ///< empty: not resolved
  std::string reason{};                 ///< why not
  const GpuMapping* mapping = nullptr;  ///< the user's mapping that decided it
};

bool mapping_applies(const GpuMapping& m, std::string_view provider, std::string_view name, std::string_view instance) {
  if (!m.provider.empty() && !id_equals(m.provider, provider)) return false;
  if (!m.instance.empty()) return m.instance == instance;
  return id_equals(m.name, name);
}

// The most specific mapping first: an instance type before a name, a provider's before any provider's.
const GpuMapping* find_mapping(const std::vector<GpuMapping>& map, std::string_view provider, std::string_view name,
                               std::string_view instance) {
  const GpuMapping* best = nullptr;
  int best_rank = -1;
  for (const GpuMapping& m : map) {
    if (!mapping_applies(m, provider, name, instance)) continue;
    const int rank = (m.instance.empty() ? 0 : 2) + (m.provider.empty() ? 0 : 1);
    if (rank > best_rank) best = &m, best_rank = rank;
  }
  return best;
}

// The memory SkyPilot's GpuInfo states, in the words of a message.
std::string gib(double mib) { return fmt::format("{:g} GiB", mib / 1024); }

Resolution resolve_gpu(const Catalog& catalog, const std::vector<GpuMapping>& user, std::string_view provider,
                       std::string_view name, std::string_view instance, std::optional<double> mib) {
  if (const GpuMapping* m = find_mapping(user, provider, name, instance)) return {m->gpu, "", m};
  if (const GpuMapping* m = find_mapping(builtin_skypilot_mappings(), provider, name, instance);
      m && catalog.find_gpu(m->gpu))
    return {m->gpu, "", nullptr};
  // An exact id is taken only when no variant shares it ("H100" beside "H100-PCIe" could be either).
  const Gpu* exact = catalog.find_gpu(name);
  std::vector<std::string> candidates;
  if (exact) candidates.push_back(exact->id);
  for (const Gpu& g : catalog.gpus)
    if (g.id.size() > name.size() && id_equals(std::string_view(g.id).substr(0, name.size()), name) &&
        g.id[name.size()] == '-')
      candidates.push_back(g.id);
  if (exact && candidates.size() == 1) return {exact->id, "", nullptr};
  if (candidates.empty()) return {"", "no catalog GPU of that name: map it with --map, or add the GPU to a catalog"};
  // Cards whose memory cannot be the one the file states are no candidates at all.
  std::vector<std::string> fitting;
  for (const std::string& id : candidates)
    if (memory_mismatch(*catalog.find_gpu(id), mib).empty()) fitting.push_back(id);
  if (fitting.empty())
    return {"", fmt::format("the file gives {} a card, and no {} of the catalog has that ({}): add the GPU to a "
                            "catalog, or map it with --map",
                            gib(*mib), name, fmt::join(candidates, ", "))};
  return {"", fmt::format("could be {}: map it with --map", fmt::join(fitting, " or "))};
}

// "{'Gpus': [{... 'MemoryInfo': {'SizeInMiB': 40960}}], ...}": the card's memory, when stated.
std::optional<double> gpu_info_mib(std::string_view info) {
  const auto at = info.find("SizeInMiB");
  if (at == std::string_view::npos) return std::nullopt;
  std::size_t i = at + 9;
  while (i < info.size() && !std::isdigit(static_cast<unsigned char>(info[i]))) ++i;
  double mib = 0;
  const auto [end, ec] = std::from_chars(info.data() + i, info.data() + info.size(), mib);
  if (ec != std::errc() || end == info.data() + i || !(mib > 0)) return std::nullopt;
  return mib;
}

// ---- the date a file's prices apply to ----

std::optional<Date> file_date(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return std::nullopt;
  return std::chrono::floor<std::chrono::days>(std::chrono::system_clock::from_time_t(st.st_mtime));
}

// The provider of a SkyPilot file: --provider, else its directory's name (catalogs/v6/<cloud>/vms.csv).
std::string skypilot_provider(const std::string& file, const ImportOptions& o, const Catalog& catalog) {
  const auto known = [&] {
    std::vector<std::string> ids;
    for (const Provider& p : catalog.providers) ids.push_back(p.id);
    return fmt::format("{}", fmt::join(ids, ", "));
  };
  if (!o.provider.empty()) {
    const Provider* p = catalog.find_provider(o.provider);
    if (!p)
      throw InputError({}, "--provider",
                       trf("'{}' is not a provider of the catalog (known: {}); add a provider record with "
                           "--catalog first",
                           o.provider, known()));
    return p->id;
  }
  const std::string dir = std::filesystem::path(file).parent_path().filename().string();
  if (const Provider* p = catalog.find_provider(dir)) return p->id;
  throw InputError(SourceLocation{file}, "--provider",
                   trf("cannot tell which provider this file prices (its directory '{}' is no provider id): "
                       "give --provider (known: {})",
                       dir, known()));
}

// ---- SkyPilot vms.csv ----

struct SkyRow {
  std::string instance, name, region, zone, price, spot;
  int gpus = 0;
  std::optional<double> mib;
  SourceLocation where;
};

// A decimal price cell: "" (none), or text Money accepts; problems recorded.
std::string price_cell(const CsvTable& t, std::size_t r, std::string_view column, const std::string& text,
                       Problems& problems) {
  if (text.empty()) return "";
  try {
    const Money m = Money::parse(text, kUsd);
    if (m.micros() <= 0) throw std::invalid_argument(std::string(tr("must be a positive amount")));
    return to_plain_string(m, -1);
  } catch (const std::invalid_argument& e) {
    problems.add(t.file(), t.place(r, column), std::string(column), e.what());
    return "";
  }
}

// GPUs an instance has: "8.0" is 8; a fraction of a card (a shared GPU) is not an instance gpuplan can plan.
std::optional<int> gpu_count(const std::string& text) {
  double n = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), n);
  if (ec != std::errc() || end != text.data() + text.size() || !(n >= 1) || n > 1024 || n != std::floor(n))
    return std::nullopt;
  return static_cast<int>(n);
}

// Rows read but left out, by reason, for the notes.
struct RowCounts {
  std::int64_t cpu = 0, fraction = 0, unpriced = 0;
};

std::vector<SkyRow> read_skypilot_rows(const CsvTable& t, Problems& problems, RowCounts& left) {
  for (const char* c : {"InstanceType", "AcceleratorName", "AcceleratorCount", "Price", "Region"})
    if (!t.has(c)) t.text(c);  // throws, naming the columns there are
  const auto col = [&](const char* c) { return t.has(c) ? t.text(c) : std::vector<std::string>(t.rows()); };
  const auto instance = col("InstanceType"), name = col("AcceleratorName"), count = col("AcceleratorCount"),
             price = col("Price"), spot = col("SpotPrice"), region = col("Region"), zone = col("AvailabilityZone"),
             info = col("GpuInfo");
  std::vector<SkyRow> rows;
  for (std::size_t r = 0; r < t.rows(); ++r) {
    if (name[r].empty()) {
      ++left.cpu;  // a CPU instance
      continue;
    }
    SkyRow row{instance[r],
               name[r],
               region[r],
               zone[r],
               "",
               "",
               0,
               gpu_info_mib(info[r]),
               SourceLocation{t.file(), t.line(r), 1}};
    const auto n = gpu_count(count[r]);
    double share = 0;
    if (!n && std::from_chars(count[r].data(), count[r].data() + count[r].size(), share).ec == std::errc() &&
        share > 0 && share < 1) {
      ++left.fraction;  // a share of a card (AWS g6f): no instance a job can be planned on
      continue;
    }
    if (!n) {
      problems.add(t.file(), t.place(r, "AcceleratorCount"), "AcceleratorCount",
                   fmt::format("'{}' is not a whole number of GPUs from 1 to 1024", count[r]));
      continue;
    }
    row.gpus = *n;
    if (row.instance.empty() || row.region.empty()) {
      problems.add(t.file(), t.place(r, row.instance.empty() ? "InstanceType" : "Region"),
                   row.instance.empty() ? "InstanceType" : "Region", "is empty");
      continue;
    }
    row.price = price_cell(t, r, "Price", price[r], problems);
    if (t.has("SpotPrice")) row.spot = price_cell(t, r, "SpotPrice", spot[r], problems);
    if (row.price.empty() && row.spot.empty()) {
      ++left.unpriced;  // listed without a price: nothing to import
      continue;
    }
    rows.push_back(std::move(row));
  }
  return rows;
}

struct Skips {
  std::map<std::pair<std::string, std::string>, SkippedName> by_name{};
  void add(const std::string& provider, const std::string& name, const std::string& reason,
           const SourceLocation& where) {
    SkippedName& s = by_name[{provider, name}];
    if (s.rows == 0) s = SkippedName{provider, name, reason, 0, where};
    ++s.rows;
  }
};

void fold_skypilot(const std::vector<SkyRow>& rows, const std::string& provider, const Provenance& prov,
                   const std::string& source, const ImportOptions& o, const Catalog& catalog, ImportResult& out,
                   Skips& skips, Ids& ids) {
  std::map<std::string, std::size_t> index;  // provider, region, instance, prices → out.offers
  std::set<std::string> regions;             // provider, region, instance already written
  for (const SkyRow& row : rows) {
    Resolution res = resolve_gpu(catalog, o.map, provider, row.name, row.instance, row.mib);
    if (!res.gpu.empty())
      if (const std::string why = memory_mismatch(*catalog.find_gpu(res.gpu), row.mib); !why.empty()) res = {"", why};
    if (res.gpu.empty()) {
      skips.add(provider, row.name, res.reason, row.where);
      continue;
    }
    // Zones of a region with the same prices are one offer; a zone priced differently is its own.
    const std::string region_key = fmt::format("{}\n{}\n{}", provider, row.region, row.instance);
    const std::string key = fmt::format("{}\n{}\n{}", region_key, row.price, row.spot);
    if (const auto it = index.find(key); it != index.end()) {
      std::vector<std::string>& zones = out.offers[it->second].zones;
      if (!row.zone.empty() && std::find(zones.begin(), zones.end(), row.zone) == zones.end())
        zones.push_back(row.zone);
      continue;
    }
    const bool region_seen = !regions.insert(region_key).second;
    const std::string id = ids.unique(to_id(fmt::format("{}-{}-{}{}", provider, row.region, row.instance,
                                                        region_seen && !row.zone.empty() ? "-" + row.zone : "")));
    ImportedOffer offer{id, provider, row.region, row.instance, res.gpu, row.gpus, "USD", {}, {}, {}, row.where};
    if (res.mapping)
      offer.mapped = fmt::format("GPU by --map {}{}", to_string(res.mapping->where),
                                 res.mapping->why.empty() ? "" : ": " + res.mapping->why);
    if (!row.zone.empty()) offer.zones.push_back(row.zone);
    const auto add = [&](BillingMode m, const std::string& amount) {
      if (!amount.empty()) offer.prices.push_back(ImportedPrice{m, amount, prov.as_of, source, "", "", row.where});
    };
    add(BillingMode::kHourly, row.price);
    add(BillingMode::kSpot, row.spot);
    index[key] = out.offers.size();
    out.offers.push_back(std::move(offer));
  }
}

}  // namespace

const std::vector<GpuMapping>& builtin_skypilot_mappings() {
  // Only names whose card the source makes certain; everything else is reported.
  static const std::vector<GpuMapping> kMap = {
      // Lambda's instance types say the form factor; its AcceleratorName ("H100", "A100") does not.
      {"lambda", "", "gpu_8x_h100_sxm5", "H100", "instance type names SXM5"},
      {"lambda", "", "gpu_1x_h100_pcie", "H100-PCIe", "instance type names PCIe"},
      {"lambda", "", "gpu_8x_a100_80gb_sxm4", "A100-80G", "instance type names 80 GB SXM4"},
      // RunPod sells the 80 GB A100 as "A100 PCIe" and "A100 SXM"; SkyPilot names the SXM one -SXM.
      {"runpod", "A100-80GB", "", "A100-80G-PCIe", "RunPod's A100 80GB without -SXM is the PCIe card"},
      {"runpod", "A100-80GB-SXM", "", "A100-80G", "RunPod's A100 80GB SXM"},
      {"runpod", "H100-SXM", "", "H100", "RunPod's H100 SXM"},
      {"runpod", "H100-PCIe", "", "H100-PCIe", "RunPod's H100 PCIe"},
      // SkyPilot's A100-80GB on AWS (p4de) and GCP (a2-ultragpu) is the SXM4 card; on
      // other clouds it may be PCIe (Azure's NC A100 v4), so it is mapped per provider.
      {"aws", "A100-80GB", "", "A100-80G", "AWS p4de.24xlarge: 8x A100 80GB SXM4"},
      {"gcp", "A100-80GB", "", "A100-80G", "GCP a2-ultragpu: A100 80GB SXM4"},
  };
  return kMap;
}

std::vector<GpuMapping> load_gpu_mappings(const std::string& path, const Catalog& catalog) {
  const std::string text = read_input_file(path);
  detail::Diagnostics diag(path);
  std::vector<GpuMapping> out;
  const std::optional<detail::Node> doc = detail::load_document(text, diag);
  if (doc) {
    detail::Fields root(diag, *doc, "");
    const detail::Node list = root.get("mappings", true);
    if (list.defined() && !list.is_sequence()) root.fail(list, "mappings", std::string(tr("must be a list")));
    for (std::size_t i = 0; list.is_sequence() && i < list.size(); ++i) {
      detail::Fields f(diag, list[i], fmt::format("mappings[{}]", i));
      if (!f.is_map()) {
        f.fail(list[i], f.path(), std::string(tr("must be a map: {name: ..., gpu: ...}")));
        continue;
      }
      GpuMapping m;
      m.where = diag.at(list[i]);
      if (auto s = f.text("name", false)) m.name = *s;
      if (auto s = f.text("instance", false)) m.instance = *s;
      if (auto s = f.text("provider", false)) m.provider = *s;
      if (auto s = f.text("why", false)) m.why = *s;
      if (auto s = f.text("gpu", true)) {
        if (const Gpu* g = catalog.find_gpu(*s)) m.gpu = g->id;
        else f.fail(f.get("gpu", false), f.field("gpu"), trf("unknown GPU id '{}'", *s));
      }
      if (m.name.empty() == m.instance.empty())
        f.fail(list[i], f.path(),
               std::string(tr("give exactly one of name (an accelerator name) or instance (an instance type)")));
      if (!m.provider.empty() && !catalog.find_provider(m.provider))
        f.fail(f.get("provider", false), f.field("provider"),
               trf("'{}' is not a provider of the catalog: the entry would never apply", m.provider));
      for (const GpuMapping& before : out)
        if (id_equals(before.provider, m.provider) && id_equals(before.name, m.name) && before.instance == m.instance)
          f.fail(list[i], f.path(),
                 trf("maps {} a second time (first at line {}): one entry per name or instance",
                     m.name.empty() ? m.instance : m.name, before.where.line));
      f.finish();
      if (f.ok()) out.push_back(std::move(m));
    }
    root.finish();
  }
  diag.throw_if_any();
  return out;
}

ImportResult import_skypilot(const std::vector<std::string>& files, const ImportOptions& o, const Catalog& catalog) {
  ImportResult out;
  Skips skips;
  Problems problems;
  Ids ids;
  for (const std::string& file : files) {
    const std::string provider = skypilot_provider(file, o, catalog);
    const CsvTable t = CsvTable::load(file);
    out.rows += static_cast<std::int64_t>(t.rows());
    Provenance prov;
    prov.as_of = o.as_of ? o.as_of : file_date(file);
    if (prov.as_of && *prov.as_of > o.today)
      throw InputError(SourceLocation{file}, "as_of",
                       trf("{} is after today ({}): give --as-of", format_date(*prov.as_of), format_date(o.today)));
    if (!o.as_of)
      out.notes.push_back(
          fmt::format("{}: as_of {} is the file's modification date (SkyPilot files carry none; "
                      "give --as-of for the snapshot's date)",
                      file, format_date(prov.as_of)));
    const std::string source = fmt::format("{}SkyPilot catalog CSV {}", o.source.empty() ? "" : o.source + "; ", file);
    RowCounts left;
    const std::vector<SkyRow> rows = read_skypilot_rows(t, problems, left);
    if (left.cpu > 0) out.notes.push_back(fmt::format("{}: {} rows without an accelerator left out", file, left.cpu));
    if (left.fraction > 0)
      out.notes.push_back(
          fmt::format("{}: {} rows with a fraction of a GPU (a shared card) left out", file, left.fraction));
    if (left.unpriced > 0)
      out.notes.push_back(fmt::format("{}: {} rows with neither Price nor SpotPrice left out", file, left.unpriced));
    fold_skypilot(rows, provider, prov, source, o, catalog, out, skips, ids);
  }
  problems.throw_if_any();
  for (auto& [key, s] : skips.by_name) out.skipped.push_back(std::move(s));
  return out;
}

// ---- the quote CSV a team fills in ----

namespace {

struct QuoteColumns {
  static constexpr std::array<const char*, 11> kRequired = {"provider", "region", "instance", "gpu",   "gpus",  "mode",
                                                            "price",    "per",    "currency", "as_of", "source"};
};

void read_quote_row(const CsvTable& t, std::size_t r, const std::map<std::string, std::vector<std::string>>& cols,
                    const ImportOptions& o, const Catalog& catalog, Problems& problems,
                    std::map<std::string, std::size_t>& index, Ids& ids, ImportResult& out) {
  const auto cell = [&](const char* c) -> const std::string& { return cols.at(c)[r]; };
  const auto bad = [&](const char* c, const std::string& message) {
    problems.add(t.file(), t.place(r, c), c, message);
  };
  const std::size_t before = problems.list.size();
  for (const char* c : QuoteColumns::kRequired)
    if (cell(c).empty()) bad(c, std::string(tr("is empty")));
  if (problems.list.size() != before) return;
  const Provider* provider = catalog.find_provider(cell("provider"));
  if (!provider) bad("provider", trf("'{}' is not a provider of the catalog", cell("provider")));
  // A quote names a catalog GPU id, or a name the team's --map file maps.
  Resolution gpu;
  if (const Gpu* g = catalog.find_gpu(cell("gpu"))) gpu.gpu = g->id;
  else gpu = resolve_gpu(catalog, o.map, cell("provider"), cell("gpu"), cell("instance"), std::nullopt);
  if (gpu.gpu.empty()) bad("gpu", trf("'{}': {}", cell("gpu"), gpu.reason));
  const auto gpus = gpu_count(cell("gpus"));
  if (!gpus) bad("gpus", trf("'{}' is not a whole number of GPUs from 1 to 1024", cell("gpus")));
  const auto mode = parse_billing_mode(cell("mode"));
  if (!mode) bad("mode", trf("'{}' is not hourly, monthly or spot", cell("mode")));
  const std::string& per = cell("per");
  if (per != "instance" && per != "gpu") bad("per", trf("'{}' is not instance or gpu", per));
  std::optional<Date> as_of;
  try {
    if (cell("as_of") != "unknown") as_of = parse_date(cell("as_of"));
    if (as_of && *as_of > o.today) bad("as_of", trf("{} is after today ({})", cell("as_of"), format_date(o.today)));
  } catch (const std::invalid_argument& e) {
    bad("as_of", e.what());
  }
  std::string amount;
  try {
    const Currency currency(cell("currency"));
    if (!find_conversion(catalog, currency, kCny))
      throw std::invalid_argument(
          trf("{} has no exchange rate to CNY in the catalog (add one under fx_rates)", currency.code()));
    Money m = Money::parse(cell("price"), currency);
    if (m.micros() <= 0) throw std::invalid_argument(std::string(tr("must be a positive amount")));
    if (per == "gpu" && gpus) m = m.times(*gpus);
    amount = to_plain_string(m, -1);
  } catch (const std::invalid_argument& e) {
    bad("price", trf("'{} {}': {}", cell("price"), cell("currency"), e.what()));
  }
  std::string confidence = cols.count("confidence") ? cols.at("confidence")[r] : "";
  if (!confidence.empty() && confidence != "low" && confidence != "medium" && confidence != "high")
    bad("confidence", trf("'{}' is not low, medium or high", confidence));
  if (problems.list.size() != before) return;
  const std::string key = fmt::format("{}\n{}\n{}", provider->id, cell("region"), cell("instance"));
  const SourceLocation where{t.file(), t.line(r), 1};
  auto [it, fresh] = index.emplace(key, out.offers.size());
  if (fresh)
    out.offers.push_back(
        ImportedOffer{ids.unique(to_id(fmt::format("{}-{}-{}", provider->id, cell("region"), cell("instance")))),
                      provider->id,
                      cell("region"),
                      cell("instance"),
                      gpu.gpu,
                      *gpus,
                      cell("currency"),
                      {},
                      {},
                      {},
                      where});
  ImportedOffer& offer = out.offers[it->second];
  if (offer.gpu != gpu.gpu || offer.gpus != *gpus || offer.currency != cell("currency")) {
    problems.add(t.file(), t.place(r, "gpu"), "gpu",
                 fmt::format("{} is quoted at line {} as {}×{} in {}: one instance type is one shape and currency",
                             offer.instance, offer.where.line, offer.gpus, offer.gpu, offer.currency));
    return;
  }
  const std::string note = cols.count("note") ? cols.at("note")[r] : "";
  offer.prices.push_back(ImportedPrice{*mode, amount, as_of, cell("source"), note, confidence, where});
}

}  // namespace

ImportResult import_quotes(const std::vector<std::string>& files, const ImportOptions& o, const Catalog& catalog) {
  ImportResult out;
  Problems problems;
  std::map<std::string, std::size_t> index;
  Ids ids;
  for (const std::string& file : files) {
    const CsvTable t = CsvTable::load(file);
    out.rows += static_cast<std::int64_t>(t.rows());
    std::map<std::string, std::vector<std::string>> cols;
    for (const char* c : QuoteColumns::kRequired) cols[c] = t.text(c);  // a missing column throws, naming them
    for (const char* c : {"note", "confidence"})
      if (t.has(c)) cols[c] = t.text(c);
    // A misspelt optional column ("confidnce") would be dropped without a word: refused instead.
    for (const std::string& h : t.header())
      if (!std::any_of(cols.begin(), cols.end(), [&](const auto& c) { return id_equals(c.first, h); }))
        problems.list.emplace_back(SourceLocation{t.file(), t.header_line(), 0}, h,
                                   fmt::format("is not a column of the quote CSV (columns: {}, and note, confidence)",
                                               fmt::join(QuoteColumns::kRequired, ", ")));
    for (std::size_t r = 0; r < t.rows(); ++r) read_quote_row(t, r, cols, o, catalog, problems, index, ids, out);
  }
  problems.throw_if_any();
  // Per mode, the newest price is the offer's; the others stay as its history, newest first.
  for (ImportedOffer& offer : out.offers) {
    std::stable_sort(offer.prices.begin(), offer.prices.end(), [](const ImportedPrice& a, const ImportedPrice& b) {
      if (a.mode != b.mode) return a.mode < b.mode;
      return a.as_of.value_or(Date::min()) > b.as_of.value_or(Date::min());
    });
    // Two prices of one mode on one date (or both undated): which is the price cannot be told.
    for (std::size_t i = 1; i < offer.prices.size(); ++i) {
      const ImportedPrice &a = offer.prices[i - 1], &b = offer.prices[i];
      if (a.mode == b.mode && a.as_of == b.as_of) {
        const ImportedPrice& later = a.where.line > b.where.line ? a : b;
        const ImportedPrice& first = a.where.line > b.where.line ? b : a;
        problems.list.emplace_back(
            later.where, "as_of",
            fmt::format("a second {} price of {} dated {} (the first at line {}): one price per mode and date",
                        to_string(b.mode), offer.instance, format_date(b.as_of), first.where.line));
      }
    }
  }
  problems.throw_if_any();
  return out;
}

// ---- writing the catalog ----

namespace {

// A JSON string is a YAML double-quoted scalar (YAML 1.2 reads JSON), escapes and all.
std::string yaml_text(std::string_view text) { return json_quote(text); }

}  // namespace

namespace {

std::string price_yaml(const ImportedPrice& p, const ImportedPrice& record, const std::string& confidence) {
  const bool same =
      p.source == record.source && p.as_of == record.as_of && p.note.empty() && p.confidence == confidence;
  if (same) return p.amount;
  std::string out = fmt::format("{{price: {}, source: {}, as_of: {}", p.amount, yaml_text(p.source),
                                p.as_of ? format_date(*p.as_of) : "unknown");
  if (!p.confidence.empty()) out += ", confidence: " + p.confidence;
  if (!p.note.empty()) out += ", note: " + yaml_text(p.note);
  return out + "}";
}

void offer_yaml(const ImportedOffer& o, std::string& out) {
  // The record's provenance: its first current price's (hourly, else monthly, else spot).
  const ImportedPrice& record = o.prices.front();
  // The record's confidence only when every price has it: prices without one must not inherit it.
  std::string confidence = record.confidence;
  for (const ImportedPrice& p : o.prices)
    if (p.confidence != confidence) confidence.clear();
  out += fmt::format("  - id: {}\n    provider: {}\n    region: {}\n    instance: {}\n    gpu: {}\n    gpus: {}\n",
                     yaml_text(o.id), o.provider, yaml_text(o.region), yaml_text(o.instance), o.gpu, o.gpus);
  out += fmt::format("    currency: {}\n", o.currency);
  std::vector<const ImportedPrice*> history;
  for (std::size_t i = 0; i < o.prices.size(); ++i) {
    const ImportedPrice& p = o.prices[i];
    if (i > 0 && o.prices[i - 1].mode == p.mode) {
      history.push_back(&p);
      continue;
    }
    out += fmt::format("    {}: {}\n", to_string(p.mode), price_yaml(p, record, confidence));
  }
  if (!history.empty()) {
    out += "    history:\n";
    for (const ImportedPrice* p : history)
      out += fmt::format("      - {{mode: {}, price: {}, source: {}, as_of: {}{}{}}}\n", to_string(p->mode), p->amount,
                         yaml_text(p->source), p->as_of ? format_date(*p->as_of) : "unknown",
                         p->confidence.empty() ? "" : ", confidence: " + p->confidence,
                         p->note.empty() ? "" : ", note: " + yaml_text(p->note));
  }
  out += fmt::format("    source: {}\n    as_of: {}\n", yaml_text(record.source),
                     record.as_of ? format_date(*record.as_of) : "unknown");
  if (!confidence.empty()) out += fmt::format("    confidence: {}\n", confidence);
  std::string note = o.mapped;
  if (!o.zones.empty()) note += fmt::format("{}zones {}", note.empty() ? "" : "; ", fmt::join(o.zones, ", "));
  if (!note.empty()) out += fmt::format("    note: {}\n", yaml_text(note));
  out += "\n";
}

// A comment line: file names and cells cannot end it early.
std::string comment(std::string_view text) {
  std::string out = "# ";
  for (const char c : text) out += static_cast<unsigned char>(c) < 0x20 ? ' ' : c;
  return out + "\n";
}

}  // namespace

void check_imported(const ImportResult& r, const Catalog& catalog) {
  // A catalog file is read whole, a million YAML values at most (about 25 an
  // offer): more offers would make a file --catalog refuses.
  constexpr std::size_t kMaxOffers = 30000;
  if (r.offers.size() > kMaxOffers)
    throw InputError({}, "",
                     trf("{} offers are more than one catalog file holds (at most {}): import a "
                         "part of the file (a region, a GPU) at a time",
                         r.offers.size(), kMaxOffers));
  std::vector<InputError> problems;
  const auto place = [&](const InputError& e) {
    // "offers[2].spot": the offer and, when a price, its mode's row.
    const std::string& field = e.field();
    std::size_t i = 0;
    if (std::sscanf(field.c_str(), "offers[%zu]", &i) != 1 || i >= r.offers.size()) {
      problems.push_back(e);
      return;
    }
    const ImportedOffer& o = r.offers[i];
    const std::string rest = field.substr(std::min(field.size(), field.find(']') + 2));
    SourceLocation where = o.where;
    for (const ImportedPrice& p : o.prices)
      if (to_string(p.mode) == rest) {
        where = p.where;
        break;
      }
    problems.emplace_back(where, rest.empty() ? o.instance : fmt::format("{} {}", o.instance, rest), e.message());
  };
  try {
    parse_catalog(to_catalog_yaml(r, ""), "<catalog import>", &catalog);
  } catch (const InputErrors& e) {
    for (const InputError& p : e.problems()) place(p);
  } catch (const InputError& e) {
    place(e);
  }
  if (!problems.empty()) throw InputErrors(problems);
}

std::string describe(const SkippedName& s) {
  return fmt::format("{} '{}' ({} row{}, the first at {}): {}", s.provider, s.name, s.rows, s.rows == 1 ? "" : "s",
                     to_string(s.first), s.reason);
}

std::string to_catalog_yaml(const ImportResult& r, const std::string& how) {
  std::string out = comment(how) + comment(fmt::format("{} rows read, {} offers written.", r.rows, r.offers.size()));
  for (const std::string& n : r.notes) out += comment(n);
  for (const SkippedName& s : r.skipped) out += comment("left out: " + describe(s));
  out += "schema_version: 1\n\noffers:\n";
  if (r.offers.empty()) out.replace(out.size() - 1, 1, " []\n");
  for (const ImportedOffer& o : r.offers) offer_yaml(o, out);
  while (out.ends_with("\n\n")) out.pop_back();
  return out;
}

}  // namespace gpuplan
