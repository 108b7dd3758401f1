#pragma once
// A tiny fork-join loop for the CPU reference: independent work items spread over
// std::threads. Items are claimed dynamically, so which thread runs an item varies
// run to run; callers make every item's result depend on the item alone, which is
// what keeps the reference's output independent of the thread count.
#include <cstdint>
#include <functional>

#include "vsa/backend.hpp"

namespace vsa::ref {

// Threads to use for `items` items when `requested` were asked for (0: one per
// hardware thread). Never more than the items, never less than 1.
[[nodiscard]] int worker_count(int requested, std::int64_t items);

// Calls work(worker, item) for every item in [0, items) with worker in [0, workers).
// An exception thrown by `work` (e.g. std::bad_alloc) stops the loop and comes back
// as a failed Status; nothing escapes a thread.
[[nodiscard]] Status for_each_item(std::int64_t items, int workers,
                                   const std::function<void(int worker, std::int64_t item)>& work);

}  // namespace vsa::ref
