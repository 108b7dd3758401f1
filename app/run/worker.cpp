#include "run/worker.hpp"

#include <cstdio>
#include <iostream>
#include <map>
#include <string>

#include <cuda_runtime_api.h>
#include <nlohmann/json.hpp>

#include "engine/backend_listing.hpp"
#include "engine/case_runner.hpp"
#include "engine/devices.hpp"
#include "run/device_facts.hpp"
#include "run/kernel_images.hpp"
#include "suite/suite.hpp"
#include "telemetry/clock_sampler.hpp"
#include "vsa/registry.hpp"
#include "model/exit_codes.hpp"
#include "plugins/plugin_description.hpp"
#include "plugins/plugin_error.hpp"
#include "plugins/plugin_registry.hpp"

namespace vsa {
namespace {

void reply(const nlohmann::json& j) { std::cout << j.dump() << std::endl; }

// The plugin backends' description and their answers to the parent's shape questions.
nlohmann::json plugins_reply(const std::vector<std::shared_ptr<const PluginLibrary>>& plugins, const Registry& registry,
                             const nlohmann::json& queries) {
  nlohmann::json described = nlohmann::json::array(), answers = nlohmann::json::array();
  for (const auto& lib : plugins) {
    described.push_back(describe_plugin(*lib));
    for (std::size_t b = 0; b < lib->table->backend_count; ++b) {
      const Backend* backend = registry.find(lib->table->backends[b].name);
      for (std::size_t i = 0; i < queries.size(); ++i) {
        const Op op = query_op(queries[i]);
        if (!backend->has_op(op)) continue;
        const Support s = backend->supports_shape(query_shape(queries[i]), op);
        answers.push_back({{"backend", backend->name()}, {"query", i}, {"ok", s.ok}, {"reason", s.reason}});
      }
    }
  }
  return {{"event", "plugins"}, {"plugins", described}, {"shape_support", answers}};
}

nlohmann::json list_reply(const std::vector<std::shared_ptr<const PluginLibrary>>& plugins, const Registry& registry) {
  std::map<std::string, std::string> plugin_of_backend;  // name -> library
  for (const auto& lib : plugins)
    for (std::size_t b = 0; b < lib->table->backend_count; ++b)
      plugin_of_backend[lib->table->backends[b].name] = lib->path;
  nlohmann::json backends = nlohmann::json::array();
  for (auto& entry : list_backends_json(registry))
    if (const auto it = plugin_of_backend.find(entry.at("name").get<std::string>()); it != plugin_of_backend.end()) {
      entry["plugin"] = it->second;
      backends.push_back(entry);
    }
  return {{"event", "list"}, {"backends", backends}};
}

}  // namespace

int worker_main(int device_ordinal, const std::vector<std::string>& plugin_paths) {
  Registry registry = make_registry();
  std::vector<std::shared_ptr<const PluginLibrary>> plugins;
  std::string plugin_error;
  try {
    plugins = add_plugins(registry, plugin_paths, [](const std::string& path) {
      std::fprintf(stderr, "vsa-bench worker: loading plugin %s\n", path.c_str());
      std::fflush(stderr);
    });
  } catch (const PluginError& e) {
    plugin_error = e.what();
  }
  DeviceQuery query;  // filled lazily: a CPU-only worker never initialises CUDA
  bool queried = false;
  auto devices = [&]() -> const DeviceQuery& {
    if (!queried) query = query_devices();
    queried = true;
    return query;
  };
  WorkerContext ctx;
  ctx.registry = &registry;
  ctx.emit = reply;
  std::string line;
  while (std::getline(std::cin, line)) {
    nlohmann::json req;
    try {
      req = nlohmann::json::parse(line);
    } catch (const std::exception& e) {
      reply({{"event", "error"}, {"message", std::string("bad request: ") + e.what()}});
      continue;
    }
    const std::string op = req.value("op", "");
    if (op == "exit") return 0;
    if (!plugin_error.empty()) {
      reply({{"event", "error"}, {"message", plugin_error}});
      continue;
    }
    if (op == "plugins") {
      try {
        reply(plugins_reply(plugins, registry, req.value("queries", nlohmann::json::array())));
      } catch (const std::exception& e) {
        reply({{"event", "error"}, {"message", std::string("bad plugins request: ") + e.what()}});
      }
      continue;
    }
    if (op == "list") {
      reply(list_reply(plugins, registry));
      continue;
    }
    if (op == "hello") {
      nlohmann::json list = nlohmann::json::array();
      // Only a worker may initialise CUDA; the parent adds the NVML half by PCI bus id.
      for (const auto& d : devices().devices) list.push_back(device_facts(d));
      // The images each backend's kernels load from, asked here: on a GPU that means CUDA
      // (cuda-ref asks the driver which image it loaded), which the supervisor must not touch.
      // "images": on the current device (the CPU target's record); "images_by_device": each GPU's own.
      const nlohmann::json images = registry_images(registry);
      const nlohmann::json per_device =
          images_per_capability(devices().devices, [&](int ordinal) { return registry_images_on(registry, ordinal); });
      reply({{"event", "hello"},
             {"devices", list},
             {"note", devices().note},
             {"images", images},
             {"images_by_device", per_device}});
      continue;
    }
    if (op != "case") {
      reply({{"event", "error"}, {"message", "unknown op '" + op + "'"}});
      continue;
    }
    CaseSpec spec;
    try {
      spec = case_from_json(req.at("case"), "worker request", "$.case");
    } catch (const std::exception& e) {
      reply({{"event", "error"}, {"message", e.what()}});
      continue;
    }
    ctx.device = DeviceInfo{};
    if (device_ordinal >= 0)
      for (const auto& d : devices().devices)
        if (d.ordinal == device_ordinal) ctx.device = d;
    ctx.sample_clocks = make_clock_sampler(ctx.device);
    const CaseOutcome outcome = run_case(spec, ctx);
    reply({{"event", "result"}, {"result", outcome.result}, {"context_lost", outcome.context_lost}});
    if (outcome.context_lost) return kWorkerExitContextLost;
  }
  return kExitOk;
}

}  // namespace vsa
