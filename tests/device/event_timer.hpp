#pragma once
// Device time of host-issued work, measured with a pair of CUDA events on one stream (the
// way the harness times, app/engine/timing.cpp): the one timer of the device tests and
// drivers. Events are created once and destroyed with the timer.
//
//   EventTimer timer;
//   const float ms = timer.time_ms(stream, [&] { launch(); });   // after the work is queued
#include <cuda_runtime_api.h>

#include "device_buffers.hpp"

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

}  // namespace vsa::test
