# Condenses ncu's per-SASS-instruction CSV (ncu --page source --print-source sass --csv):
# per kernel, the stall samples in all and the SASS lines with the most, with their source line.
import csv, sys
rows = list(csv.reader(open(sys.argv[1])))
top = int(sys.argv[2]) if len(sys.argv) > 2 else 30
kernels, cur, hdr = [], None, None
for r in rows:
    if len(r) >= 2 and r[0] == "Kernel Name":
        cur = {"name": r[1], "lines": []}; kernels.append(cur); hdr = None; continue
    if r and r[0] == "Address": hdr = r; continue
    if cur is not None and hdr and len(r) == len(hdr):
        d = dict(zip(hdr, r))
        def num(k):
            try: return int((d.get(k) or "0").replace(",", ""))
            except ValueError: return 0
        cur["lines"].append((d["Address"], d["Source"], num("Instructions Executed"), num("Warp Stall Sampling (All Samples)")))
for k in kernels:
    st = sum(x[3] for x in k["lines"]) or 1
    ins = sum(x[2] for x in k["lines"])
    print("==", k["name"], "instructions", ins, "stall samples", st)
    for a, s, n, smp in sorted(k["lines"], key=lambda x: -x[3])[:top]:
        print("  %s %10d %5.1f%% %s" % (a[-5:], n, 100.0 * smp / st, s[:100]))
