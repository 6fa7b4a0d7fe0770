"""A no-answer threshold for the refusal role, fitted without looking at what it is scored on.

    .venv/bin/python threshold.py runs/<run>/eval-fold0-n517.json [--max-false 0.15]
    .venv/bin/python threshold.py runs/<run>/eval-fold0-n517.json runs/<run-s2>/eval-fold0-n517.json

The verdict "not in this passage" becomes p(no-answer) >= t, p being the no-answer token's
probability at the first reply position (evaluate.py's p_no_answer; the widget reads the same from
llama.cpp). The held-out fold's examples are cut in two halves by origin (a HeQ paragraph or a
dev-v2 question, hashed: no origin in both halves); t is fitted on one half (the highest recall
whose false no-answer rate stays <= --max-false) and scored on the other, and the other way round.
So each figure printed is measured on examples that neither the adapter nor t saw.
Greedy decoding's own verdict is printed beside it, and the AUC: how often an example to refuse
gets a higher p(no-answer) than an answerable one (ties count half).
Given several evaluations of the same examples (adapters of other seeds), p(no-answer) is their
mean (the readers' verdicts averaged), and "greedy" becomes mean p >= 0.5. Standard library only.

F1 at the cross-fitted threshold needs the answerable examples that greedy decoding refused with
p(no-answer) below their half's t read again with the no-answer token barred:

    .venv/bin/python threshold.py runs/<run>/eval-fold0-n517.json --reread-ids ids.json   # prints the evaluate.py command
    .venv/bin/python threshold.py runs/<run>/eval-fold0-n517.json --reread reread.json    # F1 and exact per source at t
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


def auc(rows: list[dict]) -> float | None:
    refusable = [r["p_no_answer"] for r in rows if r["target"] == NO_ANSWER]
    answerable = [r["p_no_answer"] for r in rows if r["target"] != NO_ANSWER]
    if not refusable or not answerable:
        return None
    wins = sum((p > q) + 0.5 * (p == q) for p in refusable for q in answerable)
    return round(wins / (len(refusable) * len(answerable)), 3)


def averaged(evals: list[list[dict]]) -> list[dict]:
    """The first evaluation's rows, each with the mean p(no-answer) over all of them."""
    by_id = [{r["id"]: r for r in rows} for rows in evals]
    if any(set(ids) != set(by_id[0]) for ids in by_id):
        raise SystemExit("threshold.py: the evaluations read different examples; give ones of the same fold and --limit")
    rows = []
    for r in evals[0]:
        p = sum(ids[r["id"]]["p_no_answer"] for ids in by_id) / len(by_id)
        rows.append({**r, "p_no_answer": p, "no_answer": p >= 0.5})
    return rows


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
    parser.add_argument("eval", type=Path, nargs="+", help="evaluate.py's JSON (--limit 0 for a whole fold); several: their mean p(no-answer)")
    parser.add_argument("--data", type=Path, default=Path(__file__).resolve().parent / "data/reader.jsonl")
    parser.add_argument("--max-false", type=float, default=0.15, dest="max_false")
    parser.add_argument("--reread-ids", type=Path, default=None, dest="reread_ids",
                        help="write the ids of answerable examples greedy refused below their half's t (one evaluation only)")
    parser.add_argument("--reread", type=Path, default=None,
                        help="evaluate.py's JSON for those ids (--no-answer-threshold): F1 and exact at the cross-fitted t")
    args = parser.parse_args()
    if (args.reread_ids or args.reread) and len(args.eval) > 1:
        raise SystemExit("threshold.py: --reread-ids and --reread read one evaluation's replies")
    origin = {}
    for line in open(args.data):
        row = json.loads(line)
        origin[row["id"]] = row["origin"]
    evals = [json.loads(path.read_text())["results"] for path in args.eval]
    rows = evals[0] if len(evals) == 1 else averaged(evals)
    halves = [[r for r in rows if half_of(origin[r["id"]]) == h] for h in (0, 1)]
    names = " + ".join(map(str, args.eval))
    print(f"{names}: {len(rows)} replies; halves of {len(halves[0])} and {len(halves[1])} (by origin)")
    verdict = "greedy" if len(evals) == 1 else "mean p >= 0.5"
    # Each half's t is fitted on the other half whole, whatever the source reported.
    t_half = [fit(halves[1 - h], args.max_false) for h in (0, 1)]
    for source in (None, "heq", "dev-v2"):
        part = (lambda rs: rs) if source is None else (lambda rs, s=source: [r for r in rs if r["source"] == s])
        greedy = rates(part(rows), lambda r: r["no_answer"])
        scored = [(t_half[h], part(halves[h])) for h in (0, 1)]
        refused = [r for t, rs in scored for r in rs if r["p_no_answer"] >= t]
        both = [r for _, rs in scored for r in rs]
        ids = {id(r) for r in refused}
        crossed = rates(both, lambda r: id(r) in ids)
        name = source or "all"
        print(f"{name:7} {verdict}: recall {greedy['recall']} false {greedy['falseRate']} | AUC {auc(part(rows))} | threshold fitted on the other half "
              f"(t = {scored[0][0]:.3f} / {scored[1][0]:.3f}): recall {crossed['recall']} false {crossed['falseRate']} (n {crossed['n']})")
    t_of = {r["id"]: t_half[h] for h in (0, 1) for r in halves[h]}
    if args.reread_ids:
        ids = [r["id"] for r in rows if r["target"] != NO_ANSWER and r["no_answer"] and r["p_no_answer"] < t_of[r["id"]]]
        args.reread_ids.write_text(json.dumps(ids))
        print(f"wrote {len(ids)} ids to {args.reread_ids}; read them with: .venv/bin/python evaluate.py --fold <fold> --limit 0 "
              f"--adapter <adapter> --no-answer-threshold {max(t_of.values()):.4g} --ids {args.reread_ids} --out <reread.json>")
    if args.reread:
        reread = {r["id"]: r for r in json.loads(args.reread.read_text())["results"]}
        for source in ("heq", "dev-v2"):
            answerable = [r for r in rows if r["source"] == source and r["target"] != NO_ANSWER]
            # refused at t scores 0; a greedy refusal below t takes its reread span; the rest keep greedy's reply
            scored = [reread[r["id"]] if r["id"] in reread else r for r in answerable]
            f1 = [0.0 if r["p_no_answer"] >= t_of[r["id"]] else s["f1"] for r, s in zip(answerable, scored)]
            exact = [0.0 if r["p_no_answer"] >= t_of[r["id"]] else s["exact"] for r, s in zip(answerable, scored)]
            missing = sum(r["no_answer"] and r["p_no_answer"] < t_of[r["id"]] and r["id"] not in reread for r in answerable)
            note = f" ({missing} to reread missing: scored as refused)" if missing else ""
            print(f"{source:7} at the cross-fitted t: F1 {sum(f1) / len(f1):.3f} exact {sum(exact) / len(exact):.3f} (answerable {len(answerable)}){note}")


if __name__ == "__main__":
    main()
