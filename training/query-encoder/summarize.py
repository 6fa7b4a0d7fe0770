"""Sums the held-out figures of a run's five folds (runs/<run>-f0 … -f4/held_out.json): vector-only
page hit@k, stock against tuned, each question counted once, by the adapter that never saw it.

    python3 summarize.py <run>
"""

import json
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
run = sys.argv[1]
totals: dict = {}
folds = 0
for k in range(5):
    f = HERE / "runs" / f"{run}-f{k}" / "held_out.json"
    if not f.exists():
        continue
    folds += 1
    for s, fig in json.loads(f.read_text())["figures"].items():
        t = totals.setdefault(s, {"n": 0, "stock": {}, "tuned": {}})
        t["n"] += fig["n"]
        for name in ("stock", "tuned"):
            for key, v in fig[name].items():
                t[name][key] = t[name].get(key, 0) + v * fig["n"]
print(f"{run}: {folds} fold(s) held out; vector-only page hit@1/5/10/30")
for s, t in totals.items():
    cells = lambda name: " ".join(f"{100 * t[name][f'hit@{k}'] / t['n']:5.1f}" for k in (1, 5, 10, 30))
    print(f"  {s:7s} n {t['n']:5d}  stock {cells('stock')}  tuned {cells('tuned')}")
