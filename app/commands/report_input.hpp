#pragma once
// The commands that read reports (compare, fleet, render) treat an unreadable report the
// same way: bad input, exit 2, the file and the reason on stderr.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <iostream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "model/exit_codes.hpp"
#include "report/report_files.hpp"

namespace vsa::cli {

// Runs `body` (returning an exit code); a ReportFileError becomes exit 2, named. So does a
// report that parsed but holds a field of the wrong type, found only when a command reads it
// (a string where the schema has an array, say): bad input, not a crash of the tool.
template <class Body>
int run_reading_reports(const char* command, Body&& body) {
  try {
    return body();
  } catch (const ReportFileError& e) {
    std::cerr << "vsa-bench " << command << ": " << e.what() << "\n";
    return kExitUsage;
  } catch (const nlohmann::json::exception& e) {
    std::cerr << "vsa-bench " << command << ": a report does not follow docs/schema/report.schema.json (" << e.what()
              << "); check it with scripts/check_schema.py\n";
    return kExitUsage;
  }
}

// A command that found no report where it was pointed (fleet, floors): bad input, exit 2, the
// places named.
inline int no_report_found(const char* command, const std::vector<std::string>& paths) {
  std::cerr << "vsa-bench " << command << ": no vsa-bench report found in " << fmt::format("{}", fmt::join(paths, ", "))
            << "\n";
  return kExitUsage;
}

}  // namespace vsa::cli
