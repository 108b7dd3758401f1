#include "parallel_items.hpp"

#include <algorithm>
#include <atomic>
#include <exception>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace vsa::ref {

int worker_count(int requested, std::int64_t items) {
  std::int64_t n = requested > 0 ? requested : std::int64_t(std::thread::hardware_concurrency());
  n = std::min(n, items);
  return int(std::max<std::int64_t>(n, 1));
}

Status for_each_item(std::int64_t items, int workers, const std::function<void(int, std::int64_t)>& work) {
  std::atomic<std::int64_t> next{0};
  std::atomic<bool> failed{false};
  std::mutex error_mutex;
  std::string first_error;

  const auto run = [&](int worker) {
    try {
      for (std::int64_t item = next++; item < items && !failed; item = next++) work(worker, item);
    } catch (const std::exception& e) {
      const std::lock_guard lock(error_mutex);
      if (!failed.exchange(true)) first_error = e.what();
    } catch (...) {
      const std::lock_guard lock(error_mutex);
      if (!failed.exchange(true)) first_error = "unknown exception";
    }
  };

  workers = std::max(workers, 1);
  std::vector<std::thread> threads;
  try {
    threads.reserve(std::size_t(workers - 1));
    for (int w = 1; w < workers; ++w) threads.emplace_back(run, w);
  } catch (...) {
    // Could not start every thread (std::system_error, std::bad_alloc): the threads
    // that did start, and this one, still claim every item, so the work completes.
  }
  run(0);  // the calling thread is worker 0
  for (auto& t : threads) t.join();
  if (failed) return Status::failure("cpu reference: " + first_error);
  return Status::success();
}

}  // namespace vsa::ref
