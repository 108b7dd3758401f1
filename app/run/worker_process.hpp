#pragma once
// Parent side of worker isolation: a child `vsa-bench __worker` process talking
// line-delimited JSON over pipes. A child that dies or stops answering cannot
// take the run down with it (docs/design.md, "Running").
#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "util/line_buffer.hpp"
#include "util/process.hpp"

namespace vsa {

// A worker's result line is a CaseResult; a report holding it must stay readable
// (util/json_input.hpp reads at most 256 MiB), so one line is at most a quarter of that.
inline constexpr std::size_t kMaxWorkerLineBytes = 64u << 20;
inline constexpr std::size_t kStderrTailBytes = 4096;

class WorkerProcess {
 public:
  // argv[0] is the executable path.
  explicit WorkerProcess(const std::vector<std::string>& argv);
  ~WorkerProcess();
  WorkerProcess(const WorkerProcess&) = delete;
  WorkerProcess& operator=(const WorkerProcess&) = delete;

  void send(const nlohmann::json& message);
  // The next protocol message: a stdout line that is a JSON object with a string "event".
  // Other lines (library prints, `42`, `null`, `{}`) are not protocol and are skipped.
  // nullopt on timeout (timed_out() true), EOF (exited), or a line longer than
  // kMaxWorkerLineBytes (overflowed() true; the rest of it is not kept).
  [[nodiscard]] std::optional<nlohmann::json> receive(double timeout_s);
  [[nodiscard]] bool timed_out() const { return m_timed_out; }
  [[nodiscard]] bool overflowed() const { return m_lines.overflowed(); }
  // Kills (SIGKILL) if still running and reaps; returns a description of how it ended.
  std::string terminate();
  // The last lines the child wrote to stderr (its logs, an abort message), at most
  // kStderrTailBytes, valid UTF-8 (a cut inside a character is moved to its end).
  [[nodiscard]] std::string stderr_tail() const;

 private:
  void drain_stderr();
  std::unique_ptr<ChildProcess> m_child;  // owns the pipes
  int m_in = -1, m_out = -1, m_err = -1;
  LineBuffer m_lines{kMaxWorkerLineBytes};
  std::string m_err_buffer;
  bool m_timed_out = false;
  std::string m_end;
};

// Path of the running executable (/proc/self/exe), to re-exec as a worker.
[[nodiscard]] std::string self_executable();

}  // namespace vsa
