#!/usr/bin/env python3
"""Turns a scaling-study folder (slurm/study.sbatch) into a table and plots.

    python3 slurm/report.py RESULTS [--out DIR] [--metric schedule|total|count] [--title TEXT]

Reads RESULTS/runs/*.json (tricount-count reports), RESULTS/study.json and, when there,
RESULTS/prediction.json (tricount-simulate), and writes into DIR (default RESULTS/report):

    scaling.md     Markdown table and a description of the study
    scaling.csv    the same numbers, one row per worker count
    scaling.png    four panels: time, speedup, parallel efficiency, imbalance
    time.png, speedup.png, efficiency.png, imbalance.png   the panels one by one

Per worker count W (worker ranks: GPUs with the cuda backend, CPU workers with cpu; the
table and plots say "GPUs" or "workers" after the runs' backend): the median, min and
max of the metric over the repeats; speedup
S(W) = W0 * T(W0) / T(W) against the smallest measured count W0 (W0 = 1 makes it the
classic T(1) / T(W)); efficiency S(W) / W; imbalance = slowest / fastest worker's busy
seconds (tricount-count's "imbalance"; 1 is perfect). Ideal lines: T(W0) * W0 / W, S = W,
efficiency 1.

Predictions (worker counts beyond the measured ones) come from tricount-simulate, which
replays the task costs of the journal run through the scheduler's policy. Its seconds
cover the tasks only, so they are anchored to the measurement at the largest measured
count Wm and continue the measured curve from there: predicted T(W) = T(Wm) * P(W) / P(Wm),
P being the simulator's seconds. They are drawn hollow and dashed,
labelled as predictions, and marked "predicted" in the table; the table also gives the
anchored prediction next to each measured count, to show how far to trust the model.
"""
import argparse
import csv
import json
import math
import os
import shutil
import signal
import statistics
import sys
import tempfile

METRICS = {
    "schedule": ("seconds", "schedule", "counting phase: from all ranks ready to the final reduce (seconds.schedule)"),
    "total": ("seconds", "total", "whole run, setup included (seconds.total)"),
    "count": ("seconds", "count", "slowest worker's counting seconds (seconds.count)"),
}


def fail(message):
    print(f"report.py: error: {message}", file=sys.stderr)
    sys.exit(1)


def load_json(path):
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError) as e:
        fail(f"cannot read {path}: {e}")


def is_number(x):
    return isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x)


def need(ok, path, what):
    """A damaged or foreign JSON file: named, with what is wrong, before anything is written."""
    if not ok:
        fail(f"{path}: {what}; is it a file tricount wrote?")


def check_run(path, r):
    need(isinstance(r, dict), path, "not a JSON object")
    need(isinstance(r.get("triangles"), int) and r["triangles"] >= 0, path, "no triangle count")
    need(isinstance(r.get("workers"), int) and r["workers"] >= 1, path, "no worker count of at least 1")
    seconds = r.get("seconds")
    need(isinstance(seconds, dict), path, "no \"seconds\" object")
    for key in sorted({m[1] for m in METRICS.values()}):
        need(is_number(seconds.get(key)) and seconds[key] >= 0, path, f"seconds.{key} is not a number of seconds")
    need(r.get("imbalance") is None or is_number(r["imbalance"]), path, "imbalance is not a number")
    return r


def check_study(path, s):
    need(isinstance(s, dict), path, "not a JSON object")
    nodes = s.get("nodes", [])
    need(isinstance(nodes, list) and all(isinstance(n, str) for n in nodes), path, "nodes is not a list of names")
    need(isinstance(s.get("count_args", []), list), path, "count_args is not a list")
    return s


def check_prediction(path, p):
    need(isinstance(p, dict), path, "not a JSON object")
    points = p.get("points", [])
    need(isinstance(points, list), path, "points is not a list")
    for q in points:
        need(isinstance(q, dict) and isinstance(q.get("workers"), int) and q["workers"] >= 1, path,
             "a point without a worker count of at least 1")
        need(is_number(q.get("predicted_seconds")) and q["predicted_seconds"] >= 0, path,
             f"the point for {q['workers']} workers has no predicted_seconds")
        need(is_number(q.get("imbalance", 0)), path, f"the point for {q['workers']} workers has an imbalance that is not a number")
    return p


def fmt(x, digits=4):
    if x is None:
        return "–"
    if isinstance(x, float) and (math.isnan(x) or math.isinf(x)):
        return "–"
    if isinstance(x, int):
        return str(x)
    return f"{x:.{digits}g}"


def collect(results, metric):
    runs_dir = os.path.join(results, "runs")
    if not os.path.isdir(runs_dir):
        fail(f"{results} has no runs/ folder: is it a study folder (slurm/study.sbatch --results)?")
    runs = []
    for name in sorted(os.listdir(runs_dir)):
        if name.endswith(".json"):
            path = os.path.join(runs_dir, name)
            runs.append(check_run(path, load_json(path)))
    if not runs:
        fail(f"no run reports in {runs_dir}")
    group, key, _ = METRICS[metric]
    counts = {r["triangles"] for r in runs}
    if len(counts) != 1:
        fail(f"the runs disagree on the triangle count: {sorted(counts)}")
    by_w = {}
    for r in runs:
        by_w.setdefault(int(r["workers"]), []).append(r)
    rows = []
    for w in sorted(by_w):
        rs = by_w[w]
        times = [float(r[group][key]) for r in rs]
        imb = [float(r.get("imbalance", 0)) for r in rs]
        rows.append({
            "workers": w,
            "kind": "measured",
            "runs": len(rs),
            "time": statistics.median(times),
            "time_min": min(times),
            "time_max": max(times),
            "total": statistics.median(float(r["seconds"]["total"]) for r in rs),
            "count": statistics.median(float(r["seconds"]["count"]) for r in rs),
            # 0 means a worker got no task at all
            "imbalance": None if any(x <= 0 for x in imb) else statistics.median(imb),
        })
    return runs, rows


def add_speedup(rows, base):
    w0, t0 = base["workers"], base["time"]
    for row in rows:
        row["speedup"] = w0 * t0 / row["time"] if row["time"] > 0 else None
        row["efficiency"] = row["speedup"] / row["workers"] if row["speedup"] is not None else None


def predictions(results, rows):
    path = os.path.join(results, "prediction.json")
    if not os.path.exists(path):
        return [], None
    pred = check_prediction(path, load_json(path))
    points = {int(p["workers"]): p for p in pred.get("points", [])}
    if not points:
        return [], pred
    base = rows[-1]  # the largest measured count: predictions continue the measured curve
    anchor = points.get(base["workers"])
    scale = base["time"] / anchor["predicted_seconds"] if anchor and anchor["predicted_seconds"] > 0 else None
    measured = {row["workers"] for row in rows}
    for row in rows:
        p = points.get(row["workers"])
        if p and scale is not None:
            row["predicted"] = p["predicted_seconds"] * scale
        row["simulated"] = p["predicted_seconds"] if p else None
    extra = []
    for w in sorted(points):
        if w in measured or w < max(measured):
            continue
        p = points[w]
        t = p["predicted_seconds"] * scale if scale is not None else p["predicted_seconds"]
        extra.append({
            "workers": w, "kind": "predicted", "runs": 0, "time": t, "time_min": None, "time_max": None,
            "total": None, "count": None, "predicted": t, "simulated": p["predicted_seconds"],
            "imbalance": p.get("imbalance", 0) if p.get("imbalance", 0) > 0 else None,
        })
    return extra, pred


def write_csv(path, rows, triangles):
    cols = ["workers", "kind", "runs", "time_median_s", "time_min_s", "time_max_s", "speedup", "efficiency",
            "imbalance", "predicted_s", "simulated_task_s", "total_median_s", "count_median_s", "triangles"]
    with open(path, "w", newline="") as f:
        out = csv.writer(f)
        out.writerow(cols)
        for r in rows:
            def v(x):
                return "" if x is None else (f"{x:.6g}" if isinstance(x, float) else x)
            out.writerow([r["workers"], r["kind"], r["runs"], v(r["time"]), v(r["time_min"]), v(r["time_max"]),
                          v(r.get("speedup")), v(r.get("efficiency")), v(r.get("imbalance")), v(r.get("predicted")),
                          v(r.get("simulated")), v(r.get("total")), v(r.get("count")),
                          triangles if r["kind"] == "measured" else ""])


def words(sample):
    """What a worker is, after the runs' backend: (singular, plural, capitalised plural)."""
    if sample.get("backend") == "cuda":
        return "GPU", "GPUs", "GPUs"
    return "worker", "workers", "workers"


def write_markdown(path, rows, study, sample, metric, pred, title, images):
    one, many, head = words(sample)
    base = rows[0]
    last = [r for r in rows if r["kind"] == "measured"][-1]
    lines = [f"# {title}", ""]
    src = sample.get("source") or sample.get("input")
    lines += [
        f"- graph: `{src}` ({sample.get('vertices', '?')} vertices, {sample.get('edges', '?')} edges), "
        f"**{sample['triangles']} triangles** in every run",
        f"- blocks: {sample.get('parts', '?')} x {sample.get('parts', '?')} parts, workload splits "
        f"{sample.get('workload_splits', '?')}, {sample.get('tasks', '?')} tasks",
        f"- backend: {sample.get('backend', '?')} ({sample.get('device', '?')}); one scheduler rank plus one worker rank per {one}",
    ]
    if study:
        nodes = study.get("nodes", [])
        lines.append(f"- Slurm job {study.get('job_id', '?')} on cluster {study.get('cluster') or '?'}: {len(nodes)} node(s) "
                     f"({', '.join(nodes[:8])}{', ...' if len(nodes) > 8 else ''}), {study.get('gpus_per_node')} {many} per node, "
                     f"{study.get('repeats')} run(s) per {one} count; started {study.get('started')}, finished {study.get('finished')}")
        if study.get("count_args"):
            lines.append(f"- tricount-count options: `{' '.join(study['count_args'])}`")
    lines += [
        f"- time: {METRICS[metric][2]}, median of the runs (min and max beside it)",
        f"- speedup and efficiency against {base['workers']} {one}(s): S(W) = {base['workers']} x T({base['workers']}) / T(W), E = S / W",
        "- imbalance: slowest / fastest worker's busy seconds (1 = perfect; – = a worker got no task)",
    ]
    if pred:
        lines.append(f"- **predicted** rows are not measurements: tricount-simulate replayed the {pred.get('tasks')} task costs "
                     f"of the journal run through the scheduler's policy; its seconds (tasks only) are scaled so that it "
                     f"matches the measurement at {last['workers']} {one}(s), the largest measured count. The *model* column "
                     f"shows that scaled prediction for the measured counts too.")
    lines += ["", f"| {head} | kind | runs | time (s) | min (s) | max (s) | speedup | efficiency | imbalance | model (s) |",
              "|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for r in rows:
        kind = "measured" if r["kind"] == "measured" else "*predicted*"
        lines.append(f"| {r['workers']} | {kind} | {r['runs'] or '–'} | {fmt(r['time'])} | {fmt(r['time_min'])} | "
                     f"{fmt(r['time_max'])} | {fmt(r.get('speedup'), 3)} | {fmt(r.get('efficiency'), 3)} | "
                     f"{fmt(r.get('imbalance'), 3)} | {fmt(r.get('predicted') if r['kind'] == 'measured' else None)} |")
    lines += [""] + [f"![{name}]({name})" for name in images] + [""]
    with open(path, "w") as f:
        f.write("\n".join(lines))


def plot(out_dir, rows, metric, title, sample):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.ticker import FixedLocator, NullLocator, ScalarFormatter

    one, many, head = words(sample)
    xlabel = "GPUs (worker ranks)" if one == "GPU" else "worker ranks"
    meas = [r for r in rows if r["kind"] == "measured"]
    pred = [r for r in rows if r["kind"] == "predicted"]
    base = meas[0]
    w0, t0 = base["workers"], base["time"]
    all_w = [r["workers"] for r in rows]
    ideal_w = [min(all_w), max(all_w)]
    mkw = dict(color="C0", marker="o", linestyle="-", label="measured (median; bars: min–max)")
    pkw = dict(color="C1", marker="s", markerfacecolor="white", linestyle="--",
               label="PREDICTED (tricount-simulate)")
    ideal_kw = dict(color="0.5", linestyle=":", label="ideal")

    def axis(ax, ylabel, logy=False):
        ax.set_xscale("log", base=2)
        if logy:
            ax.set_yscale("log")
        ax.xaxis.set_major_locator(FixedLocator(all_w))
        ax.xaxis.set_minor_locator(NullLocator())
        ax.xaxis.set_major_formatter(ScalarFormatter())
        ax.set_xlabel(xlabel)
        ax.set_ylabel(ylabel)
        ax.grid(True, which="major", alpha=0.3)
        if pred:
            left = max(r["workers"] for r in meas) * 1.15
            ax.axvspan(left, max(all_w) * 1.3, color="C1", alpha=0.07, lw=0, label="beyond the measured sizes")

    def link(ax, key):
        # the predictions: hollow markers, dashed, joined to the last measured point by a
        # thin dashed line without a marker (that point is measured, not predicted)
        if pred:
            last = meas[-1]
            ax.plot([last["workers"], pred[0]["workers"]], [last[key], pred[0][key]], color="C1", linestyle="--", lw=0.8)
            ax.plot([r["workers"] for r in pred], [r[key] for r in pred], **pkw)

    def panel_time(ax):
        t = [r["time"] for r in meas]
        err = [[r["time"] - r["time_min"] for r in meas], [r["time_max"] - r["time"] for r in meas]]
        ax.errorbar([r["workers"] for r in meas], t, yerr=err, capsize=3, **mkw)
        link(ax, "time")
        ax.plot(ideal_w, [t0 * w0 / w for w in ideal_w], **ideal_kw)
        ax.set_title(f"time ({metric})")
        axis(ax, "seconds", logy=True)

    def panel_speedup(ax):
        ax.plot([r["workers"] for r in meas], [r["speedup"] for r in meas], **mkw)
        link(ax, "speedup")
        ax.plot(ideal_w, ideal_w, **ideal_kw)
        ax.set_title(f"speedup vs {w0} {one if w0 == 1 else many}")
        axis(ax, "speedup", logy=True)

    def panel_eff(ax):
        ax.plot([r["workers"] for r in meas], [r["efficiency"] for r in meas], **mkw)
        link(ax, "efficiency")
        ax.plot(ideal_w, [1, 1], **ideal_kw)
        ax.set_ylim(0, max(1.1, max((r["efficiency"] or 0) for r in rows) * 1.1))
        ax.set_title("parallel efficiency")
        axis(ax, "efficiency")

    def panel_imb(ax):
        # bars at equal spacing, one per worker count
        xs = list(range(len(rows)))
        for x, r in zip(xs, rows):
            v = r.get("imbalance")
            if v is None:
                ax.text(x, 1.0, "idle\nworker", ha="center", va="bottom", fontsize=7)
                continue
            if r["kind"] == "measured":
                ax.bar(x, v, color="C0", width=0.6)
            else:
                ax.bar(x, v, color="white", edgecolor="C1", hatch="//", width=0.6)
            ax.text(x, v, f"{v:.2f}", ha="center", va="bottom", fontsize=7)
        ax.axhline(1.0, **ideal_kw)
        ax.set_xticks(xs)
        ax.set_xticklabels([str(r["workers"]) for r in rows])
        ax.set_xlabel(xlabel)
        ax.set_ylabel("max / min worker busy time")
        top = max([r["imbalance"] for r in rows if r.get("imbalance")] + [1.0])
        ax.set_ylim(0, top * 1.2)
        ax.set_title("imbalance per size" + (" (hatched: PREDICTED)" if pred else ""))
        ax.grid(True, axis="y", alpha=0.3)

    panels = [("time", panel_time), ("speedup", panel_speedup), ("efficiency", panel_eff), ("imbalance", panel_imb)]
    fig, axes = plt.subplots(2, 2, figsize=(12, 9))
    for (name, fn), ax in zip(panels, axes.flat):
        fn(ax)
    handles, labels = axes.flat[0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="lower center", ncol=4, frameon=False)
    fig.suptitle(title)
    fig.tight_layout(rect=(0, 0.05, 1, 0.97))
    fig.savefig(os.path.join(out_dir, "scaling.png"), dpi=110)
    plt.close(fig)
    names = ["scaling.png"]
    for name, fn in panels:
        fig, ax = plt.subplots(figsize=(6, 4.5))
        fn(ax)
        if name != "imbalance":
            ax.legend(fontsize=8, loc="best")
        fig.suptitle(title, fontsize=9)
        fig.tight_layout()
        fig.savefig(os.path.join(out_dir, f"{name}.png"), dpi=110)
        plt.close(fig)
        names.append(f"{name}.png")
    return names


def main():
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)  # quiet under `| head`
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter, epilog=__doc__.split("\n\n", 1)[1])
    ap.add_argument("results", help="folder written by slurm/study.sbatch --results")
    ap.add_argument("--out", help="where to write the report (default RESULTS/report)")
    ap.add_argument("--metric", choices=sorted(METRICS), default="schedule", help="which seconds to scale (default schedule)")
    ap.add_argument("--title", help="title of the table and plots")
    args = ap.parse_args()

    results = args.results
    out_dir = args.out or os.path.join(results, "report")
    if os.path.exists(out_dir) and not os.path.isdir(out_dir):
        fail(f"--out {out_dir} is a file, not a folder: name a folder")
    study_path = os.path.join(results, "study.json")
    study = check_study(study_path, load_json(study_path)) if os.path.exists(study_path) else {}
    runs, rows = collect(results, args.metric)
    add_speedup(rows, rows[0])
    extra, pred = predictions(results, rows)
    add_speedup(extra, rows[0])
    table = rows + extra
    sample = runs[0]
    src = study.get("generate") or os.path.basename(sample.get("source") or sample.get("input") or "graph")
    title = args.title or f"tricount strong scaling: {src}, {sample.get('backend', '?')} backend"
    # Everything is written into a staging folder beside DIR and moved in only when complete:
    # a failure leaves DIR as it was, never a new table beside an old report.
    parent = os.path.dirname(os.path.abspath(out_dir))
    try:
        os.makedirs(parent, exist_ok=True)
        staging = tempfile.mkdtemp(prefix=".report-", dir=parent)
    except OSError as e:
        fail(f"cannot write the report beside {out_dir}: {e}")
    try:
        write_csv(os.path.join(staging, "scaling.csv"), table, sample["triangles"])
        try:
            images = plot(staging, table, args.metric, title, sample)
        except ImportError as e:
            images = []
            print(f"report.py: no plots: {e} (install python3-matplotlib)", file=sys.stderr)
        write_markdown(os.path.join(staging, "scaling.md"), table, study, sample, args.metric, pred, title, images)
        os.makedirs(out_dir, exist_ok=True)
        for name in sorted(os.listdir(staging)):
            os.replace(os.path.join(staging, name), os.path.join(out_dir, name))
    except OSError as e:
        fail(f"cannot write the report into {out_dir}: {e}")
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    with open(os.path.join(out_dir, "scaling.md")) as f:
        print(f.read())
    print(f"report.py: wrote {out_dir}/scaling.md, scaling.csv" + (", " + ", ".join(images) if images else ""))
    if not images:
        sys.exit(1)


if __name__ == "__main__":
    main()
