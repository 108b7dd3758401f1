# "No shell is ever involved" (issue 20, what must keep holding): vsa-bench starts other
# programs only through util/process (fork + execv of an absolute path with an argv, no
# PATH search, no shell), so a file name or argument can never be read as a command.
# A static check over the product sources, and a run whose suite path and label-free
# arguments hold shell syntax that must stay text.
source "$(dirname "$0")/lib.sh"
hits="$(grep -rnE '\b(system|popen|posix_spawnp?|execlp?|execvp|execvpe|execle|wordexp|fork|vfork|execv)\s*\(' \
          "$SRC/app" "$SRC/kernels" "$SRC/reference" "$SRC/tools" \
          --include='*.cpp' --include='*.hpp' --include='*.cu' --include='*.cuh' \
        | grep -v "^$SRC/app/util/process.cpp:")"
[ -z "$hits" ] || { echo "$hits"; fail "a process is started outside app/util/process.cpp"; }
hits="$(grep -rnE '"(/bin/)?(ba|da)?sh"' "$SRC/app" --include='*.cpp' --include='*.hpp')"
[ -z "$hits" ] || { echo "$hits"; fail "a shell is named in app/"; }
grep -q '::execv(args\[0\], args)' "$SRC/app/util/process.cpp" || fail "util/process.cpp no longer uses execv"
# A suite whose path is shell syntax: read as a file name, nothing executed.
BIN="$(readlink -f "$BIN")"
mkdir -p "$WORK/d"
evil="$WORK/d/\$(touch pwned);\`touch pwned2\`.json"
printf '{"cases": [{"name": "x", "S": 128, "D": 32, "op": "fwd", "backends": ["cpu-ref"], "reference": "cpu-naive"}]}' >"$evil"
(cd "$WORK/d" && "$BIN" run "$evil" --devices none --quiet --out "$WORK/out" >"$WORK/stdout" 2>&1) \
  || { cat "$WORK/stdout"; fail "run"; }
[ ! -e "$WORK/d/pwned" ] && [ ! -e "$WORK/d/pwned2" ] || fail "shell syntax in a path was executed"
[ "$(json_get "$(ls "$WORK"/out/*.json)" "d['cases'][0]['verdict']")" = "PASS" ] || fail "the case did not run"
echo "ok"
