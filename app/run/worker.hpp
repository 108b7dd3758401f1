#pragma once
// Child side of worker isolation: `vsa-bench __worker --device N` reads one
// JSON request per line on stdin and answers on stdout:
//   {"op": "hello"}               -> {"event": "hello", "devices": [...], "note": ..., "images": ...,
//                                     "images_by_device": ...} (run/kernel_images.hpp)
//   {"op": "case", "case": {...}} -> {"event": "start", ...}* then {"event": "result", ...}
//   {"op": "plugins", "queries": [shape_query...]} -> {"event": "plugins", "plugins": [describe_plugin...],
//                                  "shape_support": [{"backend", "query", "ok", "reason"}]}
//   {"op": "list"}                -> {"event": "list", "backends": [the plugin backends as `list` shows them]}
// After a sticky CUDA error it answers the case and exits: the context is gone.
// With --plugin PATH (repeatable) it loads those plugins first (docs/plugins.md); when
// one cannot be loaded, every request is answered {"event": "error", "message": why}.
#include <string>
#include <vector>

namespace vsa {

[[nodiscard]] int worker_main(int device_ordinal, const std::vector<std::string>& plugins);

}  // namespace vsa
