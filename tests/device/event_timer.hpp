#pragma once
// Device time of host-issued work, measured with a pair of CUDA events on one stream (the
// way the harness times, app/engine/timing.cpp): the one timer of the device tests and
// drivers. Events are created once and destroyed with the timer.
//
//   EventTimer timer;
//   const float ms = timer.time_ms(stream, [&] { launch(); });   // after the work is queued
#include <cuda_runtime_api.h>

#include <algorithm>
#include <functional>
#include <stdexcept>
#include <vector>

#include "device_buffers.hpp"
#include "vsa/backend.hpp"  // Status

namespace vsa::test {

class EventTimer {
 public:
  EventTimer() {
    check_cuda(cudaEventCreate(&m_start), "cudaEventCreate");
    check_cuda(cudaEventCreate(&m_stop), "cudaEventCreate");
  }
  EventTimer(const EventTimer&) = delete;
  EventTimer& operator=(const EventTimer&) = delete;
  ~EventTimer() {
    (void)cudaEventDestroy(m_start);
    (void)cudaEventDestroy(m_stop);
  }

  // Milliseconds from before `work()` queues its launches on `stream` to when they finish.
  template <class Work>
  float time_ms(cudaStream_t stream, Work&& work) {
    check_cuda(cudaEventRecord(m_start, stream), "cudaEventRecord");
    work();
    check_cuda(cudaEventRecord(m_stop, stream), "cudaEventRecord");
    check_cuda(cudaEventSynchronize(m_stop), "cudaEventSynchronize");
    float ms = 0;
    check_cuda(cudaEventElapsedTime(&ms, m_start, m_stop), "cudaEventElapsedTime");
    return ms;
  }

 private:
  cudaEvent_t m_start = nullptr;
  cudaEvent_t m_stop = nullptr;
};

// Batches of back-to-back launches keep the queue full, so host-side launch work (tensor
// maps, two launches) overlaps the previous run as it would inside a model. Several launches
// take turns batch by batch (A B A B ...), so all see the same clocks, where timing all of A
// before all of B gives B whatever the card's boost did meanwhile (run 53: on an H100 the plain
// forward read 10-16% slower than the H200's and its traced variant only 4-8%, each timed in
// its own block). Returns, per launch, the per-launch time of each batch in ms, sorted.
inline std::vector<std::vector<float>> time_launches_in_turn(const std::vector<std::function<Status()>>& launches,
                                                             cudaStream_t stream, int batches = 20, int per_batch = 10,
                                                             int warmup = 5) {
  const auto run = [](const std::function<Status()>& launch) {
    if (Status st = launch(); !st.ok()) throw std::runtime_error(st.error);
  };
  for (int i = 0; i < warmup; ++i)
    for (const auto& launch : launches) run(launch);
  EventTimer timer;
  std::vector<std::vector<float>> ms(launches.size());
  for (int b = 0; b < batches; ++b)
    for (std::size_t l = 0; l < launches.size(); ++l)
      ms[l].push_back(timer.time_ms(stream, [&] {
        for (int i = 0; i < per_batch; ++i) run(launches[l]);
      }) / float(per_batch));
  for (auto& times : ms) std::sort(times.begin(), times.end());
  return ms;
}

inline std::vector<float> time_launches(const std::function<Status()>& launch, cudaStream_t stream, int batches = 20,
                                        int per_batch = 10, int warmup = 5) {
  return time_launches_in_turn({launch}, stream, batches, per_batch, warmup)[0];
}

}  // namespace vsa::test
