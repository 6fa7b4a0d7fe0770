"""Greedy reading of the held-out fold, by the base model or with an adapter, and its figures.

    .venv/bin/python evaluate.py --fold 0 --limit 40                       # the base model
    .venv/bin/python evaluate.py --fold 0 --limit 40 --adapter runs/r16-all7-upper-bal/adapter
    .venv/bin/python evaluate.py --fold 0 --limit 0 --adapter adapter --span-only --ids ids.json  # only those examples

The subset: the fold's examples grouped by (source, kind), each group in a seeded order, then taken
round-robin, so the first N hold every source and kind in about equal numbers.
Figures (answerable = target is a span; no-answer = unanswerable or another page's window):
- f1, exact: SQuAD-style over answerable examples, best over the gold spans; both sides are cut
  into words (hebrew_text.answer_tokens: punctuation and quote marks gone, lower case, a leading ו
  and then one of ה ב ל מ ש כ removed where two letters remain). A no-answer reply scores 0.
- noAnswer.recall: no-answer examples the model answered NO_ANSWER;
  noAnswer.falseRate: answerable examples it answered NO_ANSWER.
- grounded: replies other than NO_ANSWER that are verbatim in their passage.
- ms: per example, prompt processing and decoding (mean and p50).
Writes the per-example replies and the summary beside the adapter (runs/base/ without one, runs/shipped/
for the committed adapter/).
"""

import argparse
import json
import random
import statistics
import time
from collections import Counter, defaultdict
from pathlib import Path

from hebrew_text import answer_tokens, normalize_space
from prompt_format import ANSWER_TOKENS, NO_ANSWER

HERE = Path(__file__).resolve().parent
SEED = 1234


def f1_exact(prediction: str, gold: list[str]) -> tuple[float, float]:
    best_f1, best_em = 0.0, 0.0
    p = answer_tokens(prediction)
    for g in gold:
        t = answer_tokens(g)
        common = sum((Counter(p) & Counter(t)).values())
        if common:
            precision, recall = common / len(p), common / len(t)
            best_f1 = max(best_f1, 2 * precision * recall / (precision + recall))
        best_em = max(best_em, float(p == t))
    return best_f1, best_em


def is_no_answer(reply: str) -> bool:
    return normalize_space(reply).startswith(NO_ANSWER)


def subset(rows: list[dict], fold: int, limit: int) -> list[dict]:
    groups = defaultdict(list)
    for r in rows:
        if r["fold"] == fold:
            groups[(r["source"], r["kind"])].append(r)
    rng = random.Random(SEED)
    queues = []
    for key in sorted(groups):
        rng.shuffle(groups[key])
        queues.append(groups[key])
    out = []
    while any(queues) and (not limit or len(out) < limit):
        for q in queues:
            if q and (not limit or len(out) < limit):
                out.append(q.pop())
    return out


def summarize(results: list[dict]) -> dict:
    answerable = [r for r in results if r["target"] != NO_ANSWER]
    refusable = [r for r in results if r["target"] == NO_ANSWER]
    spans = [r for r in results if not r["no_answer"]]
    ms = [r["ms"] for r in results]

    def mean(xs):
        return round(sum(xs) / len(xs), 3) if xs else None

    return {
        "n": len(results),
        "answerable": len(answerable),
        "f1": mean([r["f1"] for r in answerable]),
        "exact": mean([r["exact"] for r in answerable]),
        "noAnswer": {
            "n": len(refusable),
            "recall": mean([float(r["no_answer"]) for r in refusable]),
            "falseRate": mean([float(r["no_answer"]) for r in answerable]),
        },
        "grounded": mean([float(r["grounded"]) for r in spans]),
        "msMean": round(statistics.mean(ms)) if ms else None,
        "msP50": round(statistics.median(ms)) if ms else None,
    }


def read(model, ids, fmt, stop, bar=None):
    """Greedy decoding of one prompt; `bar` lists tokens forbidden as the first reply token."""
    import torch

    with torch.no_grad():
        return model.generate(
            input_ids=ids,
            attention_mask=torch.ones_like(ids),
            max_new_tokens=ANSWER_TOKENS,
            do_sample=False,
            eos_token_id=stop,
            pad_token_id=fmt.tok.pad_token_id or 0,
            begin_suppress_tokens=bar,
            output_scores=True,
            return_dict_in_generate=True,
        )


def read_span(model, ids, fmt, stop, constraint, top_k=64):
    """Greedy decoding that may only write what `constraint` allows (span_constraint.py): at each
    step the likeliest of the top `top_k` tokens that keeps the reply allowed; an end-of-turn
    token once something is written; nothing left in the top `top_k` ends the reply. Returns the
    reply's token ids and the first step's logits."""
    import torch

    with torch.no_grad():
        out = model(input_ids=ids, attention_mask=torch.ones_like(ids), use_cache=True)
        first = logits = out.logits[0, -1]
        reply: list[int] = []
        for _ in range(ANSWER_TOKENS):
            choice = None
            for t in torch.topk(logits, top_k).indices.tolist():
                if t in stop:
                    if reply:
                        choice = t
                        break
                elif constraint.allows(fmt.tok.decode(reply + [t], skip_special_tokens=True)):
                    choice = t
                    break
            if choice is None or choice in stop:
                break
            reply.append(choice)
            out = model(input_ids=torch.tensor([[choice]]), past_key_values=out.past_key_values, use_cache=True)
            logits = out.logits[0, -1]
    return reply, first


def main():
    parser = argparse.ArgumentParser(description="Held-out figures of the reader")
    parser.add_argument("--data", default="data/reader.jsonl")
    parser.add_argument("--fold", type=int, default=0)
    parser.add_argument("--limit", type=int, default=40, help="examples (0: the whole fold)")
    parser.add_argument("--adapter", type=Path, default=None, help="a folder with adapter_model.safetensors")
    parser.add_argument("--no-answer-threshold", type=float, default=None, dest="threshold",
                        help="say no-answer only where the no-answer token's probability at the first step is at least this; below it, decode again with that token barred (default: plain greedy)")
    parser.add_argument("--span-only", action="store_true", dest="span_only",
                        help="decode only verbatim spans of the passage, or the no-answer string (span_constraint.py; measured, did not gain: README.md)")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--ids", type=Path, default=None, help="a JSON list of example ids: read only those (of the chosen subset)")
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args()

    import torch

    from gemma_io import load_adapter, load_base_model, load_tokenizer
    from prompt_format import PromptFormat
    from span_constraint import SpanConstraint

    torch.set_num_threads(args.threads)
    rows = [json.loads(line) for line in open(HERE / args.data)]
    chosen = subset(rows, args.fold, args.limit)
    if args.ids:
        wanted = set(json.loads(args.ids.read_text()))
        chosen = [r for r in chosen if r["id"] in wanted]
    fmt = PromptFormat(load_tokenizer())
    model = load_base_model()
    if args.adapter:
        model = load_adapter(model, args.adapter)
    model.eval()
    model.config.use_cache = True
    no_first = fmt.encode(NO_ANSWER)[0]
    stop = [fmt.end_turn, fmt.tok.eos_token_id, fmt.start_turn]
    name = args.adapter.parent.name if args.adapter else "base"
    folder = args.adapter.parent if args.adapter else HERE / "runs" / "base"
    if folder.resolve() == HERE:
        # the committed adapter/ sits here, beside the scripts: its replies go to git-ignored runs/
        name, folder = "shipped", HERE / "runs" / "shipped"
    # train.py --adapter_every's snapshots (adapter-step<N>/) share their run's folder: each its own file
    snapshot = f"-{args.adapter.name}" if args.adapter and args.adapter.name != "adapter" else ""
    name += snapshot
    out = args.out or folder / f"eval-fold{args.fold}-n{len(chosen)}{'' if args.threshold is None else f'-t{args.threshold}'}{'-span' if args.span_only else ''}{snapshot}.json"
    out.parent.mkdir(parents=True, exist_ok=True)

    results = []
    for k, ex in enumerate(chosen):
        ids = torch.tensor([fmt.prompt_ids(ex["question"], ex["passage"])])
        t = time.time()
        if args.span_only:
            new, first = read_span(model, ids, fmt, stop, SpanConstraint(ex["passage"], NO_ANSWER))
            p_no = torch.softmax(first.float(), -1)[no_first].item()
        else:
            gen = read(model, ids, fmt, stop)
            p_no = torch.softmax(gen.scores[0][0].float(), -1)[no_first].item()
            if args.threshold is not None and p_no < args.threshold and gen.sequences[0, ids.shape[1]].item() == no_first:
                gen = read(model, ids, fmt, stop, bar=[no_first])
            new = [i for i in gen.sequences[0, ids.shape[1] :].tolist() if i not in stop]
        ms = (time.time() - t) * 1000
        reply = normalize_space(fmt.tok.decode(new, skip_special_tokens=True))
        no_answer = is_no_answer(reply)
        f1, em = (0.0, 0.0) if no_answer else f1_exact(reply, ex["answers"] or [ex["target"]])
        r = {
            "id": ex["id"], "source": ex["source"], "kind": ex["kind"], "target": ex["target"], "reply": reply,
            "no_answer": no_answer, "p_no_answer": round(p_no, 4), "f1": round(f1, 3), "exact": em,
            "grounded": (not no_answer) and bool(reply) and reply in ex["passage"], "ms": round(ms),
        }
        results.append(r)
        print(f"[{k + 1}/{len(chosen)}] {ex['source']}/{ex['kind']} f1 {f1:.2f} {ms:.0f} ms | {reply[:60]!r} <- {ex['target'][:40]!r}", flush=True)

    summary = {"model": name, "fold": args.fold, "limit": args.limit, "threshold": args.threshold, "spanOnly": args.span_only, "all": summarize(results)}
    for source in sorted({r["source"] for r in results}):
        summary[source] = summarize([r for r in results if r["source"] == source])
    out.write_text(json.dumps({"summary": summary, "results": results}, ensure_ascii=False, indent=1) + "\n")
    print(json.dumps(summary, indent=1))
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
