#include "run/kernel_images.hpp"

#include <map>
#include <string>

#include <cuda_runtime_api.h>

namespace vsa {

nlohmann::json images_per_capability(const std::vector<DeviceInfo>& devices,
                                     const std::function<nlohmann::json(int ordinal)>& images_on) {
  std::map<int, nlohmann::json> by_capability;
  nlohmann::json per_device = nlohmann::json::object();
  for (const auto& d : devices) {
    if (!d.present()) continue;
    auto [it, first] = by_capability.try_emplace(d.cc());
    if (first) it->second = images_on(d.ordinal);
    if (!it->second.is_null()) per_device[std::to_string(d.ordinal)] = it->second;
  }
  return per_device;
}

nlohmann::json registry_images(const Registry& registry) {
  nlohmann::json images = nlohmann::json::object();
  for (const auto& b : registry.all()) images[b->name()] = b->compiled_images();
  return images;
}

nlohmann::json registry_images_on(const Registry& registry, int ordinal) {
  int current = 0;
  const bool had_current = cudaGetDevice(&current) == cudaSuccess;
  if (cudaSetDevice(ordinal) != cudaSuccess) {
    (void)cudaGetLastError();  // not sticky; leave no error for the next call to read
    return nullptr;
  }
  nlohmann::json images = registry_images(registry);
  if (had_current) (void)cudaSetDevice(current);
  return images;
}

const nlohmann::json& images_for_target(const nlohmann::json& per_device, const nlohmann::json& fallback, int target) {
  if (target >= 0 && per_device.is_object())
    if (const auto it = per_device.find(std::to_string(target)); it != per_device.end()) return *it;
  return fallback;
}

}  // namespace vsa
