#!/usr/bin/env bash
# Fetch ThunderKittens' headers at a pinned commit that has its sm_100a (tcgen05) wrappers, into
# an ignored folder, for the peer run of scripts/sm100a/wrapper_opcodes.py (--peer-tk): the
# wrapper check must stay quiet on code nobody here wrote. Nothing fetched is ever committed.
# (The fastvideo-tk plugin pins an older commit, for Hopper, without these wrappers.)
#   scripts/peers/fetch_tk_blackwell.sh [--thunderkittens REPO] [--out DIR]
# REPO: a git checkout or bare mirror holding the commit; without one the commit alone is
# fetched from GitHub (network needed). DIR defaults to .peers/thunderkittens_sm100.
set -euo pipefail
TK_COMMIT=0b55588d2769dde0c7a9a606ffc015b0ca7a9551
SRC="$(cd "$(dirname "$0")/../.." && pwd)"
repo=""; out="$SRC/.peers/thunderkittens_sm100"
while [ $# -gt 0 ]; do
  case "$1" in
    --thunderkittens) repo="$2"; shift 2 ;;
    --out) out="$2"; shift 2 ;;
    *) sed -n '2,9p' "$0"; exit 2 ;;
  esac
done
tmp="$(mktemp -d)"; trap 'rm -rf "$tmp"' EXIT
if [ -n "$repo" ]; then
  git_dir="$(git -C "$repo" rev-parse --absolute-git-dir)"
else
  git_dir="$tmp/tk.git"; git init -q --bare "$git_dir"
  git -C "$git_dir" fetch -q --depth 1 https://github.com/HazyResearch/ThunderKittens "$TK_COMMIT"
fi
git --git-dir="$git_dir" cat-file -e "$TK_COMMIT^{commit}" 2>/dev/null \
  || { echo "fetch_tk_blackwell: $TK_COMMIT is not in $git_dir" >&2; exit 1; }
mkdir -p "$tmp/stage"
git --git-dir="$git_dir" archive "$TK_COMMIT" include LICENSE | tar -x -C "$tmp/stage"
echo "thunderkittens_commit=$TK_COMMIT" > "$tmp/stage/UPSTREAM"
rm -rf "$out"; mkdir -p "$(dirname "$out")"; mv "$tmp/stage" "$out"
echo "fetched ThunderKittens $TK_COMMIT headers into $out ($(du -sh "$out" | cut -f1))"
