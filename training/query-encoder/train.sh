#!/usr/bin/env bash
# `npm run train:query-encoder [-- --run NAME --held_out_fold K ...]`: makes the shared training venv
# (training/reader/setup.sh: torch, safetensors, numpy), exports the data from the built indexes if
# missing (export_data.ts), then trains one run (resuming from runs/<run>/ckpt.pt where it exists).
# `--folds` first: one run per held-out fold (0-4, run names <run>-f<k>) and then the run on every
# question (<run>-all), the one whose adapter ships. Never part of `npm test`.
set -euo pipefail
cd "$(dirname "$0")"
PY="$(command -v python3.11 || command -v python3)"
folds=0
if [ "${1:-}" = "--folds" ]; then folds=1; shift; fi
for arg in "$@"; do case "$arg" in -h | --help) exec "$PY" train.py --help ;; esac; done
"$PY" train.py "$@" --parse-only
bash ../reader/setup.sh
VENV_PY=../reader/.venv/bin/python
if [ ! -f data/questions.jsonl ]; then
  for dir in ../../.tmp/harel-e5 ../../.tmp/heq-e5; do
    if [ ! -f "$dir/manifest.json" ]; then
      echo "error: $dir is missing: build it first (README.md here, \"Run it\")" >&2
      exit 1
    fi
  done
  (cd ../.. && npx tsx training/query-encoder/export_data.ts) | tee data.log
fi
if [ "$folds" = 0 ]; then exec "$VENV_PY" train.py "$@"; fi
run="$("$PY" -c 'import sys; a=sys.argv[1:]; print(a[a.index("--run")+1] if "--run" in a else "lora-top4")' "$@")"
for k in 0 1 2 3 4 -1; do
  name="$run-f$k"; [ "$k" = -1 ] && name="$run-all"
  "$VENV_PY" train.py "$@" --run "$name" --held_out_fold "$k"
done
