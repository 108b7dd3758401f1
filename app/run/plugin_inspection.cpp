#include "run/plugin_inspection.hpp"

#include <filesystem>
#include <optional>
#include <stdexcept>
#include <set>

#include "plugins/described_backend.hpp"
#include "plugins/plugin_description.hpp"
#include "plugins/plugin_registry.hpp"
#include "run/worker_process.hpp"
#include "suite/suite.hpp"
#include "util/file_digest.hpp"
#include "util/printable.hpp"
#include "util/strings.hpp"

namespace vsa {
namespace {

using nlohmann::json;

// One request to a plugin-loading worker; its reply, or SuiteError saying how it ended.
json ask_worker(const std::vector<std::string>& paths, const std::string& device, const json& request,
                const std::string& expected_event) {
  std::vector<std::string> argv{self_executable(), "__worker", "--device", device};
  for (const auto& a : plugin_worker_args(paths)) argv.push_back(a);
  WorkerProcess worker(argv);
  std::optional<json> reply;
  try {
    worker.send(request);
    reply = worker.receive(kPluginLoadTimeoutS);
  } catch (const std::runtime_error&) {
    // The worker died before it read the request (a load that kills it is that fast).
  }
  if (!reply) {
    const bool hung = worker.timed_out();
    const std::string end = worker.terminate();
    const std::string tail(trim(worker.stderr_tail()));
    throw SuiteError(
        "plugins: the worker loading them " +
        (hung ? "did not answer within " + std::to_string(int(kPluginLoadTimeoutS)) + " s (killed)" : end) +
        (tail.empty() ? std::string() : "; its stderr: " + printable(tail)));
  }
  try {
    worker.send({{"op", "exit"}});
  } catch (const std::runtime_error&) {
    // Gone already: nothing to stop.
  }
  if (reply->value("event", "") == "error") throw SuiteError(reply->value("message", std::string("plugin error")));
  if (reply->value("event", "") != expected_event)
    throw SuiteError("plugins: unexpected answer from the worker loading them: " + printable(reply->dump()));
  return *reply;
}

void check_files(const std::vector<std::string>& paths) {
  for (const auto& p : paths) {
    std::error_code ec;
    if (!std::filesystem::is_regular_file(p, ec)) throw SuiteError("plugin " + p + ": no such file");
  }
}

}  // namespace

std::vector<std::pair<Shape, Op>> shape_questions(const std::vector<CaseSpec>& cases) {
  std::vector<std::pair<Shape, Op>> out;
  std::set<std::string> seen;
  for (const auto& c : cases)
    for (Op op : {Op::forward, Op::backward}) {
      if ((op == Op::forward && !runs_forward(c.op)) || (op == Op::backward && !runs_backward(c.op))) continue;
      if (seen.insert(shape_key(c.shape, op)).second) out.emplace_back(c.shape, op);
    }
  return out;
}

std::vector<std::string> plugin_worker_args(const std::vector<std::string>& paths) {
  std::vector<std::string> args;
  for (const auto& p : paths) {
    args.push_back("--plugin");
    args.push_back(p);
  }
  return args;
}

PluginInspection inspect_plugins(const std::vector<std::string>& given,
                                 const std::vector<std::pair<Shape, Op>>& questions) {
  PluginInspection out;
  out.paths = unique_plugin_paths(given);
  if (out.paths.empty()) return out;
  check_files(out.paths);
  json queries = json::array();
  for (const auto& [shape, op] : questions) queries.push_back(shape_query(shape, op));
  const json reply = ask_worker(out.paths, "-1", {{"op", "plugins"}, {"queries", queries}}, "plugins");
  for (json p : reply.at("plugins")) {
    try {
      const FileDigest d = digest_file(p.at("path").get<std::string>());
      p["size"] = d.size;
      p["sha256"] = d.sha256;
    } catch (const FileDigestError& e) {
      throw SuiteError(std::string("plugin ") + e.what());
    }
    out.plugins.push_back(p);
  }
  for (const json& a : reply.at("shape_support")) {
    const json& q = queries.at(a.at("query").get<std::size_t>());
    const Support s = a.at("ok").get<bool>() ? Support::yes() : Support::no(a.at("reason").get<std::string>());
    out.shape_support[a.at("backend").get<std::string>()][shape_key(query_shape(q), query_op(q))] = s;
  }
  return out;
}

void add_described_backends(Registry& registry, const PluginInspection& inspection) {
  for (const json& p : inspection.plugins)
    for (const json& b : p.at("backends")) {
      const std::string name = b.at("name").get<std::string>();
      const auto it = inspection.shape_support.find(name);
      registry.add(
          make_described_backend(b, p.at("path").get<std::string>(),
                                 it == inspection.shape_support.end() ? std::map<std::string, Support>{} : it->second));
    }
}

json list_plugin_backends(const std::vector<std::string>& given) {
  const auto paths = unique_plugin_paths(given);
  if (paths.empty()) return json::array();
  check_files(paths);
  return ask_worker(paths, "-1", {{"op", "list"}}, "list").at("backends");
}

}  // namespace vsa
