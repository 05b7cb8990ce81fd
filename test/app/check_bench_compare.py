#!/usr/bin/env python3
"""`forge bench compare` end to end, as a user runs it: a committed record against itself
(every row "same", exit 0), against a copy with one row 20% slower and tight (exit 1, the row
flagged), the Markdown and SVG outputs (the SVG must parse as XML and hold one bar per compared
row), and bad input (a clear error naming the file and field, exit 1).

usage: check_bench_compare.py FORGE RECORDS_DIR
"""
import json
import pathlib
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET


def forge(exe, *args):
    return subprocess.run([exe, *args], capture_output=True, text=True, env={"NO_COLOR": "1", "PATH": "/usr/bin:/bin"})


def slowed(record, name, factor):
    """The record with row `name` `factor` times as good, summary recomputed."""
    import statistics
    for row in record["rows"]:
        if row["name"] == name:
            row["reps"] = [v * factor if row["direction"] == "higher" else v / factor for v in row["reps"]]
            reps = row["reps"]
            row["median"], row["min"], row["max"] = statistics.median(reps), min(reps), max(reps)
            row["cv"] = statistics.stdev(reps) / statistics.fmean(reps) if len(reps) > 1 else 0.0
    return record


def main():
    exe, records = sys.argv[1], pathlib.Path(sys.argv[2])
    base = sorted(records.glob("*.json"))[0]
    failures = []

    def expect(condition, what):
        if not condition:
            failures.append(what)

    same = forge(exe, "bench", "compare", str(base), str(base))
    expect(same.returncode == 0, f"self compare exit {same.returncode}: {same.stderr}")
    rows = json.loads(base.read_text())["rows"]
    verdicts = [line.split()[-1] for line in same.stdout.splitlines() if any(line.startswith(r["name"] + " ") for r in rows)]
    expect(len(verdicts) == len(rows) and set(verdicts) == {"same"}, f"self compare verdicts: {verdicts}")
    expect("\x1b[" not in same.stdout, "colour codes when stdout is not a terminal")

    with tempfile.TemporaryDirectory() as tmp:
        tmp = pathlib.Path(tmp)
        record = json.loads(base.read_text())
        # A steady forge row: machine rows never fail a comparison (they measure the machine).
        steady = [r for r in record["rows"] if not r["noisy"] and not r["name"].startswith("machine/")][0]["name"]
        worse = tmp / "worse.json"
        worse.write_text(json.dumps(slowed(record, steady, 0.8)))
        md, svg = tmp / "report.md", tmp / "chart.svg"
        slow = forge(exe, "bench", "compare", str(base), str(worse), "--markdown", str(md), "--svg", str(svg))
        expect(slow.returncode == 1, f"a 20% tight slowdown must exit 1, got {slow.returncode}: {slow.stderr}")
        expect(any(line.startswith(steady) and "slower (regression)" in line for line in slow.stdout.splitlines()),
               f"{steady} not flagged:\n{slow.stdout}")
        text = md.read_text()
        expect("![change per row](chart.svg)" in text and "| row | unit |" in text, "markdown report: table or chart link")
        root = ET.parse(svg).getroot()  # raises on malformed XML
        expect(root.tag == "{http://www.w3.org/2000/svg}svg", f"svg root {root.tag}")
        titles = root.findall(".//{http://www.w3.org/2000/svg}title")
        expect(len(titles) == len(rows), f"svg: {len(titles)} bars for {len(rows)} rows")

        bad = tmp / "bad.json"
        record = json.loads(base.read_text())
        del record["machine"]["cpu"]
        bad.write_text(json.dumps(record))
        err = forge(exe, "bench", "compare", str(base), str(bad))
        expect(err.returncode == 1 and f"{bad}: machine.cpu: missing" in err.stderr, f"bad record: {err.stderr}")
        err = forge(exe, "bench", "compare", str(base), str(base), "--threshold", "5")
        expect(err.returncode == 2 and "--threshold" in err.stderr, f"bad threshold: {err.stderr}")

    for f in failures:
        print("FAIL:", f)
    print(f"check_bench_compare: {len(failures)} failures")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
