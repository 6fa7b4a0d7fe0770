"""The folds' held-out figures side by side, and their mean: each fold read by the adapter that
never saw it (folds.sh writes runs/<run>-f<k>/eval-fold<k>-all.json).

    .venv/bin/python folds.py --run r16-all7-all-bal

Needs no packages beyond the standard library. Prints a Markdown table (all, HeQ, dev-v2 rows per
fold, then the mean over the folds present) and writes runs/<run>-folds.json.
"""

import argparse
import json
import statistics
from pathlib import Path

HERE = Path(__file__).resolve().parent
COLUMNS = [("f1", "F1"), ("exact", "exact"), ("recall", "no-answer recall"), ("falseRate", "false no-answer"), ("grounded", "grounded"), ("msP50", "ms p50")]


def figures(summary: dict) -> dict:
    return {
        "n": summary["n"],
        "f1": summary["f1"],
        "exact": summary["exact"],
        "recall": summary["noAnswer"]["recall"],
        "falseRate": summary["noAnswer"]["falseRate"],
        "grounded": summary["grounded"],
        "msP50": summary["msP50"],
    }


def main():
    parser = argparse.ArgumentParser(description="The folds' held-out figures and their mean")
    parser.add_argument("--run", default="r16-all7-all-bal")
    args = parser.parse_args()
    rows = {}
    for k in range(5):
        path = HERE / "runs" / f"{args.run}-f{k}" / f"eval-fold{k}-all.json"
        if path.exists():
            summary = json.loads(path.read_text())["summary"]
            rows[k] = {part: figures(summary[key]) for part, key in (("all", "all"), ("HeQ", "heq"), ("dev-v2", "dev-v2")) if key in summary}
    if not rows:
        raise SystemExit(f"no fold of {args.run} is evaluated yet (runs/{args.run}-f<k>/eval-fold<k>-all.json): run folds.sh")
    parts = ["all", "HeQ", "dev-v2"]
    mean = {}
    for part in parts:
        present = [rows[k][part] for k in rows if part in rows[k]]
        mean[part] = {c: round(statistics.mean(r[c] for r in present if r[c] is not None), 3) for c, _ in COLUMNS if any(r[c] is not None for r in present)}
        mean[part]["n"] = sum(r["n"] for r in present)
    print(f"| fold | set | n | {' | '.join(title for _, title in COLUMNS)} |")
    print("|" + "---|" * (3 + len(COLUMNS)))
    for k in sorted(rows):
        for part in parts:
            if part in rows[k]:
                r = rows[k][part]
                print(f"| {k} | {part} | {r['n']} | {' | '.join(str(r[c]) for c, _ in COLUMNS)} |")
    for part in parts:
        r = mean[part]
        print(f"| mean of {len(rows)} | {part} | {r['n']} | {' | '.join(str(r.get(c)) for c, _ in COLUMNS)} |")
    out = HERE / "runs" / f"{args.run}-folds.json"
    out.write_text(json.dumps({"run": args.run, "folds": rows, "mean": mean}, indent=1) + "\n")
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
