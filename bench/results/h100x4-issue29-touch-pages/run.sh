#!/usr/bin/env bash
# Device call 12 (4 GPUs): forward with each received block's pages mapped on the loader
# threads before the receive, against without (c93f005 + 0f9ad3a); Kronecker 24 --parts 4.
set -u
R=$PWD
mkdir -p /tmp/p /tmp/g && tar xzf build-pack/new12.tgz -C /tmp/p
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
  print(n, [(r['rank'], round(r.get('forward_seconds',0),3)) for r in d['per_rank']])
" | tee $OUT/forward_ranks.txt
