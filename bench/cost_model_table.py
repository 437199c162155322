#!/usr/bin/env python3
"""Predicted vs measured tables from bench/validate_cost_model.sh's output folder.

    python3 bench/cost_model_table.py OUT        # Markdown on stdout

For each prediction OUT/predict/MODEL_RUN.json (one GPU) and the run's journal and report:
measured count seconds = the journal's task seconds less their load column (counting,
uploads, per-task overhead), measured load seconds = the load column, measured total = the
report's schedule phase; predicted: the same three from the cost model.
"""
import glob
import json
import os
import sys


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


def pct(predicted, measured):
    return 100.0 * (predicted - measured) / measured if measured > 0 else float("nan")


def main(out):
    rows = {}
    for path in sorted(glob.glob(os.path.join(out, "predict", "*.json"))):
        name = os.path.basename(path)[:-5]
        model, run = name.split("_", 1)
        p = json.load(open(path))["points"][0]
        count, load, tasks = journal_totals(os.path.join(out, "journal", run + ".journal"))
        report = json.load(open(os.path.join(out, "report", run + ".json")))
        total = report["seconds"]["schedule"]
        pc = p["count_seconds_all_gpus"] + p["upload_seconds_all_gpus"]
        pl = p["load_seconds_all_gpus"]
        rows.setdefault(model, []).append((run, tasks, pc, count, pl, load, p["predicted_seconds"], total))
    for model in sorted(rows):
        m = json.load(open(os.path.join(out, "model_" + model + ".json")))
        fitted = [os.path.basename(s)[:-8] for s in m["calibrated_on"] if s.endswith(".journal")]
        print(f"\n**Model {model}**, fitted on {', '.join(fitted)}: overhead {m['task_overhead_seconds'] * 1e3:.3f} ms/task, "
              f"{m['seconds_per_work'] * 1e9:.3f} s per 10^9 work, {m['seconds_per_row'] * 1e9:.3f} s per 10^9 rows "
              f"(R² {m['count_r2']:.3f}), load {1e-9 / m['load_seconds_per_byte']:.2f} GB/s, "
              f"upload {1e-9 / m['upload_seconds_per_byte'] if m['upload_seconds_per_byte'] > 0 else 0:.2f} GB/s\n")
        print("| run | tasks | count s pred / meas | err | load s pred / meas | err | total s pred / meas (schedule) | err |")
        print("|---|---|---|---|---|---|---|---|")
        worst = [0.0, 0.0, 0.0]
        for run, tasks, pc, mc, pl, ml, pt, mt in rows[model]:
            errs = (pct(pc, mc), pct(pl, ml), pct(pt, mt))
            worst = [max(w, abs(e)) for w, e in zip(worst, errs)]
            print(f"| {run} | {tasks} | {pc:.3f} / {mc:.3f} | {errs[0]:+.1f}% | {pl:.3f} / {ml:.3f} | {errs[1]:+.1f}% "
                  f"| {pt:.3f} / {mt:.3f} | {errs[2]:+.1f}% |")
        print(f"\nLargest error, model {model}: count {worst[0]:.1f}%, load {worst[1]:.1f}%, total {worst[2]:.1f}%")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: cost_model_table.py OUT")
    main(sys.argv[1])
