#include "engine/backend_listing.hpp"

#include <algorithm>
#include <cstdio>
#include <sstream>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "engine/devices.hpp"
#include "suite/suite.hpp"
#include "util/printable.hpp"
#include "vsa/registry.hpp"

namespace vsa {

nlohmann::json list_suites_json() {
  nlohmann::json list = nlohmann::json::array();
  for (const auto& name : builtin_suite_names()) {
    const Suite s = load_suite(name);
    list.push_back({{"name", name}, {"description", s.description}, {"cases", s.cases.size()}});
  }
  return list;
}

nlohmann::json list_backends_json() { return list_backends_json(make_registry()); }

nlohmann::json list_backends_json(const Registry& registry) {
  const DeviceQuery q = query_devices();
  // A representative shape the fast kernels take: support here is about the device.
  const Shape probe_shape{1, 1, 2, 128, 64, 1, 1};
  nlohmann::json list = nlohmann::json::array();
  for (const auto& b : registry.all()) {
    nlohmann::json ops = nlohmann::json::array();
    if (b->has_op(Op::forward)) ops.push_back("fwd");
    if (b->has_op(Op::backward)) ops.push_back("bwd");
    nlohmann::json support = nlohmann::json::array();
    const DeviceInfo none;
    auto one = [&](const DeviceInfo& d) {
      const Op op = b->has_op(Op::forward) ? Op::forward : Op::backward;
      const Support s = b->supports(d, probe_shape, op);
      support.push_back({{"device", d.present() ? d.ordinal : -1},
                         {"device_name", d.present() ? d.name : std::string("none (host)")},
                         {"supported", s.ok},
                         {"reason", s.reason}});
    };
    if (q.devices.empty()) one(none);
    for (const auto& d : q.devices) one(d);
    nlohmann::json kernels = nlohmann::json::array();
    if (!q.devices.empty())
      for (const auto& k : b->kernels())
        kernels.push_back({{"name", k.name},
                           {"registers", k.registers},
                           {"shared_static_bytes", k.shared_static_bytes},
                           {"local_bytes", k.local_bytes},
                           {"binary_version", k.binary_version},
                           {"hot", k.hot}});
    list.push_back({{"name", b->name()},
                    {"description", b->description()},
                    {"memory", b->memory() == Memory::host ? "host" : "device"},
                    {"ops", ops},
                    {"images", b->compiled_images()},
                    {"probes", b->probe_points()},
                    {"support", support},
                    {"kernels", kernels}});
  }
  return list;
}

nlohmann::json list_cases_json(const std::string& suite, const std::vector<std::string>& filters) {
  const Suite s = load_suite(suite);
  nlohmann::json list = nlohmann::json::array();
  for (const auto& c : s.cases) {
    // The rule of `run --case`: the suite-qualified name contains one of the filters.
    const std::string qualified = qualified_case_name(s, suite, c.name);
    if (!filters.empty() && std::none_of(filters.begin(), filters.end(),
                                         [&](const std::string& f) { return qualified.find(f) != std::string::npos; }))
      continue;
    list.push_back(to_json(c));
  }
  if (list.empty() && !filters.empty())
    throw SuiteError("no case of " + suite + " matches --case " + fmt::format("{}", fmt::join(filters, ", --case ")));
  return list;
}

std::string render_listing(const nlohmann::json& l) {
  std::ostringstream out;
  if (l.contains("suites")) {
    out << "Suites (built in; `vsa-bench run NAME`):\n";
    for (const auto& s : l["suites"]) {
      out << fmt::format("  {:<14} {:>4} cases  {}\n", s["name"].get<std::string>(), s["cases"].get<int>(),
                         s["description"].get<std::string>());
    }
  }
  if (l.contains("backends")) {
    out << "Backends:\n";
    for (const auto& b : l["backends"]) {
      // fmt::join, not `s += (s.empty() ? "" : ",") + item`: besides being the one join,
      // that form trips GCC 12's bogus -Wrestrict in std::string's operator+ (GCC bug 105329).
      const std::string images = fmt::format("{}", fmt::join(b["images"].get<std::vector<std::string>>(), ","));
      const std::string ops = fmt::format("{}", fmt::join(b["ops"].get<std::vector<std::string>>(), ","));
      // fmt, not a fixed buffer: a plugin's long description was cut and ran into the next line.
      out << fmt::format("  {:<14} {:<7} {:<9} images: {:<26} {}\n", b["name"].get<std::string>(),
                         b["memory"].get<std::string>(), ops, images.empty() ? "-" : images,
                         b["description"].get<std::string>());
      for (const auto& s : b["support"])
        out << "      " << s["device_name"].get<std::string>() << ": "
            << (s["supported"].get<bool>() ? "supported" : "not supported: " + s["reason"].get<std::string>()) << "\n";
    }
  }
  if (l.contains("cases")) {
    for (const auto& c : l["cases"])
      // printable(): a name may hold any JSON string (a NUL cut the listing short, an escape
      // sequence would reach the terminal); `run` shows names the same way.
      out << "  " << printable(c["name"].get<std::string>()) << "  mode=" << c["mode"].get<std::string>()
          << " op=" << c["op"].get<std::string>() << " B=" << c["B"] << " H=" << c["H"] << " S=" << c["S"]
          << " D=" << c["D"] << " pattern=" << c["pattern"]["kind"].get<std::string>() << "\n";
  }
  return out.str();
}

}  // namespace vsa
