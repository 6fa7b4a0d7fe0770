"""Writes adapter/reference.json: a fixed set of questions (reference-questions.json, written for
this test, not taken from any data set), their token ids and the vectors this training code's forward pass gives them with the
committed adapter. tests/unit/models/e5-query-reference.test.ts embeds the same questions with the
question model `models fetch` wrote (the widget's code: its tokenizer, the ONNX graph with the
adapter) and asks for the same ids and cosine ≥ 0.999: training and product compute one function.

    ../reader/.venv/bin/python reference_vectors.py [--adapter adapter]
"""

import argparse
import json
import sys
from pathlib import Path

import torch
from safetensors.torch import load_file

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from e5_model import E5, padded  # noqa: E402

parser = argparse.ArgumentParser()
parser.add_argument("--adapter", default=str(HERE / "adapter"))
args = parser.parse_args()

# The widget's tokenizer's ids (export_data.ts writes them: Python's `tokenizers` cannot read the
# folder's tokenizer.json, whose Precompiled map is null).
reference = json.loads((HERE / "data" / "reference_ids.json").read_text())
QUESTIONS, ids = [r["text"] for r in reference], [r["ids"] for r in reference]
adapter_dir = Path(args.adapter)
meta = json.loads((adapter_dir / "adapter.json").read_text())
model = E5(HERE / "data")
model.adapter = load_file(str(adapter_dir / "adapter.safetensors"))
model.scale = meta["scale"]
with torch.no_grad():
    vectors = [model.encode(*padded([one]))[0] for one in ids]  # one at a time, as a question is embedded
out = {"model": meta["id"], "questions": [{"text": q, "ids": i, "vector": [round(float(x), 6) for x in v]} for q, i, v in zip(QUESTIONS, ids, vectors)]}
(adapter_dir / "reference.json").write_text(json.dumps(out, ensure_ascii=False) + "\n")
print(f"{adapter_dir / 'reference.json'}: {len(QUESTIONS)} questions")
