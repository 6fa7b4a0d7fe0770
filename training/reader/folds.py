"""The folds' held-out figures side by side, and their mean: each fold read by the adapter that
never saw it (folds.sh writes runs/<run>-f<k>/eval-fold<k>-all.json).

    .venv/bin/python folds.py --run r16-all7-all-bal

Needs no packages beyond the standard library. Prints a Markdown table (all, HeQ, dev-v2 rows per
fold, then the mean over the folds present) and writes runs/<run>-folds.json. Where folds.sh read
a fold in the loop too (LOOP=1: runs/<run>-f<k>/loop-dev-v2.json, loop-heq.json), a second table
gives each fold's loop figures and their sums: counts add up over folds (dev-v2's 12 unanswerable
questions lie in five folds), F1 is averaged over the questions.
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


def loop_rows(run: str) -> dict:
    """Each fold's loop figures (harel-builder eval --reader's summary), by set."""
    rows = {}
    for k in range(5):
        for part, file in (("dev-v2", "loop-dev-v2.json"), ("HeQ", "loop-heq.json")):
            path = HERE / "runs" / f"{run}-f{k}" / file
            if path.exists():
                reader = json.loads(path.read_text())["reader"]
                rows.setdefault(k, {})[part] = reader
    return rows


def print_loop(rows: dict) -> dict:
    """Per fold and summed: questions read, span F1 (answerable), "not here" on unanswerable and
    answerable questions read, refusals without and with reader-refuses, call p50."""
    print("\n| fold | set | read | F1 | not here: unanswerable | not here: answerable | unanswerable refused (with reader-refuses) | answerable refused (with) | call p50 |")
    print("|" + "---|" * 9)
    totals = {}
    for k in sorted(rows):
        for part, r in rows[k].items():
            loop, na, records = r["loop"], r["noAnswer"], r["records"]
            said_un = sum(1 for q in records if not q["answerable"] and q["calls"] > 0 and q["verdict"] == "no-answer")
            said_an = sum(1 for q in records if q["answerable"] and q["calls"] > 0 and q["verdict"] == "no-answer")
            answerable = sum(1 for q in records if q["answerable"])
            t = totals.setdefault(part, {"read": 0, "f1sum": 0.0, "answerable": 0, "saidUn": 0, "unRead": 0, "saidAn": 0, "anRead": 0,
                                         "un": 0, "refUn": 0, "refUnR": 0, "an": 0, "ref": 0, "refR": 0})
            t["read"] += r["read"]
            t["f1sum"] += r["f1"] * answerable  # the summary's F1 is the mean over the answerable questions
            t["answerable"] += answerable
            t["saidUn"] += said_un
            t["unRead"] += na["unanswerableRead"]
            t["saidAn"] += said_an
            t["anRead"] += na["answerableRead"]
            for key, src in (("un", "unanswerable"), ("refUn", "refusedUnanswerable"), ("refUnR", "refusedUnanswerableWithReader"),
                             ("an", "answerable"), ("ref", "falseRefusals"), ("refR", "falseRefusalsWithReader")):
                t[key] += loop[src]
            p50 = f"{r['msP50'] / 1000:.1f} s" if r["msP50"] else "—"
            print(f"| {k} | {part} | {r['read']} | {r['f1']:.3f} | {said_un} of {na['unanswerableRead']} | {said_an} of {na['answerableRead']} | "
                  f"{loop['refusedUnanswerable']} ({loop['refusedUnanswerableWithReader']}) of {loop['unanswerable']} | "
                  f"{loop['falseRefusals']} ({loop['falseRefusalsWithReader']}) of {loop['answerable']} | {p50} |")
    for part, t in totals.items():
        f1 = t["f1sum"] / t["answerable"] if t["answerable"] else 0.0
        print(f"| all {len(rows)} | {part} | {t['read']} | {f1:.3f} | {t['saidUn']} of {t['unRead']} | {t['saidAn']} of {t['anRead']} | "
              f"{t['refUn']} ({t['refUnR']}) of {t['un']} | {t['ref']} ({t['refR']}) of {t['an']} | |")
    return totals


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
    loops = loop_rows(args.run)
    loop_totals = print_loop(loops) if loops else None
    out = HERE / "runs" / f"{args.run}-folds.json"
    out.write_text(json.dumps({"run": args.run, "folds": rows, "mean": mean, "loopTotals": loop_totals}, indent=1) + "\n")
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
