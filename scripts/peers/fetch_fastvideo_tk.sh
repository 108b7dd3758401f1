#!/usr/bin/env bash
# Fetch the upstream sources of the fastvideo-tk plugin (peers/fastvideo_tk) at the pinned
# commits into an ignored folder. Nothing fetched is ever committed.
#   scripts/peers/fetch_fastvideo_tk.sh [--fastvideo REPO] [--thunderkittens REPO] [--out DIR]
# REPO: a git checkout or a bare mirror that holds the pinned commit; without one, the
# commit alone is fetched from GitHub (network needed). DIR defaults to .peers/fastvideo_tk.
# Takes only what the build reads (~1.5 MiB, so it travels in a device carry):
#   FastVideo/fastvideo-kernel/csrc/attention/block_sparse_h100.cu   (+ FastVideo/LICENSE)
#   ThunderKittens/include/**                                         (+ ThunderKittens/LICENSE)
# (block_sparse_h100.cu includes only "kittens.cuh" from ThunderKittens, which reaches
# include/ alone: prototype/ is not needed) and writes DIR/UPSTREAM with the commits and the
# git blob id of the .cu (a record: peers/fastvideo_tk/build.sh checks its own pinned hashes).
# Also, from the same FastVideo commit, the one file of its Triton VSA kernels that
# scripts/peers/fastvideo_peer.py loads, into .peers/fastvideo_triton/ (--triton-out DIR),
# where scripts/device/peers_check.sh picks it up:
#   FastVideo/fastvideo-kernel/python/fastvideo_kernel/triton_kernels/block_sparse_attn_triton.py
set -euo pipefail
FASTVIDEO_COMMIT=2f3d4074064e4d86f99dc784ebbaa296e6f5925f
TK_COMMIT=6c27e28c8115d1839d9eeeb530913c184a75fc87
SRC="$(cd "$(dirname "$0")/../.." && pwd)"
fv_repo=""; tk_repo=""; out="$SRC/.peers/fastvideo_tk"; triton_out="$SRC/.peers/fastvideo_triton"
while [ $# -gt 0 ]; do
  case "$1" in
    --fastvideo) fv_repo="$2"; shift 2 ;;
    --thunderkittens) tk_repo="$2"; shift 2 ;;
    --out) out="$2"; shift 2 ;;
    --triton-out) triton_out="$2"; shift 2 ;;
    *) sed -n '2,17p' "$0"; exit 2 ;;
  esac
done
tmp="$(mktemp -d)"; trap 'rm -rf "$tmp"' EXIT

# A git directory that holds COMMIT: the one given, or a fresh bare repo with only that
# commit fetched from GitHub.
repo_with() {  # URL COMMIT GIVEN -> prints a git dir
  local url="$1" commit="$2" given="$3" dir
  if [ -n "$given" ]; then
    dir="$(git -C "$given" rev-parse --absolute-git-dir)"
  else
    dir="$tmp/$(basename "$url").git"
    git init -q --bare "$dir"
    git -C "$dir" fetch -q --depth 1 "$url" "$commit" >&2
  fi
  git --git-dir="$dir" cat-file -e "$commit^{commit}" 2>/dev/null \
    || { echo "fetch_fastvideo_tk: $commit is not in $dir ($url)" >&2; return 1; }
  echo "$dir"
}

fv_git="$(repo_with https://github.com/hao-ai-lab/FastVideo "$FASTVIDEO_COMMIT" "$fv_repo")"
tk_git="$(repo_with https://github.com/HazyResearch/ThunderKittens "$TK_COMMIT" "$tk_repo")"
cu=fastvideo-kernel/csrc/attention/block_sparse_h100.cu

stage="$tmp/stage"; mkdir -p "$stage/FastVideo" "$stage/ThunderKittens"
# The two FastVideo files one by one (git show, not git archive: a mirror may lack the
# repository's large media blobs, and archive complains about every tree it walks).
mkdir -p "$stage/FastVideo/$(dirname "$cu")"
git --git-dir="$fv_git" show "$FASTVIDEO_COMMIT:$cu" > "$stage/FastVideo/$cu"
git --git-dir="$fv_git" show "$FASTVIDEO_COMMIT:LICENSE" > "$stage/FastVideo/LICENSE"
git --git-dir="$tk_git" archive "$TK_COMMIT" include LICENSE | tar -x -C "$stage/ThunderKittens"
blob="$(git --git-dir="$fv_git" rev-parse "$FASTVIDEO_COMMIT:$cu")"
{
  echo "fastvideo_commit=$FASTVIDEO_COMMIT"
  echo "thunderkittens_commit=$TK_COMMIT"
  echo "fastvideo_file=$cu"
  echo "fastvideo_blob=$blob"
} > "$stage/UPSTREAM"

mkdir -p "$out"
rm -rf "$out/FastVideo" "$out/ThunderKittens" "$out/UPSTREAM"
mv "$stage/FastVideo" "$stage/ThunderKittens" "$stage/UPSTREAM" "$out/"
echo "fetched into $out ($(du -sh "$out" --exclude=build | cut -f1)):"
cat "$out/UPSTREAM"

triton=fastvideo-kernel/python/fastvideo_kernel/triton_kernels/block_sparse_attn_triton.py
mkdir -p "$triton_out"
git --git-dir="$fv_git" show "$FASTVIDEO_COMMIT:$triton" > "$tmp/triton.py"
git --git-dir="$fv_git" show "$FASTVIDEO_COMMIT:LICENSE" > "$triton_out/LICENSE"
mv "$tmp/triton.py" "$triton_out/$(basename "$triton")"
echo "fastvideo_commit=$FASTVIDEO_COMMIT $triton" > "$triton_out/UPSTREAM"
echo "fetched $(basename "$triton") into $triton_out"
