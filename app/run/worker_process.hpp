#pragma once
// Parent side of worker isolation: a child `vsa-bench __worker` process talking
// line-delimited JSON over pipes. A child that dies or stops answering cannot
// take the run down with it (docs/design.md, "Running").
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "util/process.hpp"

namespace vsa {

class WorkerProcess {
 public:
  // argv[0] is the executable path.
  explicit WorkerProcess(const std::vector<std::string>& argv);
  ~WorkerProcess();
  WorkerProcess(const WorkerProcess&) = delete;
  WorkerProcess& operator=(const WorkerProcess&) = delete;

  void send(const nlohmann::json& message);
  // Next JSON line, or nullopt on timeout (timed_out() true) or EOF (exited).
  [[nodiscard]] std::optional<nlohmann::json> receive(double timeout_s);
  [[nodiscard]] bool timed_out() const { return m_timed_out; }
  // Kills (SIGKILL) if still running and reaps; returns a description of how it ended.
  std::string terminate();
  // The last lines the child wrote to stderr (its logs, an abort message).
  [[nodiscard]] std::string stderr_tail() const;

 private:
  void drain_stderr();
  std::unique_ptr<ChildProcess> m_child;  // owns the pipes
  int m_in = -1, m_out = -1, m_err = -1;
  std::string m_out_buffer, m_err_buffer;
  bool m_timed_out = false;
  std::string m_end;
};

// Path of the running executable (/proc/self/exe), to re-exec as a worker.
[[nodiscard]] std::string self_executable();

}  // namespace vsa
