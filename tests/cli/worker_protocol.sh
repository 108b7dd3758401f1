# A worker that breaks the protocol must cost its case, never the run (issue 20: each of
# these aborted the parent, SIGABRT, and the report lost its cases). Planted host
# backends: JSON lines that are not objects then an abort with a stderr tail cut inside
# a UTF-8 character (FAULT, valid UTF-8 reason); a result with fields missing (FAIL);
# 80 MiB on stdout without a newline (FAULT, bounded memory, well before the timeout).
source "$(dirname "$0")/lib.sh"
cat >"$WORK/proto.json" <<'JSON'
{"defaults": {"B": 1, "H": 1, "D": 32, "S": 128, "op": "fwd", "reference": "cpu-naive", "timeout_s": 60},
 "cases": [
   {"name": "garbled", "backends": ["selftest-garbled-abort"]},
   {"name": "bad-result", "backends": ["selftest-bad-result"]},
   {"name": "flood", "backends": ["selftest-stdout-flood"]},
   {"name": "after", "backends": ["cpu-ref"]}
 ]}
JSON
start=$(date +%s)
timeout 300 "$BIN" run "$WORK/proto.json" --devices none --quiet --out "$WORK/out" >"$WORK/stdout" 2>"$WORK/stderr"
rc=$?
elapsed=$(( $(date +%s) - start ))
[ "$rc" -eq 4 ] || { cat "$WORK/stdout" "$WORK/stderr" | tail -30; fail "exit $rc, expected 4 (a FAULT; 134 is the parent aborting)"; }
[ "$elapsed" -lt 50 ] || fail "took ${elapsed}s: the flood waited for its 60 s timeout"
report="$(ls "$WORK"/out/*.json)" || fail "no report"
python3 - "$report" <<'PY' || fail "report"
import json, sys
raw = open(sys.argv[1], "rb").read()
raw.decode("utf-8")  # strict: the report is valid UTF-8
d = json.loads(raw)
assert d["complete"] is True, "report not complete"
c = {x["name"].split("/")[-1]: x for x in d["cases"]}
assert list(c) == ["garbled", "bad-result", "flood", "after"], list(c)
g = c["garbled"]
assert g["verdict"] == "FAULT", g
reason = g["backends"][0]["reason"]
assert "signal 6" in reason, reason
tail = reason.split("during forward: ", 1)[1]
assert tail.startswith("\u00e9\u00e9"), repr(tail[:10])   # cut moved to a whole character
assert "\ufffd" not in tail, "the cut character reached the report as U+FFFD"
b = c["bad-result"]
assert b["verdict"] == "FAIL" and "the worker sent a malformed \"result\" message" in b["message"], b
f = c["flood"]
assert f["verdict"] == "FAULT", f
assert "more than 64 MiB to stdout without a newline during forward" in f["message"], f["message"]
assert c["after"]["verdict"] == "PASS", c["after"]
PY
# The hello answer carries each GPU's own kernel images (run/kernel_images.hpp) beside the
# process's: with no GPU, none per device; with GPUs, one entry per CUDA ordinal.
printf '{"op": "hello"}\n{"op": "exit"}\n' | timeout 60 "$BIN" __worker --device -1 >"$WORK/hello" 2>"$WORK/hello.err" ||
  fail "hello: $(tail -3 "$WORK/hello.err")"
python3 - "$WORK/hello" <<'PY' || fail "hello"
import json, sys
h = json.loads(open(sys.argv[1]).readline())
assert h["event"] == "hello", h
assert "cpu-ref" in h["images"], h["images"]
per = h["images_by_device"]
assert isinstance(per, dict), per
assert sorted(per) == sorted(str(d["ordinal"]) for d in h["devices"]), (per, h["devices"])
PY
echo "ok"
