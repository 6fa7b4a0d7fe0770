"""A no-answer threshold for the refusal role, fitted without looking at what it is scored on.

    .venv/bin/python threshold.py runs/<run>/eval-fold0-n517.json [--max-false 0.15]

The verdict "not in this passage" becomes p(no-answer) >= t, p being the no-answer token's
probability at the first reply position (evaluate.py's p_no_answer; the widget reads the same from
llama.cpp). The held-out fold's examples are cut in two halves by origin (a HeQ paragraph or a
dev-v2 question, hashed: no origin in both halves); t is fitted on one half (the highest recall
whose false no-answer rate stays <= --max-false) and scored on the other, and the other way round.
So each figure printed is measured on examples that neither the adapter nor t saw.
Greedy decoding's own verdict is printed beside it. Standard library only.
"""

import argparse
import hashlib
import json
from pathlib import Path

NO_ANSWER = "אין בקטע"  # prompt_format.NO_ANSWER


def half_of(origin: str) -> int:
    return hashlib.sha256(origin.encode()).digest()[0] & 1


def rates(rows: list[dict], refuse) -> dict:
    refusable = [r for r in rows if r["target"] == NO_ANSWER]
    answerable = [r for r in rows if r["target"] != NO_ANSWER]
    return {
        "recall": round(sum(map(refuse, refusable)) / len(refusable), 3) if refusable else None,
        "falseRate": round(sum(map(refuse, answerable)) / len(answerable), 3) if answerable else None,
        "n": len(rows),
    }


def fit(rows: list[dict], max_false: float) -> float:
    """The lowest t (most refusals) whose false no-answer rate on `rows` is <= max_false."""
    best = 1.01
    for t in sorted({r["p_no_answer"] for r in rows}, reverse=True):
        if rates(rows, lambda r, t=t: r["p_no_answer"] >= t)["falseRate"] > max_false:
            break
        best = t
    return best


def main():
    parser = argparse.ArgumentParser(description="A cross-fitted no-answer threshold on a held-out fold's replies")
    parser.add_argument("eval", type=Path, help="evaluate.py's JSON (--limit 0 for a whole fold)")
    parser.add_argument("--data", type=Path, default=Path(__file__).resolve().parent / "data/reader.jsonl")
    parser.add_argument("--max-false", type=float, default=0.15, dest="max_false")
    args = parser.parse_args()
    origin = {}
    for line in open(args.data):
        row = json.loads(line)
        origin[row["id"]] = row["origin"]
    rows = json.loads(args.eval.read_text())["results"]
    halves = [[r for r in rows if half_of(origin[r["id"]]) == h] for h in (0, 1)]
    print(f"{args.eval}: {len(rows)} replies; halves of {len(halves[0])} and {len(halves[1])} (by origin)")
    for source in (None, "heq", "dev-v2"):
        part = (lambda rs: rs) if source is None else (lambda rs, s=source: [r for r in rs if r["source"] == s])
        greedy = rates(part(rows), lambda r: r["no_answer"])
        scored = []
        for h in (0, 1):
            t = fit(halves[1 - h], args.max_false)
            scored.append((t, part(halves[h])))
        refused = [r for t, rs in scored for r in rs if r["p_no_answer"] >= t]
        both = [r for _, rs in scored for r in rs]
        ids = {id(r) for r in refused}
        crossed = rates(both, lambda r: id(r) in ids)
        name = source or "all"
        print(f"{name:7} greedy: recall {greedy['recall']} false {greedy['falseRate']} | threshold fitted on the other half "
              f"(t = {scored[0][0]:.3f} / {scored[1][0]:.3f}): recall {crossed['recall']} false {crossed['falseRate']} (n {crossed['n']})")


if __name__ == "__main__":
    main()
