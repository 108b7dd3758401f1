#include "plugins/described_backend.hpp"

#include <algorithm>

#include "plugins/plugin_description.hpp"

namespace vsa {
namespace {

class DescribedBackend final : public Backend {
 public:
  DescribedBackend(const nlohmann::json& b, std::string path, std::map<std::string, Support> shapes)
      : m_json(b), m_path(std::move(path)), m_shapes(std::move(shapes)) {}

  std::string name() const override { return m_json.at("name").get<std::string>(); }
  std::string description() const override { return m_json.at("description").get<std::string>(); }
  Memory memory() const override { return m_json.at("memory") == "host" ? Memory::host : Memory::device; }
  bool has_op(Op op) const override {
    const auto ops = m_json.at("ops").get<std::vector<std::string>>();
    return std::find(ops.begin(), ops.end(), op == Op::forward ? "fwd" : "bwd") != ops.end();
  }
  Support supports(const DeviceInfo&, const Shape& s, Op op) const override { return supports_shape(s, op); }
  Support supports_shape(const Shape& s, Op op) const override {
    const auto it = m_shapes.find(shape_key(s, op));
    return it == m_shapes.end() ? Support::yes() : it->second;
  }
  std::vector<std::string> nondeterministic_outputs() const override {
    return m_json.at("nondeterministic").get<std::vector<std::string>>();
  }
  Status forward(const ForwardArgs&) override { return Status::failure(name() + ": plugin backends run in workers"); }
  Status backward(const BackwardArgs&) override { return Status::failure(name() + ": plugin backends run in workers"); }
  std::vector<std::string> compiled_images() const override {
    return m_json.at("images").get<std::vector<std::string>>();
  }
  std::vector<std::string> probe_points() const override { return m_json.at("probes").get<std::vector<std::string>>(); }
  bool probe_warp_masks() const override { return m_json.at("probe_warp_masks").get<bool>(); }

  const std::string& path() const { return m_path; }

 private:
  nlohmann::json m_json;
  std::string m_path;
  std::map<std::string, Support> m_shapes;
};

}  // namespace

std::unique_ptr<Backend> make_described_backend(const nlohmann::json& backend, std::string plugin_path,
                                                std::map<std::string, Support> shape_support) {
  return std::make_unique<DescribedBackend>(backend, std::move(plugin_path), std::move(shape_support));
}

std::string described_plugin_path(const Backend& backend) {
  const auto* d = dynamic_cast<const DescribedBackend*>(&backend);
  return d ? d->path() : std::string();
}

}  // namespace vsa
