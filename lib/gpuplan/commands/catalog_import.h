// `gpuplan catalog import FORMAT FILE…`: price files turned into a catalog,
// offline. The result is YAML (stdout or -o) that `catalog validate` accepts
// and --catalog merges (later wins, per id); its table form lists the offers.
#pragma once

#include <string>
#include <vector>

#include "gpuplan/context.h"
#include "gpuplan/report.h"

namespace gpuplan {

struct ImportQuery {
  std::string format{};  ///< "skypilot" or "quotes"
  std::vector<std::string> files{};
  std::string provider{};  ///< skypilot: the cloud (default: the file's directory name)
  std::string map_file{};  ///< accelerator names → catalog GPU ids
  std::string as_of{};     ///< skypilot: the snapshot's date (default: the file's modification date)
  std::string source{};    ///< skypilot: the origin (repository, path, commit)
};

Report catalog_import_report(const Context& ctx, const ImportQuery& q);

}  // namespace gpuplan
