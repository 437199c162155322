#!/usr/bin/env bash
# Device call 10 (4 GPUs): forward with every served block read before the exchange, against
# the reads inside the exchange loop (c93f005 + 0f9ad3a); Kronecker 24 at --parts 4, static.
set -u
R=$PWD
mkdir -p /tmp/p /tmp/g && tar xzf build-pack/new10.tgz -C /tmp/p
export LD_LIBRARY_PATH=/tmp/p:${LD_LIBRARY_PATH:-}
nvidia-smi -L > $OUT/device.txt
/tmp/p/base/bin/tricount-partition --input kronecker:24 --output /tmp/g/k24n4.h5 --parts 4 -q
BUILDS="base:/tmp/p/base new:/tmp/p/new" REPEATS=3 OUT=/tmp/ng VARIANTS="file1x4:--schedule static --load-path file|fwd2x2:--schedule static --ranks-per-node 3 --load-path forward" \
  timeout 300 bash $R/bench/bench_node_gpus.sh /tmp/g/k24n4.h5 4 > $OUT/node_k24n4.md 2>&1
cat $OUT/node_k24n4.md
python3 -c "
import json
for n in ['base-fwd2x2','new-fwd2x2']:
  d=json.load(open('/tmp/ng/%s-g4-r2.json'%n))
  print(n, [(r['rank'], round(r.get('forward_seconds',0),3), round(r.get('load_seconds',0),3)) for r in d['per_rank']])
" | tee $OUT/forward_ranks.txt
