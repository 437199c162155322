#!/usr/bin/env bash
# rows_bench.cpp (built here against main b5574ee's libraries, `mpicxx -std=c++20 -O2`):
# rank 0's per-vertex rows on 2^20-row pieces at 1-16 threads, a memcpy of 64 MiB, and
# starting and joining that many threads, on the H200 host's 16 vCPUs; twice.
set -u
nproc; for r in 1 2; do ./build-pack/rows_bench; done 2>&1 | tee $OUT/rows_bench.txt
