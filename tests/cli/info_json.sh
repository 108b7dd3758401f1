#!/usr/bin/env bash
# `vsa-bench info --json` answers on any node, GPU or not, with exit 0 and a JSON
# document holding the build, the node (with launcher fields from the environment)
# and one entry per device; with no device, a note says why.
# Usage: info_json.sh <vsa-bench> <source dir>
set -euo pipefail
bin="$1"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

check() {  # check <json file> <expect "cuda" | "no-cuda">
  python3 - "$1" "$2" <<'PY'
import json, sys
path, mode = sys.argv[1], sys.argv[2]
doc = json.load(open(path))
def need(obj, keys, where):
    missing = [k for k in keys if k not in obj]
    assert not missing, f"{where}: missing keys {missing}"
need(doc, ["build", "node", "devices", "notes"], "document")
need(doc["build"], ["version", "git_sha", "build_type", "cxx_compiler", "cuda_compiler", "cuda_toolkit"], "build")
node = doc["node"]
need(node, ["hostname", "label", "launcher", "kernel_release", "os", "cpu_model", "cpus_online", "cpus_allowed"], "node")
assert node["hostname"], "empty hostname"
assert node["label"] == "rack-test", node["label"]
launcher = node["launcher"]
assert launcher["kind"] == "slurm", launcher
assert launcher["rank"] == 3 and launcher["local_rank"] == 1, launcher
assert launcher["job_id"] == "777" and launcher["node_name"] == "test-node", launcher
assert isinstance(doc["devices"], list) and isinstance(doc["notes"], list)
device_keys = ["nvml_index", "cuda_ordinal", "name", "uuid", "serial", "pci_bus_id", "driver_version",
               "cuda_driver_version", "cuda_runtime_version", "vbios_version", "gsp_firmware_version",
               "gsp_firmware_enabled", "inforom_image_version", "ecc_enabled", "ecc_uncorrected_volatile",
               "power_limit_w", "sm_clock_mhz", "sm_clock_max_mhz", "persistence_mode", "mig_enabled", "mig_uuid", "temperature_c",
               "memory_total_bytes", "cc_major", "cc_minor", "sm_count", "l2_cache_bytes",
               "smem_per_block_optin_bytes", "sm_clock_peak_khz"]
for i, dev in enumerate(doc["devices"]):
    need(dev, device_keys, f"devices[{i}]")
    if mode == "no-cuda":
        assert dev["cuda_ordinal"] is None and dev["cc_major"] is None, f"--no-cuda queried CUDA: {dev}"
    elif dev["cuda_ordinal"] is None:  # CUDA failed; NVML's list stands in, with a note
        assert any(n.startswith("no CUDA device") for n in doc["notes"]), doc["notes"]
    else:
        assert dev["cuda_ordinal"] == i, dev
if not doc["devices"]:
    assert doc["notes"], "no device and no note saying why"
print(f"{mode}: {len(doc['devices'])} device(s), {len(doc['notes'])} note(s)")
for note in doc["notes"]:
    print("  note:", note)
PY
}

export SLURM_PROCID=3 SLURM_LOCALID=1 SLURM_JOB_ID=777 SLURMD_NODENAME=test-node
"$bin" info --json --label rack-test > "$tmp/cuda.json"
check "$tmp/cuda.json" cuda
"$bin" info --json --no-cuda --label rack-test > "$tmp/nvml.json"
check "$tmp/nvml.json" no-cuda
