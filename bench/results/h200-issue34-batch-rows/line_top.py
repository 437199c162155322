# Condenses ncu's per-source-line CSV (ncu --page source --print-source cuda|sass --csv): per
# kernel, the lines with the most instructions executed and the most stall samples.
import csv, sys
rows = list(csv.reader(open(sys.argv[1])))
top = int(sys.argv[2]) if len(sys.argv) > 2 else 30
kernels, cur, hdr = [], None, None
for r in rows:
    if len(r) >= 2 and r[0] == "Kernel Name":
        cur = {"name": r[1], "lines": []}; kernels.append(cur); hdr = None; continue
    if r and r[0] in ("Address", "Line", "#"): hdr = r; continue
    if cur is not None and hdr and len(r) == len(hdr):
        d = dict(zip(hdr, r))
        def num(k):
            try: return int(float((d.get(k) or "0").replace(",", "")))
            except ValueError: return 0
        key = d.get("Address") or d.get("Line") or d.get("#")
        cur["lines"].append((key, d.get("Source", ""), num("Instructions Executed"), num("Warp Stall Sampling (All Samples)")))
for k in kernels:
    st = sum(x[3] for x in k["lines"]) or 1
    ins = sum(x[2] for x in k["lines"]) or 1
    print("==", k["name"][:80], "instructions", ins, "stall samples", st)
    print("-- by instructions")
    for a, s, n, smp in sorted(k["lines"], key=lambda x: -x[2])[:top]:
        print("  %6s %5.1f%% ins %5.1f%% stall  %s" % (a[-6:], 100.0 * n / ins, 100.0 * smp / st, s.strip()[:110]))
    print("-- by stall samples")
    for a, s, n, smp in sorted(k["lines"], key=lambda x: -x[3])[:top]:
        print("  %6s %5.1f%% ins %5.1f%% stall  %s" % (a[-6:], 100.0 * n / ins, 100.0 * smp / st, s.strip()[:110]))
