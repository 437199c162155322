#!/usr/bin/env bash
# Issue 34's table on one H200: main 1119d97 against GroupTC, GroupTC-OPT, GroupTC-Cuckoo
# (Nanqipro/GroupTC-HS-BS @ 2c0273c) and WeTriC (jeffreyspaan/wedge-parallel-triangle-counting
# @ 92083d7), built outside the repository as ../shared/peers/README.md says, each timed by its
# own timer, every count checked against tricount's; ../shared/peers/run_single.sh unchanged.
set -u
mkdir -p /tmp/base /tmp/peers
tar xJf build-pack/base.txz -C /tmp/base && tar xzf build-pack/peers.tgz -C /tmp/peers
cp /tmp/base/libboost_program_options.so.1.74.0 /tmp/base/bin/
cd /tmp && PEERS1_BIN=/tmp/peers/bin PEERS1_DEVBIN=/tmp/base/bin PEERS1_WORK=/tmp/w PEERS1_BUDGET_S=${BUDGET:-520} \
  bash /tmp/peers/run_single.sh > $OUT/run1_console.txt 2>&1
cp $OUT/peers1/table.txt $OUT/run1_table.txt 2>/dev/null
