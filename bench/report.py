#!/usr/bin/env python3
"""Summarises a bench/peers.sh results directory as Markdown tables.

Reads machine.txt, startup-<peer>.json, run-<round>-<workload>-<peer>.json,
wrk-<round>-<workload>-<peer>.txt (wrk's own output) and rss-after-load.txt; prints throughput and latency per workload and peer, the ratio
monotable / peer of successful requests per second, and start-up time and memory.
With several rounds, each cell shows the run with the median throughput, and the last column
the median (and range) of the ratios of runs of the same round, which ran minutes apart.
A run that produced no JSON (it failed) is shown as "failed", never left out.

Given a Markdown file instead of a directory (this script's summary.md, or a dated record in
bench/results/), it reads back the rows of its `| workload | server | ok/s |` (monotable
bench) and `| workload | server | req/s |` (wrk) tables, the first row of each workload and
server counting, and prints them in one canonical form; given two such files it prints both side by side with
the change of every rate and of every monotable / server ratio, so a regression between two
recorded runs is a diff of two files:

    bench/report.py bench/.cache/results/latest
    bench/report.py bench/results/OLD.md bench/results/NEW.md
"""
import json
import os
import re
import sys
from statistics import median


def load_json(path):
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


def fmt(v, digits=1):
    return "–" if v is None else f"{v:,.{digits}f}"


def parse_wrk(path):
    """Requests/s, latency percentiles (µs) and non-2xx count of one wrk run, or None."""
    try:
        text = open(path).read()
    except OSError:
        return None
    m = re.search(r"^Requests/sec:\s*([\d.]+)", text, re.M)
    if not m:
        return None
    units = {"us": 1.0, "ms": 1000.0, "s": 1e6}
    lat = {}
    for pct, value, unit in re.findall(r"^\s+(50|90|99)%\s+([\d.]+)(us|ms|s)\s*$", text, re.M):
        lat[pct] = float(value) * units[unit]
    bad = re.search(r"Non-2xx or 3xx responses:\s*(\d+)", text)
    sock = re.search(r"Socket errors: (.*)", text)
    return {
        "rps": float(m.group(1)),
        "lat": lat,
        "non2xx": int(bad.group(1)) if bad else 0,
        "socket_errors": sock.group(1).strip() if sock else "",
    }


def wrk_section(results, files, preferred):
    """The independent client's table: one row per workload and server, the median round."""
    runs = {}
    for name in sorted(files):
        m = re.fullmatch(r"wrk-(\d+)-([a-z-]+?)-(ceiling|monotable-disk|monotable|dynoxide-disk|dynoxide|dynalite|moto)\.txt", name)
        if m:
            rnd, workload, peer = m.groups()
            runs.setdefault((workload, peer), []).append((rnd, parse_wrk(os.path.join(results, name))))
    if not runs:
        return []
    workloads = []
    for w, _ in runs:
        if w not in workloads:
            workloads.append(w)
    peers = sorted({p for _, p in runs}, key=lambda p: preferred.index(p) if p in preferred else len(preferred))

    def pick(w, p):
        ok = [r for _, r in runs.get((w, p), []) if r and r["non2xx"] == 0]
        if not ok:
            return None
        mid = median(r["rps"] for r in ok)
        return min(ok, key=lambda r: abs(r["rps"] - mid))

    out = [
        "wrk (independent client: one thread, same connections, bench/wrk/dynamodb.lua); a run with",
        "non-2xx answers counts as failed.",
        "",
        "| workload | server | req/s | p50 µs | p90 µs | p99 µs | monotable / server | % of ceiling |",
        "|---|---|---:|---:|---:|---:|---:|---:|",
    ]
    for w in workloads:
        base, ceil = pick(w, "monotable"), pick("get", "ceiling") or pick(w, "ceiling")
        for p in peers:
            if p == "ceiling" and w != "get":
                continue
            r = pick(w, p)
            if r is None:
                bad = [x for _, x in runs.get((w, p), []) if x]
                why = f"failed ({bad[0]['non2xx']} non-2xx)" if bad else "failed"
                out.append(f"| {w} | {p} | {why} | | | | | |")
                continue
            ratio = ""
            if base and p not in ("monotable", "ceiling") and r["rps"] > 0:
                ratio = f"{base['rps'] / r['rps']:.2f}×"
            share = ""
            if ceil and p != "ceiling" and ceil["rps"] > 0:
                share = f"{100 * r['rps'] / ceil['rps']:.0f}%"
            lat = r["lat"]
            out.append(
                f"| {w} | {p} | {fmt(r['rps'])} | {fmt(lat.get('50'))} | {fmt(lat.get('90'))} | "
                f"{fmt(lat.get('99'))} | {ratio} | {share} |"
            )
    out.append("")
    return out


def main(results):
    files = os.listdir(results)
    runs = {}  # (workload, peer) -> [report or None]
    order_w, order_p = [], []
    for name in sorted(files):
        m = re.fullmatch(r"run-(\d+)-([a-z]+)-([a-z-]+)\.(json|txt)", name)
        if not m:
            continue
        rnd, workload, peer, ext = m.groups()
        if workload not in order_w:
            order_w.append(workload)
        if peer not in order_p:
            order_p.append(peer)
        if ext == "txt" and not os.path.exists(os.path.join(results, name[:-3] + "json")):
            runs.setdefault((workload, peer), []).append((rnd, None))
        elif ext == "json":
            runs.setdefault((workload, peer), []).append((rnd, load_json(os.path.join(results, name))))
    preferred = ["ceiling", "monotable", "monotable-disk", "dynoxide", "dynoxide-disk", "dynalite", "moto"]
    order_p.sort(key=lambda p: preferred.index(p) if p in preferred else len(preferred))

    def pick(workload, peer):
        reports = [r for _, r in runs.get((workload, peer), []) if r]
        if not reports:
            return None
        mid = median(r["throughput_per_sec"] for r in reports)
        return min(reports, key=lambda r: abs(r["throughput_per_sec"] - mid))

    out = []
    machine = os.path.join(results, "machine.txt")
    if os.path.exists(machine):
        out.append("```")
        out.append(open(machine).read().strip())
        out.append("```")
        out.append("")
    def paired(workload, peer, ours="monotable"):
        """Median and range of ours/peer over the rounds in which both ran."""
        mono = {rnd: r for rnd, r in runs.get((workload, ours), []) if r}
        ratios = sorted(
            mono[rnd]["throughput_per_sec"] / r["throughput_per_sec"]
            for rnd, r in runs.get((workload, peer), [])
            if r and rnd in mono and r["throughput_per_sec"] > 0
        )
        if len(ratios) < 2:
            return ""
        return f"{median(ratios):.2f}× ({ratios[0]:.2f}–{ratios[-1]:.2f})"

    out.append(
        "| workload | server | ok/s | p50 µs | p90 µs | p99 µs | p99.9 µs | errors | empty "
        "| monotable / server | per-round ratio, median (range) |"
    )
    out.append("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for w in order_w:
        base = pick(w, "monotable")
        for p in order_p:
            r = pick(w, p)
            if r is None:
                out.append(f"| {w} | {p} | failed | | | | | | | | |")
                continue
            lat = r["latency_us"]
            errors = r["errors"]
            if errors:
                kinds = ", ".join(f"{k} {n}" for k, n in sorted(r["error_kinds"].items()))
                errors = f"{errors} ({kinds})"
            ratio = ""
            if base and p != "monotable" and r["throughput_per_sec"] > 0:
                ratio = f"{base['throughput_per_sec'] / r['throughput_per_sec']:.2f}×"
            out.append(
                f"| {w} | {p} | {fmt(r['throughput_per_sec'])} | {fmt(lat['p50'])} | {fmt(lat['p90'])} | "
                f"{fmt(lat['p99'])} | {fmt(lat['p99_9'])} | {errors} | {r['empty_results']} | {ratio} | "
                f"{paired(w, p) if p != 'monotable' else ''} |"
            )
    out.append("")

    # The ceiling answers `{}` without reading the request: the share of it that monotable
    # reaches is the headroom left on the HTTP path (only GetItem is comparable in work).
    if "ceiling" in order_p and "monotable" in order_p:
        for w in order_w:
            c, m = pick(w, "ceiling"), pick(w, "monotable")
            if c and m and c["throughput_per_sec"] > 0:
                out.append(
                    f"- {w}: monotable at {100 * m['throughput_per_sec'] / c['throughput_per_sec']:.0f}% of the "
                    f"ceiling ({fmt(m['throughput_per_sec'])} of {fmt(c['throughput_per_sec'])} ok/s)"
                )
        out.append("")

    out.extend(wrk_section(results, files, preferred))

    # Data directory against data directory: monotable-disk / dynoxide-disk.
    if "monotable-disk" in order_p and "dynoxide-disk" in order_p:
        out.append("| workload | monotable-disk ok/s | dynoxide-disk ok/s | ratio | per-round ratio, median (range) |")
        out.append("|---|---:|---:|---:|---:|")
        for w in order_w:
            m, d = pick(w, "monotable-disk"), pick(w, "dynoxide-disk")
            if m is None or d is None or d["throughput_per_sec"] <= 0:
                out.append(f"| {w} | {fmt(m and m['throughput_per_sec'])} | {fmt(d and d['throughput_per_sec'])} | – | |")
                continue
            out.append(
                f"| {w} | {fmt(m['throughput_per_sec'])} | {fmt(d['throughput_per_sec'])} | "
                f"{m['throughput_per_sec'] / d['throughput_per_sec']:.2f}× | {paired(w, 'dynoxide-disk', 'monotable-disk')} |"
            )
        out.append("")

    after = {}
    rss_path = os.path.join(results, "rss-after-load.txt")
    if os.path.exists(rss_path):
        for line in open(rss_path):
            parts = line.split()
            if len(parts) == 2 and parts[1].isdigit():
                after[parts[0]] = int(parts[1])
    peers = sorted(
        {n[len("startup-"):-len(".json")] for n in files if n.startswith("startup-") and n.endswith(".json")}
        | set(order_p),
        key=lambda p: preferred.index(p) if p in preferred else len(preferred),
    )
    out.append("| server | start-up to first request ms | idle RSS MiB | RSS after load MiB |")
    out.append("|---|---:|---:|---:|")
    for p in peers:
        s = load_json(os.path.join(results, f"startup-{p}.json")) or {}
        idle = s.get("rss_idle_kib")
        out.append(
            f"| {p} | {fmt(s.get('startup_ms'))} | {fmt(idle / 1024 if idle else None)} | "
            f"{fmt(after[p] / 1024 if p in after else None)} |"
        )
    print("\n".join(out))


def read_record(path):
    """{(client, workload, server): rate} from the tables of a Markdown file; the first row wins."""
    rates, client, col = {}, None, None
    for line in open(path, encoding="utf-8"):
        cells = [c.strip() for c in line.strip().strip("|").split("|")] if line.startswith("|") else None
        if not cells:
            client = None
            continue
        if cells[:2] == ["workload", "server"]:
            client = "wrk" if "req/s" in cells else "bench" if "ok/s" in cells else None
            if client:
                col = cells.index("req/s" if client == "wrk" else "ok/s")
            continue
        if client and len(cells) > col and not set(cells[0]) <= set("-:"):
            # "query (25 items)" in the oldest records is the same workload as "query".
            key = (client, cells[0].split(" ")[0], cells[1])
            if key in rates:
                continue  # a later table of the same record (a repeat) does not overwrite
            try:
                rates[key] = float(cells[col].replace(",", ""))
            except ValueError:
                rates[key] = None  # "failed"
    return rates


def monotable_over(rates, client, workload, server):
    """monotable's rate over `server`'s in one record, as the summary's "monotable / server"."""
    base, peer = rates.get((client, workload, "monotable")), rates.get((client, workload, server))
    if base is None or not peer or server in ("monotable", "ceiling"):
        return None
    return base / peer


def compare(paths):
    """One row per client, workload and server found in any record, the records side by side."""
    records = [read_record(p) for p in paths]
    if not records[0]:
        sys.exit(f"{paths[0]}: no `| workload | server | ok/s` or `req/s` table")
    names = [os.path.basename(p) for p in paths]
    head = "| client | workload | server | " + " | ".join(f"{n} /s" for n in names)
    head += " | " + " | ".join(f"{n} monotable / server" for n in names)
    out = [head + (" | change /s | change of ratio |" if len(paths) == 2 else " |")]
    out.append("|---|---|---|" + "---:|" * (2 * len(paths) + (2 if len(paths) == 2 else 0)))
    keys = list(dict.fromkeys(k for r in records for k in r))
    for key in keys:
        values = [r.get(key) for r in records]
        ratios = [monotable_over(r, *key) for r in records]
        row = f"| {' | '.join(key)} | " + " | ".join(fmt(v) for v in values)
        row += " | " + " | ".join("" if q is None else f"{q:.2f}×" for q in ratios)
        if len(paths) == 2:
            a, b = values
            change = f"{100 * (b - a) / a:+.1f}%" if a and b is not None else "–"
            qa, qb = ratios
            rchange = f"{100 * (qb - qa) / qa:+.1f}%" if qa and qb is not None else ""
            row += f" | {change} | {rchange}"
        out.append(row + " |")
    print("\n".join(out))


if __name__ == "__main__":
    args = sys.argv[1:]
    if len(args) == 1 and os.path.isdir(args[0]):
        main(args[0])
    elif args and all(os.path.isfile(a) for a in args) and len(args) <= 2:
        compare(args)
    else:
        sys.exit("usage: report.py RESULTS_DIR | report.py RECORD.md [OTHER_RECORD.md]")
