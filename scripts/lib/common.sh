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
  install_peer_python
}

# torch (and numpy) for tests/cli/peers.sh and dump.sh: scripts/peers checked on the CPU.
# The H200 node's torch version, so the tests run the FlexAttention code the node runs.
VSA_TORCH_VERSION="${VSA_TORCH_VERSION:-2.11.0}"
# PyPI's only Linux x86-64 torch wheels are CUDA builds. Without their nvidia-* dependencies
# `import torch` fails (libcufile.so.0 not found): libtorch links the CUDA libraries even where
# nothing calls them. The full dependency set is ~4.6 GB and ~3 min to install here; this
# machine's CUDA toolkit (/usr/local/cuda, on the loader path) already has cudart, cuBLAS,
# cuFFT, cuSPARSE, NVRTC, cuDNN and NCCL, so the light route installs torch without
# dependencies plus the three libraries the toolkit lacks (cuFile, cuSPARSELt, NVSHMEM, at the
# versions torch 2.11.0 pins) and torch's pure-Python dependencies: ~1.6 GB, ~1.5 min. Where
# that torch does not import (another toolkit), pip resolves torch's full dependencies instead.
# The venv lives outside the clone (CI clones afresh each run; pip keeps no copy of these
# downloads here), keyed by torch and Python versions, and is reused by later runs and
# clones; .tools/torch-venv links to it so tests run by hand find it too.
install_peer_python() {
  if [ -n "${VSA_PYTHON:-}" ]; then return; fi  # the caller's own python with torch
  local tag; tag="$(python3 -c 'import sys; print("cp%d%d" % sys.version_info[:2])')"
  local cache="${VSA_CACHE_DIR:-${XDG_CACHE_HOME:-${HOME:-$VSA_TOOLS}/.cache}/vsa-bench}"
  local venv="$cache/torch-$VSA_TORCH_VERSION-$tag"
  local probe="import numpy, torch; from torch.nn.attention.flex_attention import flex_attention"
  mkdir -p "$cache" "$VSA_TOOLS"
  (
    flock 9  # CI and developers' worktrees on one machine share the venv
    if ! "$venv/bin/python" -c "$probe" 2>/dev/null; then
      say "installing torch $VSA_TORCH_VERSION for the CPU (PyPI, ~1.6 GB) into $venv"
      [ -x "$venv/bin/python" ] || python3 -m venv "$venv"
      local pip=("$venv/bin/python" -m pip install -q --disable-pip-version-check)
      "${pip[@]}" filelock "typing-extensions>=4.10" "setuptools<82" "sympy>=1.13.3" "networkx>=2.5.1" jinja2 \
        "fsspec>=0.8.5" numpy
      "${pip[@]}" --no-deps "torch==$VSA_TORCH_VERSION" nvidia-cufile==1.15.1.6 nvidia-cusparselt-cu13==0.8.0 \
        nvidia-nvshmem-cu13==3.4.5
      if ! "$venv/bin/python" -c "$probe" 2>/dev/null; then
        say "torch does not import with this machine's CUDA libraries: installing its full dependencies (~3 GB more)"
        "${pip[@]}" "torch==$VSA_TORCH_VERSION" numpy
      fi
      "$venv/bin/python" -c "$probe"
    fi
  ) 9>"$cache/torch.lock"
  ln -sfn "$venv" "$VSA_TOOLS/torch-venv"
  export VSA_PYTHON="$VSA_TOOLS/torch-venv/bin/python"
}

configure_and_build() {
  local nvcc; nvcc="$(find_nvcc)"
  say "configuring ($VSA_BUILD) with $nvcc"
  cmake -S "$VSA_ROOT" -B "$VSA_BUILD" -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_COMPILER="$nvcc" "$@" >/dev/null
  say "building with $VSA_JOBS jobs (the sm_90a and sm_100a images take a few minutes)"
  cmake --build "$VSA_BUILD" -j "$VSA_JOBS"
}
