"""Writes the dev-v2 questions of one fold (those the adapter of a run holding that fold out never
saw) as a question file `harel-builder eval` reads, so the reader in the loop is measured held-out:

    .venv/bin/python held_out_questions.py --fold 0 --out ../../.tmp/dev-v2-fold0.json
    npx harel-builder eval .tmp/harel --questions .tmp/dev-v2-fold0.json --reader models/gguf/gemma-3-270m-harel-reader.gguf

The folds are the ones prepare_data.py wrote into data/reader.jsonl (seeded), read back from there.
"""

import argparse
import json
import re
from pathlib import Path

HERE = Path(__file__).resolve().parent
DEV = HERE.parent.parent.parent / "shared" / "data" / "harel" / "questions" / "dev-v2.json"

parser = argparse.ArgumentParser()
parser.add_argument("--fold", type=int, default=0)
parser.add_argument("--out", required=True)
parser.add_argument("--data", default=str(HERE / "data" / "reader.jsonl"))
parser.add_argument("--heq", action="store_true", help="HeQ's questions of the fold's paragraphs instead (a SQuAD 2.0 file)")
args = parser.parse_args()

if args.heq:
    # HeQ is split by paragraph: a question belongs to its paragraph's fold (origin "heq:p<i>",
    # paragraphs numbered in the file's order, as prepare_data.py reads them).
    heq_file = DEV.parent.parent.parent / "heq" / "heq_v1.1_val.json"
    squad = json.loads(heq_file.read_text(encoding="utf-8"))
    fold_of: dict[int, int] = {}
    for line in open(args.data, encoding="utf-8"):
        row = json.loads(line)
        if row["source"] == "heq" and row["kind"] != "other-page":
            fold_of.setdefault(int(row["origin"].split(":p")[1]), row["fold"])
    index, kept, questions = 0, 0, 0
    for article in squad["data"]:
        for paragraph in article["paragraphs"]:
            if fold_of.get(index) != args.fold:
                paragraph["qas"] = []
            kept += bool(paragraph["qas"])
            questions += len(paragraph["qas"])
            index += 1
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps(squad, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"HeQ fold {args.fold}: {questions} questions over {kept} of {index} paragraphs -> {args.out}")
    raise SystemExit(0)

folds: dict[str, int] = {}
for line in open(args.data, encoding="utf-8"):
    row = json.loads(line)
    if row["source"] != "dev-v2":
        continue
    # ids: "<question id>-<n>:<kind>" (answer n, unanswerable rank n) or "<question id>:<kind>"
    qid = re.sub(r"-\d+$", "", row["id"].split(":")[0])
    folds.setdefault(qid, row["fold"])

questions = json.loads(DEV.read_text(encoding="utf-8"))
known = {q["id"] for q in questions}
unknown = sorted(set(folds) - known)
if unknown:
    raise SystemExit(f"error: ids in {args.data} not in dev-v2: {unknown[:5]}")
chosen = [q for q in questions if folds.get(q["id"]) == args.fold]
Path(args.out).parent.mkdir(parents=True, exist_ok=True)
Path(args.out).write_text(json.dumps(chosen, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
unanswerable = sum(1 for q in chosen if q.get("answerable") is False)
print(f"fold {args.fold}: {len(chosen)} questions ({unanswerable} unanswerable) of {len(questions)}; "
      f"{sum(1 for q in questions if q['id'] not in folds)} never made an example (no fold) -> {args.out}")
