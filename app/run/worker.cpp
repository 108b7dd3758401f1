#include "run/worker.hpp"

#include <iostream>
#include <string>

#include <cuda_runtime_api.h>
#include <nlohmann/json.hpp>

#include "engine/case_runner.hpp"
#include "engine/devices.hpp"
#include "suite/suite.hpp"
#include "telemetry/clock_sampler.hpp"
#include "telemetry/fingerprint.hpp"
#include "vsa/registry.hpp"
#include "model/exit_codes.hpp"

namespace vsa {
namespace {

void reply(const nlohmann::json& j) { std::cout << j.dump() << std::endl; }

nlohmann::json device_json(const DeviceInfo& d) {
  // The CUDA half of the fingerprint (runtime version, L2, peak clocks...): only a
  // worker may initialise CUDA; the parent adds the NVML half by PCI bus id.
  std::vector<std::string> notes;
  nlohmann::json j = collect_cuda_device_fingerprint(d.ordinal, notes);
  char pci[32] = {};
  cudaDeviceGetPCIBusId(pci, sizeof pci, d.ordinal);
  j.update(nlohmann::json{{"pci_bus_id", pci},
                          {"ordinal", d.ordinal},
                          {"name", d.name},
                          {"cc_major", d.cc_major},
                          {"cc_minor", d.cc_minor},
                          {"sm_count", d.sm_count},
                          {"smem_per_block_optin", d.smem_per_block_optin},
                          {"global_mem", d.global_mem}});
  return j;
}

}  // namespace

int worker_main(int device_ordinal) {
  const Registry registry = make_registry();
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
    if (op == "hello") {
      nlohmann::json list = nlohmann::json::array();
      for (const auto& d : devices().devices) list.push_back(device_json(d));
      reply({{"event", "hello"}, {"devices", list}, {"note", devices().note}});
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
