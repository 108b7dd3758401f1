# scripts/slurm/vsa-bench.sbatch on a real one-node Slurm stood up on localhost:
# munged, slurmctld and slurmd run from a temp dir with their own config and ports;
# the job runs two tasks with VSA_DEVICES=none (CPU checks, no GPU needed) and must
# leave one report per task, labelled with the node name, plus the fleet tables.
# scripts/test.sh installs slurm-wlm and munge (install_slurm), so CI runs it; skipped
# (77) only where they are missing or we are not root (slurmd starts job steps).
source "$(dirname "$0")/lib.sh"
skip() { echo "SKIP: $*"; exit 77; }
for tool in munged slurmctld slurmd sbatch sinfo scontrol; do
  command -v "$tool" >/dev/null || skip "$tool is not installed (Debian: apt-get install slurm-wlm munge)"
done
[ "$(id -u)" -eq 0 ] || skip "slurmd must run as root to start job steps"

daemons=()
cleanup() {
  for pid in "${daemons[@]}"; do kill "$pid" 2>/dev/null; done
  for pid in "${daemons[@]}"; do wait "$pid" 2>/dev/null; done
  rm -rf "$WORK"
}
trap cleanup EXIT
show_logs() { for f in "$WORK"/log/*; do echo "== $f"; tail -n 30 "$f"; done; }

mkdir -p "$WORK"/{munge,state,spool,log,out}
chmod 700 "$WORK" "$WORK/munge"
dd if=/dev/urandom of="$WORK/munge/munge.key" bs=1024 count=1 status=none && chmod 400 "$WORK/munge/munge.key"
munged --force --foreground --socket="$WORK/munge/munge.socket" --key-file="$WORK/munge/munge.key" \
  --pid-file="$WORK/munge/munged.pid" --seed-file="$WORK/munge/seed" >"$WORK/log/munged.log" 2>&1 &
daemons+=($!)

node="$(hostname -s)"
port=$((20000 + $$ % 20000))  # away from the default 6817/6818 of a real cluster
export SLURM_CONF="$WORK/slurm.conf"
cat >"$SLURM_CONF" <<CONF
ClusterName=vsalocal
SlurmctldHost=$node
SlurmctldPort=$port
SlurmdPort=$((port + 1))
SlurmUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$WORK/munge/munge.socket
StateSaveLocation=$WORK/state
SlurmdSpoolDir=$WORK/spool
SlurmctldPidFile=$WORK/slurmctld.pid
SlurmdPidFile=$WORK/slurmd.pid
SlurmctldLogFile=$WORK/log/slurmctld.log
SlurmdLogFile=$WORK/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
MpiDefault=none
SchedulerType=sched/builtin
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
ReturnToService=2
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
NodeName=$node NodeAddr=127.0.0.1 CPUs=$(nproc) State=UNKNOWN
PartitionName=local Nodes=$node Default=YES MaxTime=INFINITE State=UP
CONF
for _ in $(seq 50); do [ -S "$WORK/munge/munge.socket" ] && break; sleep 0.1; done
[ -S "$WORK/munge/munge.socket" ] || { show_logs; fail "munged did not start"; }
slurmctld -D -i >"$WORK/log/slurmctld.out" 2>&1 &
daemons+=($!)
slurmd -D >"$WORK/log/slurmd.out" 2>&1 &
daemons+=($!)
for _ in $(seq 60); do
  state="$(sinfo -h -n "$node" -o %T 2>/dev/null)"
  [ "$state" = idle ] && break
  sleep 0.5
done
[ "$state" = idle ] || { show_logs; fail "the local node did not come up (state: '$state')"; }

# The sbatch file as shipped, minus its GPU request (this node has no GRES); the rest
# of its #SBATCH lines are overridden on the command line to fit this machine.
sed '/^#SBATCH --gpus-per-node/d' "$SRC/scripts/slurm/vsa-bench.sbatch" >"$WORK/vsa-bench.sbatch"
VSA_BENCH="$BIN" VSA_OUT="$WORK/out" VSA_DEVICES=none \
  sbatch --wait --chdir="$WORK" --ntasks-per-node=2 --cpus-per-task=1 --output="$WORK/job.out" \
  "$WORK/vsa-bench.sbatch" >"$WORK/sbatch.out" 2>&1
rc=$?
cat "$WORK/job.out" 2>/dev/null
[ "$rc" -eq 0 ] || { cat "$WORK/sbatch.out"; show_logs; fail "job exit $rc, expected 0"; }
for task in 0 1; do
  report="$(ls "$WORK/out/$node/task$task"/*.json 2>/dev/null)"
  [ -n "$report" ] || fail "no report from task $task"
  [ "$(json_get "$report" "d['label']")" = "$node" ] || fail "task $task: label is not the node name"
  [ "$(json_get "$report" "d['node']['launcher']['kind']")" = slurm ] || fail "task $task: launcher not recorded"
  [ "$(json_get "$report" "d['node']['launcher']['slurm_localid']")" = "$task" ] || fail "task $task: SLURM_LOCALID"
done
[ -s "$WORK/out/fleet.md" ] || fail "no fleet.md"
grep -qF "2 reports from 1 host" "$WORK/out/fleet.md" || { cat "$WORK/out/fleet.md"; fail "fleet did not read both reports"; }
grep -qF "| driver | GSP firmware | VBIOS | CUDA toolkit |" "$WORK/job.out" || fail "fleet tables not in the job log"
[ "$(json_get "$WORK/out/fleet.json" "d['schema'], len(d['nodes'])")" = "('vsa-bench/fleet', 2)" ] || fail "fleet.json"
grep -q "vsa-bench fleet:" "$WORK/job.out" && fail "fleet complained in the job log"
echo "ok"
