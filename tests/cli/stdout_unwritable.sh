# A command whose result is its stdout has not delivered it when stdout cannot be written (here a
# full disk, /dev/full): exit 4 and a message on stderr, not 0 (fuzz review, 2026-12-07). A stdout
# closed before the start is another matter: keep_standard_fds_open (util/process.hpp) puts
# /dev/null there, so that no file the command opens takes descriptor 1.
source "$(dirname "$0")/lib.sh"
[ -w /dev/full ] || { echo "SKIP: no /dev/full on this machine"; exit 0; }
for cmd in "list" "list cases smoke" "info --json"; do
  # shellcheck disable=SC2086  # the command's words
  "$BIN" $cmd >/dev/full 2>"$WORK/err"; rc=$?
  [ "$rc" -eq 4 ] || { cat "$WORK/err"; fail "$cmd > /dev/full: exit $rc, expected 4"; }
  grep -q "could not write its output to stdout" "$WORK/err" || { cat "$WORK/err"; fail "$cmd: no message"; }
done
# The same commands into a writable stdout still exit 0.
"$BIN" list >"$WORK/out" 2>"$WORK/err" || { cat "$WORK/err"; fail "list: exit $?"; }
[ -s "$WORK/out" ] || fail "list printed nothing"
echo "ok"
