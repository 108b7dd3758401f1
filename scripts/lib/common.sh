# Shared by scripts/quickstart.sh and scripts/test.sh: install what is missing
# (Debian packages, the PyPI disassembler for `lint`, the Python test packages), then
# configure and build.
# Idempotent: a second run installs nothing and rebuilds only what changed.
set -euo pipefail

VSA_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
VSA_BUILD="${VSA_BUILD:-$VSA_ROOT/build}"
VSA_TOOLS="${VSA_TOOLS:-$VSA_ROOT/.tools}"
VSA_JOBS="${VSA_JOBS:-$(nproc)}"

say() { printf '\033[1m== %s\033[0m\n' "$*" >&2; }

sudo_if_needed() { if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi; }

install_debian_packages() {
  local wanted=(build-essential cmake git python3 python3-venv libcli11-dev libspdlog-dev libfmt-dev
                libeigen3-dev nlohmann-json3-dev libgtest-dev clang-format
                libboost-context-dev libssl-dev slurm-wlm munge)
  local missing=()
  for p in "${wanted[@]}"; do dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p"); done
  if [ "${#missing[@]}" -gt 0 ]; then
    say "installing Debian packages: ${missing[*]}"
    sudo_if_needed apt-get update -qq
    sudo_if_needed env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
  fi
}

find_nvcc() {
  if command -v nvcc >/dev/null 2>&1; then command -v nvcc; return; fi
  for c in /usr/local/cuda/bin/nvcc /usr/local/cuda-*/bin/nvcc; do [ -x "$c" ] && { echo "$c"; return; }; done
  echo "error: no CUDA toolkit (nvcc) found. vsa-bench needs CUDA 12.8 or newer (sm_100a); install NVIDIA's" \
       "cuda-toolkit package into /usr/local/cuda (https://developer.nvidia.com/cuda-downloads) and re-run." >&2
  exit 2
}

# cuobjdump for `vsa-bench lint`: the toolkit's, else the PyPI wheel in a project venv.
install_disassembler() {
  local nvcc_dir; nvcc_dir="$(dirname "$(find_nvcc)")"
  if [ -x "$nvcc_dir/cuobjdump" ]; then export VSA_CUOBJDUMP="$nvcc_dir/cuobjdump"; return; fi
  local found; found="$(ls "$VSA_TOOLS"/venv/lib/python3*/site-packages/nvidia/cu*/bin/cuobjdump 2>/dev/null | head -n1 || true)"
  if [ -z "$found" ]; then
    say "installing cuobjdump (PyPI nvidia-cuda-cuobjdump) into $VSA_TOOLS/venv"
    python3 -m venv "$VSA_TOOLS/venv"
    "$VSA_TOOLS/venv/bin/python" -m pip install -q --disable-pip-version-check nvidia-cuda-cuobjdump nvidia-cuda-nvdisasm
    found="$(ls "$VSA_TOOLS"/venv/lib/python3*/site-packages/nvidia/cu*/bin/cuobjdump | head -n1)"
  fi
  export VSA_CUOBJDUMP="$found"
}

# Python packages the tests need (tests/cli/schema.sh: jsonschema, for docs/schema/; exports.sh:
# prometheus_client, whose text-format parser checks `run --metrics`; plot.sh: matplotlib), in the
# same project venv; VSA_TOOLS_PYTHON tells the tests which interpreter has them (VSA_PYTHON is
# the one with torch, for tests/cli/peers.sh).
install_python_test_tools() {
  local py="$VSA_TOOLS/venv/bin/python"
  if [ ! -x "$py" ]; then
    say "creating $VSA_TOOLS/venv"
    python3 -m venv "$VSA_TOOLS/venv"
  fi
  if ! "$py" -c "import jsonschema, matplotlib, prometheus_client, yaml" 2>/dev/null; then
    say "installing jsonschema, matplotlib, prometheus_client and pyyaml (PyPI) into $VSA_TOOLS/venv"
    "$py" -m pip install -q --disable-pip-version-check "jsonschema>=4.18" matplotlib prometheus_client pyyaml
  fi
  # NVBench's own nvbench_compare (PyPI cuda-bench, its "compare" extra) reads our NVBench
  # exports in tests/cli/nvbench_export.sh. Its wheels are per Python version: where none fits,
  # that test checks with its own reader only, so a failed install is said, not fatal.
  if [ ! -x "$VSA_TOOLS/venv/bin/nvbench-compare-legacy" ]; then
    say "installing cuda-bench[compare] (PyPI: NVBench's nvbench_compare) into $VSA_TOOLS/venv"
    "$py" -m pip install -q --disable-pip-version-check "cuda-bench[compare]" ||
      say "cuda-bench could not be installed: the NVBench export test uses its own reader only"
  fi
  export VSA_TOOLS_PYTHON="$py"
}

configure_and_build() {
  local nvcc; nvcc="$(find_nvcc)"
  say "configuring ($VSA_BUILD) with $nvcc"
  cmake -S "$VSA_ROOT" -B "$VSA_BUILD" -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_COMPILER="$nvcc" "$@" >/dev/null
  say "building with $VSA_JOBS jobs (the sm_90a and sm_100a images take a few minutes)"
  cmake --build "$VSA_BUILD" -j "$VSA_JOBS"
}
