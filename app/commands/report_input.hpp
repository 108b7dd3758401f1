#pragma once
// The commands that read reports (compare, fleet, render) treat an unreadable report the
// same way: bad input, exit 2, the file and the reason on stderr.
#include <iostream>

#include "model/exit_codes.hpp"
#include "report/report_files.hpp"

namespace vsa::cli {

// Runs `body` (returning an exit code); a ReportFileError becomes exit 2, named.
template <class Body>
int run_reading_reports(const char* command, Body&& body) {
  try {
    return body();
  } catch (const ReportFileError& e) {
    std::cerr << "vsa-bench " << command << ": " << e.what() << "\n";
    return kExitUsage;
  }
}

}  // namespace vsa::cli
