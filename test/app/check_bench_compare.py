#!/usr/bin/env python3
"""`forge bench compare` end to end, as a user runs it: a committed record against itself
(every row "same", exit 0), against a copy with one row 20% slower and tight (exit 1, the row
flagged), the Markdown and SVG outputs (the SVG must parse as XML and hold one bar per compared
row), bad input (a clear error naming the file and field, exit 1), reports that would replace a
record or each other (refused), and row names that carry escape sequences and HTML (escaped).

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


def check_outputs(exe, base, tmp, expect):
    """A report written over a record (`--markdown A`, `--svg B`) replaced it, and one file for
    both reports kept one: refused before anything is written, every file as it was."""
    a, b, both = tmp / "a.json", tmp / "b.json", tmp / "report"
    before = base.read_text()
    for args, what in [(["--markdown", str(a)], "is the input file"), (["--svg", str(b)], "is the input file"),
                       (["--markdown", str(both), "--svg", str(both)], "they are the same file"),
                       (["--markdown", str(both), "--svg", f"{tmp}/./report"], "they are the same file")]:
        a.write_text(before)
        b.write_text(before)
        both.unlink(missing_ok=True)
        run = forge(exe, "bench", "compare", str(a), str(b), *args)
        expect(run.returncode == 1 and what in run.stderr, f"{args}: exit {run.returncode}, {run.stderr!r}")
        expect(a.read_text() == before and b.read_text() == before, f"{args}: a record changed")
        expect(not both.exists(), f"{args}: {both} written")
        expect(sorted(p.name for p in tmp.iterdir()) == ["a.json", "b.json"], f"{args}: left {list(tmp.iterdir())}")


def check_hostile_names(exe, base, tmp, expect):
    """Row names and units are text from a file: on the terminal table no escape sequence, in
    the Markdown no HTML and no broken table row, in the SVG valid XML."""
    evil_name = "evil\x1b]0;pwned\x07\x1b[2J<img src=x onerror=alert(1)>|`code`\n| injected |\x01"
    record = json.loads(base.read_text())
    record["rows"][0]["name"] = evil_name
    record["rows"][0]["unit"] = "u\x1b[31m"
    record["machine"]["cpu"] = "<script>cpu</script>"
    hostile = tmp / "hostile.json"
    hostile.write_text(json.dumps(record))
    md, svg = tmp / "report.md", tmp / "chart.svg"
    run = forge(exe, "bench", "compare", str(hostile), str(hostile), "--markdown", str(md), "--svg", str(svg))
    expect(run.returncode == 0, f"hostile names: exit {run.returncode}: {run.stderr}")
    expect("\x1b" not in run.stdout and "\\x1b]0;pwned" in run.stdout, f"terminal table: {run.stdout[:400]!r}")
    text = md.read_text()
    expect("<img" not in text and "<script>" not in text and "\x1b" not in text and "\x01" not in text,
           f"markdown: raw HTML or control characters: {text!r}")
    table = [line for line in text.splitlines() if line.startswith("|")]
    cells = [len(line.replace("\\|", "").split("|")) for line in table]
    expect(len(table) == len(record["rows"]) + 2 and len(set(cells)) == 1, f"markdown table rows broken: {table[:4]}")
    expect("&lt;img" in text and "\\`code\\`" in text, f"markdown: the name not shown escaped: {table[2]!r}")
    try:
        titles = ET.parse(svg).getroot().findall(".//{http://www.w3.org/2000/svg}title")
        expect(any("<img" in t.text for t in titles), "svg: the name is not in a bar's title")
    except ET.ParseError as e:
        expect(False, f"svg is not XML: {e}")


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
    expect("are the same file" in same.stderr, f"self compare without the same-file warning: {same.stderr}")

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

    with tempfile.TemporaryDirectory() as tmp:
        check_outputs(exe, base, pathlib.Path(tmp), expect)
    with tempfile.TemporaryDirectory() as tmp:
        check_hostile_names(exe, base, pathlib.Path(tmp), expect)

    for f in failures:
        print("FAIL:", f)
    print(f"check_bench_compare: {len(failures)} failures")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
