# Sourced by every device script that takes a build folder (or a vsa-bench path).
# A carried `pack_build.sh --xz` folder holds only slim.tar.xz until the call unpacks it. A
# script run on it fails every step with exit 127 and its table says nothing of why; three
# device calls were lost to that. So each script checks first, before it writes anything:
#   require_build SCRIPT DIR [PROGRAM]   DIR must hold PROGRAM (default vsa-bench), executable
#   require_program SCRIPT PATH          PATH must be an executable file (its folder: the build)
# Either exits 2 with what to do (the tar command when the folder holds slim.tar.xz).
refuse_build() {
  local script="$1" dir="$2" bin="$3"
  if [ -f "$dir/slim.tar.xz" ]; then
    echo "$script: $dir holds slim.tar.xz, not an unpacked build: run tar xJf $dir/slim.tar.xz -C $dir first" >&2
  elif [ ! -d "$dir" ]; then
    echo "$script: $dir: no such folder (the build folder, carried to this node?)" >&2
  else
    echo "$script: $bin is not an executable file: the build folder must hold a built $(basename "$bin")" >&2
  fi
  exit 2
}
require_build() {
  local dir="${2%/}"
  local bin="$dir/${3:-vsa-bench}"
  [ -f "$bin" ] && [ -x "$bin" ] || refuse_build "$1" "$dir" "$bin"
}
require_program() { [ -f "$2" ] && [ -x "$2" ] || refuse_build "$1" "$(dirname "$2")" "$2"; }
