# Sourced by every device script that takes a build folder (or a vsa-bench path).
# A carried `pack_build.sh --xz` folder holds only slim.tar.xz until the call unpacks it. A
# script run on it fails every step with exit 127 and its table says nothing of why; three
# device calls were lost to that. So each script checks first, before it writes anything:
#   require_build SCRIPT DIR        DIR must hold an executable vsa-bench
#   require_vsa_bench SCRIPT PATH   PATH must be an executable file
# Either exits 2 with what to do (the tar command when DIR holds slim.tar.xz).
require_vsa_bench() {
  local script="$1" bin="$2" dir
  [ -f "$bin" ] && [ -x "$bin" ] && return 0
  dir="$(dirname "$bin")"
  if [ -f "$dir/slim.tar.xz" ]; then
    echo "$script: $dir holds slim.tar.xz, not an unpacked build: run tar xJf $dir/slim.tar.xz -C $dir first" >&2
  elif [ ! -d "$dir" ]; then
    echo "$script: $dir: no such folder (the build folder, carried to this node?)" >&2
  else
    echo "$script: $bin is not an executable file: the build folder must hold a built vsa-bench" >&2
  fi
  exit 2
}
require_build() { require_vsa_bench "$1" "${2%/}/vsa-bench"; }
