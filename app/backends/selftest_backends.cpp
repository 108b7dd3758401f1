#include "backends/selftest_backends.hpp"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <thread>

namespace vsa {
namespace {

class PlantedFaultBackend final : public Backend {
 public:
  enum class Kind { abort, hang };
  explicit PlantedFaultBackend(Kind kind) : m_kind(kind) {}
  std::string name() const override { return m_kind == Kind::abort ? "selftest-abort" : "selftest-hang"; }
  std::string description() const override {
    return m_kind == Kind::abort ? "planted fault: aborts its process in forward (must end FAULT)"
                                 : "planted fault: never returns from forward (must end HANG)";
  }
  Memory memory() const override { return Memory::host; }
  bool has_op(Op op) const override { return op == Op::forward; }
  Support supports(const DeviceInfo&, const Shape&, Op) const override { return Support::yes(); }
  Status forward(const ForwardArgs&) override {
    if (m_kind == Kind::abort) std::abort();
    for (;;) std::this_thread::sleep_for(std::chrono::seconds(1));
  }
  Status backward(const BackwardArgs&) override { return Status::failure("no backward"); }

 private:
  Kind m_kind;
};

// A worker that says something off-protocol: an error event on its stdout in the
// middle of a case, then no answer. The case must end FAIL with that message, and the
// next case must not read this worker's leftovers.
class StrayEventBackend final : public Backend {
 public:
  std::string name() const override { return "selftest-stray-event"; }
  std::string description() const override {
    return "planted fault: writes an error event to the worker protocol in forward (must end FAIL)";
  }
  Memory memory() const override { return Memory::host; }
  bool has_op(Op op) const override { return op == Op::forward; }
  Support supports(const DeviceInfo&, const Shape&, Op) const override { return Support::yes(); }
  Status forward(const ForwardArgs&) override {
    std::fputs("{\"event\": \"error\", \"message\": \"planted stray error event\"}\n", stdout);
    std::fflush(stdout);
    for (;;) std::this_thread::sleep_for(std::chrono::seconds(1));
  }
  Status backward(const BackwardArgs&) override { return Status::failure("no backward"); }
};

// A worker that writes what the parent must survive (issue 20), then aborts: lines on its
// stdout that are valid JSON but not protocol objects, and a stderr tail whose first byte,
// 4096 bytes from the end, is inside a UTF-8 character. The case must end FAULT with the
// signal and a valid UTF-8 reason; the parent must not abort.
class GarbledAbortBackend final : public Backend {
 public:
  std::string name() const override { return "selftest-garbled-abort"; }
  std::string description() const override {
    return "planted fault: JSON lines that are not objects on stdout, multi-byte text on stderr, then abort "
           "(must end FAULT)";
  }
  Memory memory() const override { return Memory::host; }
  bool has_op(Op op) const override { return op == Op::forward; }
  Support supports(const DeviceInfo&, const Shape&, Op) const override { return Support::yes(); }
  Status forward(const ForwardArgs&) override {
    for (const char* line : {"42", "null", "[1, 2]", "\"text\"", "true", "{}", "{\"event\": 7}"})
      std::fprintf(stdout, "%s\n", line);
    std::fflush(stdout);
    // "é" is 2 bytes: 4095 of its bytes end the stream after the newline below, so the
    // parent's 4096-byte tail starts on the second byte of one.
    std::string text = "x";
    for (int i = 0; i < 3000; ++i) text += "\xc3\xa9";
    std::fprintf(stderr, "%s\n", text.c_str());
    std::fflush(stderr);
    std::abort();
  }
  Status backward(const BackwardArgs&) override { return Status::failure("no backward"); }
};

// A worker whose result event lacks the fields of a result, then no answer: the case must
// end FAIL naming the malformed message, and the next case must get a fresh worker.
class BadResultBackend final : public Backend {
 public:
  std::string name() const override { return "selftest-bad-result"; }
  std::string description() const override {
    return "planted fault: sends a result event with fields missing (must end FAIL)";
  }
  Memory memory() const override { return Memory::host; }
  bool has_op(Op op) const override { return op == Op::forward; }
  Support supports(const DeviceInfo&, const Shape&, Op) const override { return Support::yes(); }
  Status forward(const ForwardArgs&) override {
    std::fputs("{\"event\": \"result\", \"result\": {\"name\": \"planted\", \"verdict\": \"PASS\"}}\n", stdout);
    std::fflush(stdout);
    for (;;) std::this_thread::sleep_for(std::chrono::seconds(1));
  }
  Status backward(const BackwardArgs&) override { return Status::failure("no backward"); }
};

// A worker that writes 80 MiB to stdout without a newline, then no answer: the parent must
// keep its buffer bounded and end the case FAULT (not HANG at the timeout, not out of memory).
class StdoutFloodBackend final : public Backend {
 public:
  std::string name() const override { return "selftest-stdout-flood"; }
  std::string description() const override {
    return "planted fault: 80 MiB on stdout without a newline (must end FAULT, the parent's memory bounded)";
  }
  Memory memory() const override { return Memory::host; }
  bool has_op(Op op) const override { return op == Op::forward; }
  Support supports(const DeviceInfo&, const Shape&, Op) const override { return Support::yes(); }
  Status forward(const ForwardArgs&) override {
    const std::string chunk(1 << 20, 'x');
    for (int i = 0; i < 80; ++i) std::fwrite(chunk.data(), 1, chunk.size(), stdout);
    std::fflush(stdout);
    for (;;) std::this_thread::sleep_for(std::chrono::seconds(1));
  }
  Status backward(const BackwardArgs&) override { return Status::failure("no backward"); }
};

}  // namespace

void register_host_selftest_backends(Registry& registry) {
  registry.add(std::make_unique<PlantedFaultBackend>(PlantedFaultBackend::Kind::abort));
  registry.add(std::make_unique<PlantedFaultBackend>(PlantedFaultBackend::Kind::hang));
  registry.add(std::make_unique<StrayEventBackend>());
  registry.add(std::make_unique<GarbledAbortBackend>());
  registry.add(std::make_unique<BadResultBackend>());
  registry.add(std::make_unique<StdoutFloodBackend>());
}

}  // namespace vsa
