import re, sys, collections
# Sums the per-step times of "[cuda profile]" lines (one per task) of one run.
tot = collections.Counter(); n = 0; rows = 0
for line in open(sys.argv[1], errors="replace"):
    if not line.startswith("[cuda profile]"): continue
    n += 1
    parts = line.strip().split(" | ")
    rows += int(parts[0].split()[-1])
    for p in parts[1:]:
        m = re.match(r"(.*) ([0-9.]+) ms$", p)
        if m: tot[m.group(1)] += float(m.group(2))
print(f"tasks {n} rows {rows} " + " ".join(f"[{k}] {v:.1f}" for k, v in sorted(tot.items(), key=lambda kv: -kv[1])) + f" sum {sum(tot.values()):.1f} ms")
