#!/usr/bin/env bash
# Several experiment switches of one build against each other on a GPU node, in one call:
# SUITE runs with each variant in the order v1 .. vn vn .. v1 (clock and power drift cancel
# between a variant's two runs), then `vsa-bench compare` of all the runs, ratios against the
# first. No correctness check here: check each variant first (ab_builds.sh does, for two).
#   scripts/device/ab_variants.sh BUILD_DIR OUT_DIR SUITE VARIANT... [-- extra run args...]
# A variant is a label with optional environment settings, separated by colons:
#   default                                  the build as it is
#   pair:VSA_SM90A_FWD_PAIR_TILES=1          one switch
#   noshare:VSA_SM90A_FWD_PAIR_TILES=1:VSA_SM90A_FWD_PAIR_NO_SHARE=1
# Exit: 0 when every run exited 0, else the first failing run's exit code.
set -uo pipefail
source "$(dirname "$0")/lib/build_dir.sh"
require_build ab_variants.sh "${1:?build dir}"
BUILD="${1:?build dir}"; OUT="${2:?output dir}"; SUITE="${3:?suite}"; shift 3
variants=(); extra=()
while [ $# -gt 0 ]; do
  if [ "$1" = -- ]; then shift; extra=("$@"); break; fi
  variants+=("$1"); shift
done
[ "${#variants[@]}" -ge 2 ] || { echo "ab_variants.sh: give at least two variants" >&2; exit 2; }
mkdir -p "$OUT"
status=0
order=("${variants[@]}")
for ((k = ${#variants[@]} - 1; k >= 0; k--)); do order+=("${variants[$k]}"); done
runs=()
i=0
for spec in "${order[@]}"; do
  i=$((i + 1))
  label="r$i-${spec%%:*}"
  settings=()
  [ "$spec" != "${spec%%:*}" ] && IFS=: read -r -a settings <<<"${spec#*:}"
  rm -rf "${OUT:?}/$label"
  env "${settings[@]}" "$BUILD/vsa-bench" run "$SUITE" --out "$OUT/$label" --label "$label" --quiet "${extra[@]}" >/dev/null
  rc=$?
  [ "$status" = 0 ] && [ "$rc" != 0 ] && status=$rc
  echo "== $label exit $rc"
  runs+=("$OUT/$label"/*.json)
done
echo "== compare (A = ${order[0]%%:*}; columns in run order: ${order[*]%%:*})"
"$BUILD/vsa-bench" compare "${runs[@]}" | sed -n '/## Performance/,/## Backend/p'
exit "$status"
