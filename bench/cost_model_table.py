#!/usr/bin/env python3
"""The cost model's held-out validation from bench/validate_cost_model.sh's archives (issue 21).

    python3 bench/cost_model_table.py TOOL RESULTS DIR...

TOOL is bench/cost_model_tool (built beside the tests), RESULTS the folder the models,
predictions, tables (tables.md, rows.json) and plots go to, DIR the unpacked archives (each
with journal/, report/, shape/). Nothing here needs the block files: the shapes stand in.

GPU runs (journal k{S}_n{n}_m{m}):
  model H (held-out): fitted on every Kronecker 24 run and the Kronecker 25 runs at n = 4;
    predicts every other run from its shape (the block file's /task_work and block sizes) and
    from the graph's size (the family fitted on the n = 2 shapes of scales 16-25, even tasks).
  model all: fitted on every GPU run (the model for predictions at scale).
Measured: count = the journal's task seconds less their load column (counting, uploads and
per-task overhead), load = the load column, total = the report's seconds.schedule.
Predicted: the same three (count includes the predicted uploads).

CPU runs (journal cpu_k{S}_n{n}_w{W}, W workers of CORES/W threads): model cpu fitted on the
W = 1 runs (every scale); W workers predicted through the scheduler's policy (predict_runs) with the count
terms scaled by threads(1) / threads(W).
"""
import glob
import json
import math
import os
import re
import subprocess
import sys

BAND = 0.15
TRAIN = [(24, None), (25, 4)]  # (scale, parts or None for every n): model H's runs


def journal_totals(path):
    count = load = 0.0
    tasks = 0
    with open(path) as f:
        for line in f:
            if line.startswith("#"):
                continue
            fields = line.split()
            if len(fields) < 6:
                continue
            count += float(fields[2]) - float(fields[5])
            load += float(fields[5])
            tasks += 1
    return count, load, tasks


def report_of(path):
    r = json.load(open(path))
    workers = [p for p in r["per_rank"] if p["role"] != "scheduler"]
    return {
        "schedule": r["seconds"]["schedule"],
        "total": r["seconds"]["total"],
        "triangles": r["triangles"],
        "transfer_seconds": sum(p.get("transfer_seconds", 0.0) for p in workers),
        "bytes_loaded": sum(int(p.get("bytes_loaded", 0)) for p in workers),
        "load_per_worker": [p.get("load_seconds", 0.0) for p in workers],
        "device": r.get("device", ""),
    }


def pct(predicted, measured):
    return 100.0 * (predicted - measured) / measured if measured > 0 else float("nan")


class Runs:
    def __init__(self, dirs):
        self.gpu, self.cpu, self.shapes = {}, {}, {}
        for d in dirs:
            for s in glob.glob(os.path.join(d, "shape", "*.json")):
                self.shapes[os.path.basename(s)[:-5]] = s
            for j in glob.glob(os.path.join(d, "journal", "*.journal")):
                name = os.path.basename(j)[:-8]
                rep = os.path.join(d, "report", name + ".json")
                if not os.path.exists(rep) or os.path.getsize(j) == 0:
                    continue
                m = re.fullmatch(r"k(\d+)_n(\d+)_m(\d+)", name)
                c = re.fullmatch(r"cpu_k(\d+)_n(\d+)_w(\d+)", name)
                run = {"name": name, "journal": j, "report": report_of(rep)}
                run["count"], run["load"], run["tasks"] = journal_totals(j)
                if m:
                    run.update(scale=int(m[1]), parts=int(m[2]), splits=int(m[3]))
                    self.gpu[name] = run
                elif c:
                    run.update(scale=int(c[1]), parts=int(c[2]), workers=int(c[3]), splits=1)
                    self.cpu[name] = run

    def shape(self, scale, parts):
        return self.shapes.get(f"k{scale}_n{parts}")


def tool_fit(tool, model_path, backend, device, runs, shapes, samples):
    args = [tool, "fit", model_path, backend, device, "page cache"]
    for run in runs:
        args += ["--run", run["journal"], shapes.shape(run["scale"], run["parts"])]
        rep = run["report"]
        if rep["bytes_loaded"] > 0:
            args += ["--transfer", repr(rep["transfer_seconds"]), str(rep["bytes_loaded"])]
    for scale in samples:
        args += ["--sample", str(scale), shapes.shape(scale, 2)]
    subprocess.run(args, check=True)
    return json.load(open(model_path))


def tool_predict(tool, model_path, run, shape=None, factor=1.0, gpus=1):
    args = [tool, "predict", model_path, "--splits", str(run["splits"]), "--gpus", str(gpus), "--count-factor", repr(factor)]
    args += ["--shape", shape] if shape else ["--scale", str(run["scale"]), "--parts", str(run["parts"])]
    p = json.loads(subprocess.run(args, check=True, capture_output=True, text=True).stdout)
    pt = p["points"][0]
    return {"count": pt["count_seconds_all_gpus"] + pt["upload_seconds_all_gpus"], "load": pt["load_seconds_all_gpus"],
            "total": pt["predicted_seconds"], "work": p["total_work"], "tasks": pt["tasks"]}


def model_line(name, fitted_on, m):
    up = 1e-9 / m["upload_seconds_per_byte"] if m["upload_seconds_per_byte"] > 0 else 0
    k = m["kronecker"]
    fam = ""
    if k["fitted"]:
        fam = (f"; family on scales {k['scales']}: log2 |V| = {k['log2_vertices']['intercept']:.3f} + "
               f"{k['log2_vertices']['slope']:.4f} S, log2 |E| = {k['log2_edges']['intercept']:.3f} + "
               f"{k['log2_edges']['slope']:.4f} S, log2 W = {k['log2_total_work']['intercept']:.3f} + "
               f"{k['log2_total_work']['slope']:.4f} S")
    load = 1e-9 / m["load_seconds_per_byte"] if m["load_seconds_per_byte"] > 0 else 0
    return (f"| {name} | {fitted_on} | {m['tasks_fitted']} | {m['task_overhead_seconds'] * 1e3:.3f} | "
            f"{m['seconds_per_work'] * 1e12:.3f} | {m['seconds_per_row'] * 1e9:.3f} | {m['count_r2']:.3f} | "
            f"{m.get('load_seconds_per_block', 0) * 1e3:.2f} | {m.get('load_seconds_per_row', 0) * 1e9:.2f} | {load:.2f} | {up:.2f} |{fam}")


def gpu_tables(tool, results, runs, out):
    rows = []
    if not runs.gpu:
        return rows
    device = next(iter(runs.gpu.values()))["report"]["device"] or "GPU"
    scales = sorted({r["scale"] for r in runs.gpu.values()})
    # The held-out fit: TRAIN's runs; its family rests on no scale above the largest trained.
    train = [r for r in runs.gpu.values() if any(r["scale"] == s and n in (None, r["parts"]) for s, n in TRAIN)]
    top = max(s for s, _ in TRAIN)
    samples = sorted(s for s in {int(k[1:].split("_")[0]) for k in runs.shapes if k.endswith("_n2")} if s <= top)
    models = {
        "H": (tool_fit(tool, os.path.join(results, "model_H.json"), "cuda", device, train, runs, samples),
              "; ".join(f"Kronecker {s}" + (f" n = {n}" if n else " all n") for s, n in TRAIN) + ", all m"),
        "all": (tool_fit(tool, os.path.join(results, "model_all.json"), "cuda", device, list(runs.gpu.values()), runs,
                         sorted(s for s in {int(k[1:].split("_")[0]) for k in runs.shapes if k.endswith("_n2")})),
                "every GPU run"),
    }
    out.append("| model | fitted on | tasks | overhead ms/task | s per 10^12 work | ns per row | R² (per task) | load ms/block | load ns/row | load GB/s | upload GB/s |")
    out.append("|---|---|---|---|---|---|---|---|---|---|---|")
    for name, (m, on) in models.items():
        out.append(model_line(name, on, m).split("; family")[0])
    for name, (m, on) in models.items():
        fam = model_line(name, on, m).split("; family", 1)
        if len(fam) == 2:
            out.append(f"\nModel {name} family{fam[1]}.")
    trained = {r["name"] for r in train}
    order = sorted(runs.gpu.values(), key=lambda r: (r["scale"], r["parts"], r["splits"]))
    for r in order:
        role = "fit" if r["name"] in trained else "held out"
        for source, shape in (("shape", runs.shape(r["scale"], r["parts"])), ("family", None)):
            p = tool_predict(tool, os.path.join(results, "model_H.json"), r, shape)
            rows.append({"run": r["name"], "scale": r["scale"], "parts": r["parts"], "splits": r["splits"], "role": role,
                         "model": "H", "source": source, "tasks": r["tasks"], "pred": p,
                         "meas": {"count": r["count"], "load": r["load"], "total": r["report"]["schedule"]},
                         "triangles": r["report"]["triangles"]})
    for source in ("shape", "family"):
        out.append(f"\n**Model H, predicted from the {'block file shape (/task_work, block sizes)' if source == 'shape' else 'graph size (family, even tasks)'}** "
                   "(count s, load s, total s: predicted / measured, error)\n")
        out.append("| run | role | tasks | count s | err | load s | err | total s | err |")
        out.append("|---|---|---|---|---|---|---|---|---|")
        for row in rows:
            if row["source"] != source:
                continue
            p, m = row["pred"], row["meas"]
            out.append(f"| {row['run']} | {row['role']} | {row['tasks']} | {p['count']:.3f} / {m['count']:.3f} | {pct(p['count'], m['count']):+.1f}% "
                       f"| {p['load']:.3f} / {m['load']:.3f} | {pct(p['load'], m['load']):+.1f}% "
                       f"| {p['total']:.3f} / {m['total']:.3f} | {pct(p['total'], m['total']):+.1f}% |")
        for role in ("fit", "held out"):
            sel = [r for r in rows if r["source"] == source and r["role"] == role]
            if not sel:
                continue
            worst = [max(abs(pct(r["pred"][k], r["meas"][k])) for r in sel) for k in ("count", "load", "total")]
            inside = sum(1 for r in sel if abs(pct(r["pred"]["total"], r["meas"]["total"])) <= 100 * BAND)
            out.append(f"\n{role}, from the {source}: {inside} of {len(sel)} totals within 15%; largest error count "
                       f"{worst[0]:.1f}%, load {worst[1]:.1f}%, total {worst[2]:.1f}%.")
    # Model all, in sample (every run fitted): how well one model holds every n, m and scale.
    errs = []
    for r in order:
        p = tool_predict(tool, os.path.join(results, "model_all.json"), r, runs.shape(r["scale"], r["parts"]))
        errs.append((r["name"], pct(p["count"], r["count"]), pct(p["load"], r["load"]), pct(p["total"], r["report"]["schedule"])))
    inside = sum(1 for e in errs if abs(e[3]) <= 100 * BAND)
    out.append(f"\nModel all, in sample from the shapes: {inside} of {len(errs)} totals within 15%; largest error count "
               f"{max(abs(e[1]) for e in errs):.1f}%, load {max(abs(e[2]) for e in errs):.1f}%, total {max(abs(e[3]) for e in errs):.1f}% "
               f"(" + ", ".join(f"{e[0]} {e[3]:+.1f}%" for e in errs if abs(e[3]) > 100 * BAND) + ").")
    return rows


def cpu_tables(tool, results, runs, out, cores=16):
    rows = []
    ones = [r for r in runs.cpu.values() if r["workers"] == 1]
    if not ones:
        return rows
    model_path = os.path.join(results, "model_cpu.json")
    m = tool_fit(tool, model_path, "cpu", f"{cores} cores, one worker of {cores} threads", ones, runs, [])
    out.append(f"\n**CPU workers** (model cpu: fitted on the W = 1 runs, Kronecker {', '.join(str(r['scale']) for r in ones)})\n")
    out.append("| model | fitted on | tasks | overhead ms/task | s per 10^12 work | ns per row | R² (per task) | load ms/block | load ns/row | load GB/s | upload GB/s |")
    out.append("|---|---|---|---|---|---|---|---|---|---|---|")
    out.append(model_line("cpu", "W = 1", m).split("; family")[0])
    out.append("")
    out.append("| graph | W | threads | tasks | load s/worker mean (max) | total s pred / meas | err | speedup pred / meas |")
    out.append("|---|---|---|---|---|---|---|---|")
    for scale in sorted({r["scale"] for r in runs.cpu.values()}):
        sel = sorted((r for r in runs.cpu.values() if r["scale"] == scale), key=lambda r: r["workers"])
        base = None
        for r in sel:
            threads = cores // r["workers"]
            p = tool_predict(tool, model_path, r, runs.shape(scale, r["parts"]), factor=cores / threads, gpus=r["workers"])
            meas = r["report"]["schedule"]
            if base is None:
                base = (p["total"], meas)
            lw = r["report"]["load_per_worker"] or [0]
            row = {"scale": scale, "workers": r["workers"], "threads": threads, "pred": p["total"], "meas": meas,
                   "speedup_pred": base[0] / p["total"], "speedup_meas": base[1] / meas}
            rows.append(row)
            out.append(f"| Kronecker {scale} | {r['workers']} | {threads} | {r['tasks']} | {sum(lw) / len(lw):.3f} ({max(lw):.3f}) "
                       f"| {p['total']:.3f} / {meas:.3f} | {pct(p['total'], meas):+.1f}% | {row['speedup_pred']:.2f} / {row['speedup_meas']:.2f} |")
    return rows


# ---- SVG plots (standard library only).
def svg_scatter(rows, path):
    pts = [(r["meas"]["total"], r["pred"]["total"], r["role"], r["source"]) for r in rows]
    if not pts:
        return
    lo = min(min(a, b) for a, b, _, _ in pts) / 1.3
    hi = max(max(a, b) for a, b, _, _ in pts) * 1.3
    W, H, L, B = 560, 520, 70, 60
    sx = lambda v: L + (math.log10(v) - math.log10(lo)) / (math.log10(hi) - math.log10(lo)) * (W - L - 20)
    sy = lambda v: H - B - (math.log10(v) - math.log10(lo)) / (math.log10(hi) - math.log10(lo)) * (H - B - 30)
    s = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{H}" font-family="sans-serif" font-size="12">',
         f'<rect width="{W}" height="{H}" fill="white"/>',
         f'<text x="{W / 2}" y="18" text-anchor="middle" font-size="14">One H200: predicted vs measured run seconds (model H)</text>']
    poly = f"{sx(lo)},{sy(lo * (1 + BAND))} {sx(hi / (1 + BAND))},{sy(hi)} {sx(hi)},{sy(hi)} {sx(hi)},{sy(hi * (1 - BAND))} {sx(lo / (1 - BAND))},{sy(lo)}"
    s.append(f'<polygon points="{poly}" fill="#ddeeff" stroke="none"/>')
    s.append(f'<line x1="{sx(lo)}" y1="{sy(lo)}" x2="{sx(hi)}" y2="{sy(hi)}" stroke="#555" stroke-dasharray="4,3"/>')
    s.append(f'<rect x="{L}" y="30" width="{W - L - 20}" height="{H - B - 30}" fill="none" stroke="black"/>')
    d = 10 ** math.floor(math.log10(lo))
    while d <= hi:
        for k in (1, 2, 5):
            v = d * k
            if lo <= v <= hi:
                s.append(f'<text x="{sx(v)}" y="{H - B + 16}" text-anchor="middle">{v:g}</text>')
                s.append(f'<text x="{L - 6}" y="{sy(v) + 4}" text-anchor="end">{v:g}</text>')
                s.append(f'<line x1="{sx(v)}" y1="{H - B}" x2="{sx(v)}" y2="{H - B + 4}" stroke="black"/>')
                s.append(f'<line x1="{L - 4}" y1="{sy(v)}" x2="{L}" y2="{sy(v)}" stroke="black"/>')
        d *= 10
    s.append(f'<text x="{(L + W) / 2}" y="{H - 18}" text-anchor="middle">measured seconds (schedule phase)</text>')
    s.append(f'<text x="16" y="{(H - B) / 2}" text-anchor="middle" transform="rotate(-90 16 {(H - B) / 2})">predicted seconds</text>')
    colors = {("fit", "shape"): "#1f77b4", ("held out", "shape"): "#d62728", ("fit", "family"): "#9ecae1", ("held out", "family"): "#ff9896"}
    for a, b, role, source in pts:
        c = colors[(role, source)]
        if source == "shape":
            s.append(f'<circle cx="{sx(a):.1f}" cy="{sy(b):.1f}" r="4" fill="{c}" fill-opacity="0.8"/>')
        else:
            s.append(f'<rect x="{sx(a) - 3:.1f}" y="{sy(b) - 3:.1f}" width="6" height="6" fill="none" stroke="{c}"/>')
    y = 46
    for (role, source), c in colors.items():
        mark = (f'<circle cx="{L + 14}" cy="{y - 4}" r="4" fill="{c}"/>' if source == "shape"
                else f'<rect x="{L + 11}" y="{y - 7}" width="6" height="6" fill="none" stroke="{c}"/>')
        s.append(mark + f'<text x="{L + 24}" y="{y}">{role}, from the {source}</text>')
        y += 16
    s.append(f'<text x="{L + 10}" y="{y}" fill="#4477aa">shaded: within ±15%</text>')
    s.append("</svg>")
    open(path, "w").write("\n".join(s) + "\n")


def svg_speedup(rows, path):
    if not rows:
        return
    W, H, L, B = 560, 420, 60, 55
    wmax = max(r["workers"] for r in rows)
    smax = max(1.4, max(max(r["speedup_pred"], r["speedup_meas"]) for r in rows) * 1.15)
    sx = lambda w: L + (w - 1) / max(1, wmax - 1) * (W - L - 20)
    sy = lambda v: H - B - v / smax * (H - B - 30)
    s = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{H}" font-family="sans-serif" font-size="12">',
         f'<rect width="{W}" height="{H}" fill="white"/>',
         f'<text x="{W / 2}" y="18" text-anchor="middle" font-size="14">CPU workers on 16 cores (threads = 16 / W): speedup T(1) / T(W)</text>',
         f'<rect x="{L}" y="30" width="{W - L - 20}" height="{H - B - 30}" fill="none" stroke="black"/>',
         f'<line x1="{sx(1)}" y1="{sy(1)}" x2="{sx(wmax)}" y2="{sy(1)}" stroke="#999" stroke-dasharray="4,3"/>',
         f'<text x="{sx(wmax) - 4}" y="{sy(1) - 5}" text-anchor="end" fill="#777">ideal at a fixed 16 cores</text>']
    for w in sorted({r["workers"] for r in rows}):
        s.append(f'<text x="{sx(w)}" y="{H - B + 16}" text-anchor="middle">{w}</text>')
    v = 0.0
    while v <= smax:
        s.append(f'<text x="{L - 6}" y="{sy(v) + 4}" text-anchor="end">{v:.1f}</text>')
        v += 0.2 if smax < 3 else 1.0
    s.append(f'<text x="{(L + W) / 2}" y="{H - 15}" text-anchor="middle">CPU workers W</text>')
    palette = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd"]
    y = 46
    for i, scale in enumerate(sorted({r["scale"] for r in rows})):
        sel = sorted((r for r in rows if r["scale"] == scale), key=lambda r: r["workers"])
        c = palette[i % len(palette)]
        for key, dash in (("speedup_meas", ""), ("speedup_pred", ' stroke-dasharray="6,4"')):
            pts = " ".join(f"{sx(r['workers']):.1f},{sy(r[key]):.1f}" for r in sel)
            s.append(f'<polyline points="{pts}" fill="none" stroke="{c}" stroke-width="2"{dash}/>')
            for r in sel:
                s.append(f'<circle cx="{sx(r["workers"]):.1f}" cy="{sy(r[key]):.1f}" r="3" fill="{c if not dash else "white"}" stroke="{c}"/>')
        s.append(f'<line x1="{L + 10}" y1="{y - 4}" x2="{L + 30}" y2="{y - 4}" stroke="{c}" stroke-width="2"/>'
                 f'<text x="{L + 36}" y="{y}">Kronecker {scale} measured</text>')
        s.append(f'<line x1="{L + 190}" y1="{y - 4}" x2="{L + 210}" y2="{y - 4}" stroke="{c}" stroke-width="2" stroke-dasharray="6,4"/>'
                 f'<text x="{L + 216}" y="{y}">predicted (W = 1 model)</text>')
        y += 16
    s.append("</svg>")
    open(path, "w").write("\n".join(s) + "\n")


def main(argv):
    if len(argv) < 4:
        sys.exit("usage: cost_model_table.py TOOL RESULTS DIR...")
    tool, results, dirs = argv[1], argv[2], argv[3:]
    os.makedirs(results, exist_ok=True)
    runs = Runs(dirs)
    out = []
    gpu_rows = gpu_tables(tool, results, runs, out)
    cpu_rows = cpu_tables(tool, results, runs, out)
    open(os.path.join(results, "tables.md"), "w").write("\n".join(out) + "\n")
    json.dump({"gpu": gpu_rows, "cpu": cpu_rows}, open(os.path.join(results, "rows.json"), "w"), indent=1)
    svg_scatter(gpu_rows, os.path.join(results, "predicted_vs_measured.svg"))
    svg_speedup(cpu_rows, os.path.join(results, "cpu_workers_speedup.svg"))
    print("\n".join(out))


if __name__ == "__main__":
    main(sys.argv)
