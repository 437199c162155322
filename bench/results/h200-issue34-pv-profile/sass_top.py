# Condenses ncu's per-SASS-instruction CSV (ncu --page source --print-source sass --csv):
# per kernel, the instructions executed by opcode, and the SASS lines run most often.
import csv, sys, collections
rows = list(csv.reader(open(sys.argv[1])))
kernels, cur = [], None
for r in rows:
    if len(r) >= 2 and r[0] == "Kernel Name":
        cur = {"name": r[1], "lines": []}; kernels.append(cur); hdr = None; continue
    if r and r[0] == "Address": hdr = r; continue
    if cur is not None and hdr and len(r) == len(hdr):
        d = dict(zip(hdr, r))
        try: n = int(d["Instructions Executed"].replace(",", "") or 0)
        except ValueError: continue
        cur["lines"].append((d["Address"], d["Source"], n, d.get("Warp Stall Sampling (All Samples)", "")))
for k in kernels:
    tot = sum(n for _, _, n, _ in k["lines"])
    print("==", k["name"], "instructions", tot, "sass lines", len(k["lines"]))
    ops = collections.Counter()
    for _, s, n, _ in k["lines"]: ops[s.split()[0] if not s.startswith("@") else s.split()[1]] += n
    print("  by opcode:", ", ".join("%s %.1f%%" % (o, 100.0 * n / tot) for o, n in ops.most_common(25)))
    for a, s, n, st in sorted(k["lines"], key=lambda x: -x[2])[:int(sys.argv[2]) if len(sys.argv) > 2 else 0]:
        print("  %s %10d %s | stall %s" % (a, n, s[:90], st))
    for a, s, n, st in k["lines"]:
        if n * 2000 >= tot: print("  L %s %10d %s | %s" % (a, n, s[:100], st))
