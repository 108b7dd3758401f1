#pragma once
// Child side of worker isolation: `vsa-bench __worker --device N` reads one
// JSON request per line on stdin and answers on stdout:
//   {"op": "hello"}               -> {"event": "hello", "devices": [...], "note": ...}
//   {"op": "case", "case": {...}} -> {"event": "start", ...}* then {"event": "result", ...}
// After a sticky CUDA error it answers the case and exits: the context is gone.
namespace vsa {

[[nodiscard]] int worker_main(int device_ordinal);

}  // namespace vsa
