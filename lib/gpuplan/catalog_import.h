// Public and team price files turned into catalog offers, offline: SkyPilot's
// catalog CSV (`catalogs/v6/<cloud>/vms.csv`, one row per instance type,
// region and zone) and the quote CSV a team fills in (doc/manual.md, "catalog
// import"). Accelerator names become catalog GPU ids only by an explicit
// mapping (the user's --map file, then a built-in table of SkyPilot names
// whose meaning is documented) or an exact id that has no variants: a name
// that could be two cards (SkyPilot's "H100" is SXM on one cloud and PCIe on
// another) is reported, never guessed.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "gpuplan/catalog.h"

namespace gpuplan {

/// Accelerator names (or instance types) to catalog GPU ids.
struct GpuMapping {
  std::string provider{};  ///< "" = any provider
  std::string name{};      ///< the file's accelerator name, or
  std::string instance{};  ///< an instance type (wins over the name)
  std::string gpu{};       ///< catalog GPU id
  std::string why{};       ///< where the meaning is documented
  SourceLocation where{};
};

/// The built-in SkyPilot names, each with the reason it means that card.
const std::vector<GpuMapping>& builtin_skypilot_mappings();

/// Reads a mapping file (`mappings:` list of {name|instance, gpu, provider?});
/// GPU ids are checked against `catalog`. Throws InputErrors.
std::vector<GpuMapping> load_gpu_mappings(const std::string& path, const Catalog& catalog);

struct ImportOptions {
  std::string provider{};         ///< skypilot: the cloud; "" = the file's directory name
  std::optional<Date> as_of{};    ///< skypilot: the snapshot's date; nullopt = the file's modification date
  std::string source{};           ///< skypilot: names the origin (repository, path, commit)
  std::vector<GpuMapping> map{};  ///< the user's mappings, before the built-in ones
  Date today{};
};

/// One price of an imported offer, as written (exact decimal text).
struct ImportedPrice {
  BillingMode mode = BillingMode::kHourly;
  std::string amount{};  ///< per instance
  std::optional<Date> as_of{};
  std::string source{};
  std::string note{};
  std::string confidence{};
  SourceLocation where{};
};

struct ImportedOffer {
  std::string id{};
  std::string provider{};
  std::string region{};
  std::string instance{};
  std::string gpu{};
  int gpus = 1;
  std::string currency{};
  std::vector<ImportedPrice> prices{};  ///< the newest per mode; older ones are its history
  std::vector<std::string> zones{};     ///< SkyPilot availability zones folded into the region
  std::string mapped{};                 ///< "GPU by --map FILE:LINE: why", when the user's map decided it
  SourceLocation where{};               ///< the first row
};

/// Rows left out, by accelerator name: reported, never guessed.
struct SkippedName {
  std::string provider{};
  std::string name{};
  std::string reason{};
  std::int64_t rows = 0;
  SourceLocation first{};
};

struct ImportResult {
  std::vector<ImportedOffer> offers{};
  std::vector<SkippedName> skipped{};
  std::int64_t rows = 0;  ///< data rows read
  std::vector<std::string> notes{};
};

ImportResult import_skypilot(const std::vector<std::string>& files, const ImportOptions& options,
                             const Catalog& catalog);
ImportResult import_quotes(const std::vector<std::string>& files, const ImportOptions& options, const Catalog& catalog);

/// Checks what would be written against the catalog's own rules (a price per
/// GPU-hour that no offer has, …) over `catalog`; a problem is an InputError at
/// the file row the offer's price came from. Throws InputErrors.
void check_imported(const ImportResult& result, const Catalog& catalog);

/// "lambda 'V100' (15 rows, the first at FILE:2): no catalog GPU of that name: …"
std::string describe(const SkippedName& s);

/// The catalog document (schema_version 1, offers only) for `result`, with a
/// header of comments saying what was read and what was left out.
std::string to_catalog_yaml(const ImportResult& result, const std::string& how);

}  // namespace gpuplan
