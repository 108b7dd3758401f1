# Fail closed (issue 20): a node that has NVIDIA GPUs on its PCI bus, or a run that
# asked for GPUs, must not pass as a CPU-only run when CUDA cannot use them. The PCI
# bus is a fake sysfs tree (VSA_SYSFS_PCI_DEVICES); CUDA here has no device.
source "$(dirname "$0")/lib.sh"
fake_pci() {  # fake_pci DIR ADDRESS VENDOR CLASS
  mkdir -p "$1/$2"; echo "$3" >"$1/$2/vendor"; echo "$4" >"$1/$2/class"
}
run_rc() {  # run_rc NAME ARGS...: runs `vsa-bench run` quietly, output in $WORK/NAME.out
  local name="$1"; shift
  "$BIN" run --quiet --case cpu-ref/minimal-1-0 --out "$WORK/$name" "$@" >"$WORK/$name.out" 2>&1
  echo $?
}
export VSA_SYSFS_PCI_DEVICES="$WORK/pci-none"
fake_pci "$WORK/pci-none" 0000:00:01.0 0x8086 0x060000

# 1. --devices 7 where CUDA cannot start: exit 4 with the reason, and a report fleet counts as failed.
rc=$(run_rc devices7 --devices 7)
[ "$rc" -eq 4 ] || { cat "$WORK/devices7.out"; fail "--devices 7 without CUDA: exit $rc, expected 4"; }
grep -q -- "--devices 7 asked for GPUs" "$WORK/devices7.out" || { cat "$WORK/devices7.out"; fail "no reason for --devices 7"; }
report="$(ls "$WORK"/devices7/*.json)" || fail "no report for the refused run"
[ "$(json_get "$report" "d['exit_code']")" = "4" ] || fail "refused report: exit_code not 4"
[ "$(json_get "$report" "len(d['cases'])")" = "0" ] || fail "refused report ran cases"
"$BIN" fleet "$WORK/devices7" >"$WORK/fleet.out" 2>&1; frc=$?
[ "$frc" -eq 1 ] || { cat "$WORK/fleet.out"; fail "fleet counted the refused node as passing (exit $frc)"; }
grep -q "not run: --devices 7" "$WORK/fleet.out" || { cat "$WORK/fleet.out"; fail "fleet does not say why"; }

# 2. PCI shows an NVIDIA 3D controller, CUDA none: exit 4 naming the GPU, without any flag.
fake_pci "$WORK/pci-gpu" 0000:19:00.0 0x10de 0x030200
fake_pci "$WORK/pci-gpu" 0000:19:00.1 0x10de 0x040300
export VSA_SYSFS_PCI_DEVICES="$WORK/pci-gpu"
rc=$(run_rc pcigpu)
[ "$rc" -eq 4 ] || { cat "$WORK/pcigpu.out"; fail "PCI shows a GPU, CUDA none: exit $rc, expected 4"; }
grep -q "1 NVIDIA GPU(s) (0000:19:00.0)" "$WORK/pcigpu.out" || { cat "$WORK/pcigpu.out"; fail "the PCI GPU is not named (or the audio function counted)"; }

# 3. ... unless the CPU-only run is deliberate.
rc=$(run_rc pcinone --devices none)
[ "$rc" -eq 0 ] || { cat "$WORK/pcinone.out"; fail "--devices none on a GPU node: exit $rc, expected 0"; }

# 4. An NVIDIA function that is not a display controller (audio, NVSwitch bridge) is not a GPU.
export VSA_SYSFS_PCI_DEVICES="$WORK/pci-audio"
fake_pci "$WORK/pci-audio" 0000:19:00.1 0x10de 0x040300
fake_pci "$WORK/pci-audio" 0000:05:00.0 0x10de 0x068000
rc=$(run_rc audio)
[ "$rc" -eq 0 ] || { cat "$WORK/audio.out"; fail "no GPU (only NVIDIA audio/bridge): exit $rc, expected 0"; }

# 5. --expect-gpus N: CUDA must use exactly N.
rc=$(run_rc expect --expect-gpus 8)
[ "$rc" -eq 4 ] || { cat "$WORK/expect.out"; fail "--expect-gpus 8 with none: exit $rc, expected 4"; }
grep -q -- "--expect-gpus 8: CUDA cannot use any GPU" "$WORK/expect.out" || { cat "$WORK/expect.out"; fail "no reason for --expect-gpus"; }
rc=$(run_rc expect0 --expect-gpus 0)
[ "$rc" -eq 0 ] || { cat "$WORK/expect0.out"; fail "--expect-gpus 0 on a GPU-less node: exit $rc, expected 0"; }
# 6. Input, not a node: a typo in --devices, or flags that contradict each other, is exit 2 and
# writes no report (a report would say the node's GPU is unusable).
for args in "--devices bogus" "--devices 1x" "--require-gpu --devices none" "--expect-gpus 2 --devices none"; do
  # shellcheck disable=SC2086
  rc=$(run_rc usage $args)
  [ "$rc" -eq 2 ] || { cat "$WORK/usage.out"; fail "$args: exit $rc, expected 2"; }
  [ ! -e "$WORK/usage" ] || fail "$args: a report was written"
done
grep -q -- "--expect-gpus 2 contradicts --devices none" "$WORK/usage.out" || { cat "$WORK/usage.out"; fail "no reason"; }
# 7. selftest judges its default (--devices all) as run does (review of 2026-12-06): on a node
# whose GPU CUDA cannot use it is refused (exit 4) rather than pass on SKIP rows; with no GPU on
# the bus it reads SKIP rows (tests/cli/selftest.sh), and --devices none is deliberate.
export VSA_SYSFS_PCI_DEVICES="$WORK/pci-gpu"
"$BIN" selftest --quiet --hang-timeout 3 --race-runs 10 >"$WORK/selftest.out" 2>&1; rc=$?
[ "$rc" -eq 4 ] || { cat "$WORK/selftest.out"; fail "selftest on a GPU node CUDA cannot use: exit $rc, expected 4"; }
grep -q "^not run: this node has GPUs, but CUDA cannot use any GPU" "$WORK/selftest.out" \
  || { cat "$WORK/selftest.out"; fail "selftest: no refusal line"; }
"$BIN" selftest --quiet --devices none --hang-timeout 3 --race-runs 10 >"$WORK/selftest-none.out" 2>&1 \
  || { cat "$WORK/selftest-none.out"; fail "selftest --devices none on a GPU node: exit $?, expected 0"; }
echo "ok"
