// The node half of the fingerprint: host, launcher placement, OS, CPU.
#include <sched.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <charconv>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "telemetry/fingerprint.hpp"
#include "util/strings.hpp"

namespace vsa {
namespace {

std::optional<int> parse_int(const std::optional<std::string>& text) {
  if (!text || text->empty()) return std::nullopt;
  int value = 0;
  const char* end = text->data() + text->size();
  const auto [ptr, ec] = std::from_chars(text->data(), end, value);
  if (ec != std::errc() || ptr != end) return std::nullopt;
  return value;
}

std::optional<std::string> read_file(const char* path) {
  std::ifstream in(path);
  if (!in) return std::nullopt;
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// "key<spaces>: value" lines of /proc/cpuinfo; the first line with `key`.
std::optional<std::string> cpuinfo_field(const std::string& cpuinfo, const std::string& key) {
  std::istringstream lines(cpuinfo);
  std::string line;
  while (std::getline(lines, line)) {
    const auto colon = line.find(':');
    if (colon == std::string::npos) continue;
    if (trim(line.substr(0, colon)) == key) return std::string(trim(line.substr(colon + 1)));
  }
  return std::nullopt;
}

std::string host_name(const EnvLookup& env) {
  char name[256] = {};
  if (gethostname(name, sizeof name - 1) == 0 && name[0] != '\0') return name;
  return env("HOSTNAME").value_or("unknown");
}

}  // namespace

EnvLookup process_environment() {
  return [](const char* name) -> std::optional<std::string> {
    const char* value = std::getenv(name);
    if (value == nullptr) return std::nullopt;
    return std::string(value);
  };
}

LauncherInfo launcher_info_from(const EnvLookup& env) {
  LauncherInfo info;
  info.slurm_procid = env("SLURM_PROCID");
  info.slurm_localid = env("SLURM_LOCALID");
  info.slurmd_nodename = env("SLURMD_NODENAME");
  info.slurm_job_id = env("SLURM_JOB_ID");
  info.ompi_comm_world_rank = env("OMPI_COMM_WORLD_RANK");
  info.job_completion_index = env("JOB_COMPLETION_INDEX");
  info.k8s_node_name = env("NODE_NAME");
  const bool in_kubernetes = env("KUBERNETES_SERVICE_HOST").has_value();
  info.pod_name = env("POD_NAME");
  // A pod's hostname is its name unless the spec overrides it; POD_NAME (downward API) is exact.
  if (!info.pod_name && in_kubernetes) info.pod_name = env("HOSTNAME");

  if (info.slurm_job_id || info.slurm_procid) {
    info.kind = "slurm";
    info.rank = parse_int(info.slurm_procid);
    info.local_rank = parse_int(info.slurm_localid);
  } else if (info.ompi_comm_world_rank) {
    info.kind = "openmpi";
    info.rank = parse_int(info.ompi_comm_world_rank);
    info.local_rank = parse_int(env("OMPI_COMM_WORLD_LOCAL_RANK"));
  } else if (in_kubernetes || info.job_completion_index || info.pod_name) {
    info.kind = "kubernetes";
    info.rank = parse_int(info.job_completion_index);
  }
  info.node_name = info.slurmd_nodename ? info.slurmd_nodename : info.k8s_node_name;
  info.job_id = info.slurm_job_id;
  return info;
}

std::optional<std::string> parse_os_release_pretty_name(const std::string& os_release) {
  std::istringstream lines(os_release);
  std::string line;
  while (std::getline(lines, line)) {
    if (line.rfind("PRETTY_NAME=", 0) != 0) continue;
    std::string value(trim(line.substr(12)));
    if (value.size() >= 2 && (value.front() == '"' || value.front() == '\'') && value.back() == value.front())
      value = value.substr(1, value.size() - 2);
    if (value.empty()) return std::nullopt;
    return value;
  }
  return std::nullopt;
}

std::optional<std::string> parse_cpu_model(const std::string& cpuinfo) {
  if (auto model = cpuinfo_field(cpuinfo, "model name"); model && !model->empty()) return model;
  // Arm (e.g. Grace) has no model name line, only the implementer and part ids.
  const auto implementer = cpuinfo_field(cpuinfo, "CPU implementer");
  const auto part = cpuinfo_field(cpuinfo, "CPU part");
  if (implementer && part) return "arm implementer " + *implementer + " part " + *part;
  return std::nullopt;
}

NodeInfo collect_node_info() { return collect_node_info(process_environment()); }

NodeInfo collect_node_info(const EnvLookup& env) {
  NodeInfo node;
  node.hostname = host_name(env);
  node.launcher = launcher_info_from(env);
  utsname uts{};
  if (uname(&uts) == 0) node.kernel_release = uts.release;
  if (const auto text = read_file("/etc/os-release")) node.os = parse_os_release_pretty_name(*text);
  if (const auto text = read_file("/proc/cpuinfo")) node.cpu_model = parse_cpu_model(*text);
  if (const long online = sysconf(_SC_NPROCESSORS_ONLN); online > 0) node.cpus_online = static_cast<int>(online);
  cpu_set_t allowed;
  CPU_ZERO(&allowed);
  if (sched_getaffinity(0, sizeof allowed, &allowed) == 0) node.cpus_allowed = CPU_COUNT(&allowed);
  return node;
}

}  // namespace vsa
