"""The insurer's reader targets, checked by hand: `dev_v2_hand_spans.json` and how it is applied.

prepare_data.py picks each answerable dev-v2 question's target by machine (the shortest run of the
gold window's words with the most fact weight), and a hand check of 15 found 5 right. This file
holds a person's verdict on every one of them, for the window prepare_data.py chose:
- `kept`: the machine's span is the answer;
- `chosen`: another span of the same window is (the shortest that states the ground truth's fact
  with its condition or unit, whole words, as the PDF line stands, reversed figures included);
- `dropped`: no span of the window states it (the fact is computed, cut off by the window's end,
  or in a line whose words or letters stand reversed), and the example is left out.

Spans are stored as character offsets into the window, beside the first 16 hex digits of the
window's sha256, never as text: the corpus is not copied into the repository. A window that no
longer matches (prepare_data.py changed how it cuts them) stops the run rather than mislabel it.

    # applied (prepare_data.py --hand-spans): the shipped data leaves them out
    .venv/bin/python prepare_data.py --hand-spans --out data/reader-hand.jsonl
    # written from a reviewer's labels over data/reader.jsonl (one line an example, tab-separated:
    # its index among the dev-v2 answer examples, then KEEP, DROP<tab>why, or the span's text)
    .venv/bin/python hand_spans.py --labels labels.tsv
"""

import argparse
import hashlib
import json
from collections import Counter
from pathlib import Path

from gemma_io import HERE, load_tokenizer
from prompt_format import ANSWER_TOKENS, PromptFormat

HAND_SPANS = HERE / "dev_v2_hand_spans.json"


def window_key(passage: str) -> str:
    return hashlib.sha256(passage.encode()).hexdigest()[:16]


def is_dev_v2_answer(row: dict) -> bool:
    """the examples this file labels: dev-v2 questions with their gold window (not negatives, not HeQ)"""
    return row["source"] == "dev-v2" and row["kind"] == "answer"


def load(path: Path = HAND_SPANS) -> dict[str, dict]:
    return json.loads(path.read_text())["examples"]


def apply(rows: list[dict], fmt: PromptFormat, spans: dict[str, dict]) -> tuple[list[dict], Counter]:
    """rows with each labelled dev-v2 answer example's target set by hand, or left out if dropped."""
    out, counts = [], Counter()
    for row in rows:
        label = spans.get(row["id"])
        if not is_dev_v2_answer(row) or label is None:
            out.append(row)
            continue
        if label["window"] != window_key(row["passage"]):
            raise SystemExit(f"error: {row['id']}: its window is not the one labelled in {HAND_SPANS.name}; "
                             "prepare_data.py now cuts windows differently: label them again (hand_spans.py --labels)")
        counts[label["verdict"]] += 1
        if label["verdict"] == "dropped":
            continue
        span = row["passage"][label["start"]:label["end"]]
        out.append({**row, "target": span, "answers": [span], "target_tokens": len(fmt.answer_ids(span))})
    unlabelled = sum(1 for r in rows if is_dev_v2_answer(r) and r["id"] not in spans)
    if unlabelled:
        counts["not labelled (machine span)"] = unlabelled
    return out, counts


def from_labels(labels: Path, data: Path, fmt: PromptFormat) -> dict[str, dict]:
    rows = [json.loads(line) for line in data.open()]
    answers = [r for r in rows if is_dev_v2_answer(r)]
    out, problems = {}, []
    for line in labels.read_text().splitlines():
        if not line.strip():
            continue
        index, label, *why = line.split("\t")
        row = answers[int(index)]
        entry = {"window": window_key(row["passage"])}
        if label == "DROP":
            entry |= {"verdict": "dropped", "why": why[0] if why else ""}
        else:
            span = row["target"] if label == "KEEP" else label
            start = row["passage"].find(span)
            if start < 0:
                problems.append(f"#{index} {row['id']}: the span is not in the window")
                continue
            tokens = len(fmt.answer_ids(span))
            if tokens > ANSWER_TOKENS:
                problems.append(f"#{index} {row['id']}: {tokens} tokens with the end of turn, over {ANSWER_TOKENS}")
            entry |= {"verdict": "kept" if label == "KEEP" else "chosen", "start": start, "end": start + len(span)}
        out[row["id"]] = entry
    if problems:
        raise SystemExit("error:\n  " + "\n  ".join(problems))
    if len(out) != len(answers):
        raise SystemExit(f"error: {len(out)} labels for {len(answers)} dev-v2 answer examples")
    return out


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--labels", type=Path, required=True, help="the reviewer's labels (tab-separated; see above)")
    parser.add_argument("--data", type=Path, default=HERE / "data" / "reader.jsonl", help="the examples the labels were made on")
    parser.add_argument("--out", type=Path, default=HAND_SPANS)
    args = parser.parse_args()
    spans = from_labels(args.labels, args.data, PromptFormat(load_tokenizer()))
    verdicts = Counter(e["verdict"] for e in spans.values())
    args.out.write_text(json.dumps({
        "about": "dev-v2 reader targets checked by hand: character offsets into prepare_data.py's windows (hand_spans.py)",
        "verdicts": dict(sorted(verdicts.items())),
        "examples": dict(sorted(spans.items())),
    }, indent=1, ensure_ascii=False) + "\n")
    print(f"wrote {args.out}: {dict(verdicts)}")


if __name__ == "__main__":
    main()
