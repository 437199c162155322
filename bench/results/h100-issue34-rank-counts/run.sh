#!/usr/bin/env bash
# Device call 7 (issue 34): per-vertex w tally by key rank on bitmap CTA rows, one branch per
# element in the thread kernels. GPU tests; per-vertex on/off for the seven bench_cuda graphs,
# base (main 1f54848) vs new vs new with rank-counts=0; a per-step profile of Kronecker 24;
# the per-vertex output at 1 GPU (issue 31).
set -u
R=$PWD
mkdir -p /tmp/base /tmp/new /tmp/g && tar xzf build-pack/base7.tgz -C /tmp/base && tar xzf build-pack/new7.tgz -C /tmp/new
cp /tmp/new/libboost_program_options.so.1.74.0 /tmp/base/
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
export OMPI_MCA_hwloc_base_binding_policy=none OMPI_MCA_btl_vader_single_copy_mechanism=none
export LD_LIBRARY_PATH=/tmp/new:${LD_LIBRARY_PATH:-}
nvidia-smi -L | tee $OUT/device.txt
N=/tmp/new/bin
spec() {
  case $1 in
    k*) echo "kronecker:${1#k}" ;;
    u20) echo "uniform:vertices=1048576,edges=16777216" ;;
    u24) echo "uniform:vertices=16777216,edges=268435456" ;;
    g128) echo "grid3d:128" ;;
  esac
}
GRAPHS="k18 k20 u20 g128 k23 u24 k24"
( for g in $GRAPHS; do $N/tricount-partition --input "$(spec $g)" --output /tmp/g/$g.h5 --parts 1 --memory-budget 100G -q || echo "partition $g failed"; done ) > $OUT/prep.log 2>&1 &
PP=$!
( cd /tmp/new/tests && export TRICOUNT_BIN_DIR=$N
  for t in test_cuda_per_vertex test_per_vertex_cuda test_cuda_backend; do
    echo "== $t"; timeout 200 ./$t 2>&1 | grep -E "FAILED|Failure|PASSED|SKIPPED \]|error:|Expected|Which is|actual" | head -20; done ) > $OUT/gputests.log 2>&1
cat $OUT/gputests.log
wait $PP; cat $OUT/prep.log; ls -la /tmp/g
for g in $GRAPHS; do
  for v in base new new-hashed; do
    d=/tmp/new; t=""; [ $v = base ] && d=/tmp/base; [ $v = new-hashed ] && t=rank-counts=0
    line=$(TRICOUNT_BENCH_REPS=5 TRICOUNT_BENCH_FILE=/tmp/g/$g.h5 TRICOUNT_BENCH_TUNING="$t" LD_LIBRARY_PATH=$d timeout 120 $d/tests/cuda_bench per-vertex 2>&1 | tee -a $OUT/bench.log | grep '^BENCHPV ')
    echo "$g $v ${line#BENCHPV }" | tee -a $OUT/pv.txt
  done
done
python3 - $OUT/pv.txt <<'PY' | tee $OUT/pv_table.md
import json, sys
rows = {}
for l in open(sys.argv[1]):
    g, v, rest = l.split(" ", 2)
    try: rows[(g, v)] = json.loads(rest)
    except Exception: rows[(g, v)] = None
print("| graph | triangles | base off | base on | base on/off | new off | new on | new on/off | rank-counts=0 on/off |")
print("|---|---|---|---|---|---|---|---|---|")
for g in "k18 k20 u20 g128 k23 u24 k24".split():
    b, n, h = rows.get((g, "base")), rows.get((g, "new")), rows.get((g, "new-hashed"))
    f = lambda r, k: ("%.3f" % r[k]) if r else "-"
    print(f"| {g} | {n['triangles'] if n else '-'} | {f(b,'off_ms_median')} | {f(b,'on_ms_median')} | {f(b,'ratio')} | {f(n,'off_ms_median')} | {f(n,'on_ms_median')} | {f(n,'ratio')} | {f(h,'ratio')} |")
PY
# Per-step profile of Kronecker 24 (and 20), off and on.
for g in k20 k24; do for pv in off on; do
  a=(); [ $pv = on ] && a=(--per-vertex /tmp/pv-$g.h5)
  timeout 120 $N/tricount-count -i /tmp/g/$g.h5 --backend cuda --cuda-tuning profile=1 -q "${a[@]}" > $OUT/prof-$g-$pv.log 2>&1
  echo "$g $pv $(python3 build-pack/prof.py $OUT/prof-$g-$pv.log)" | tee -a $OUT/prof.txt
done; done
# Issue 31: the per-vertex output at 1 GPU, Kronecker 24 --parts 1.
mkdir -p /tmp/pv && ln -sf /tmp/g/k24.h5 /tmp/pv/kron24.p1.h5 && touch /tmp/pv/kron24.bin64
mkdir -p /tmp/nb && ln -sfn /tmp/new/bin /tmp/nb/bin
BUILD=/tmp/nb WORK=/tmp/pv PARTS=1 REPS=2 timeout 150 bash $R/bench/bench_per_vertex.sh 24 2 > $OUT/per_vertex.txt 2>&1; tail -12 $OUT/per_vertex.txt
