#!/usr/bin/env bash
# `npm run train:reader:folds [-- --run NAME --<setting> <value> ...]`: one adapter per fold, each
# trained with that fold held out and then read on it (evaluate.py --limit 0), and the folds' mean
# (folds.py). These are the held-out figures a reported number rests on, and the adapters whose
# verdicts on a fold's questions an answerability refit may use (no question read by an adapter
# that trained on it). About 80 minutes a fold on two cores (train.py's defaults): run it in the
# background. It resumes: train.py from runs/<run>-f<k>/ckpt.pt; a fold whose adapter exists is not
# trained again, nor one whose eval file exists read again. FOLDS="0 1" limits the folds.
set -euo pipefail
cd "$(dirname "$0")"
PY="$(command -v python3.11 || command -v python3)"
run="r16-all7-all-bal"
args=()
while [ $# -gt 0 ]; do
  case "$1" in
    --run) run="$2"; shift 2 ;;
    --held_out_fold) echo "folds.sh sets --held_out_fold itself (FOLDS=\"0 1\" limits the folds)" >&2; exit 2 ;;
    *) args+=("$1"); shift ;;
  esac
done
"$PY" train.py "${args[@]}" --parse-only
bash setup.sh
if [ ! -f data/reader.jsonl ]; then
  mkdir -p data
  .venv/bin/python prepare_data.py | tee data/prepare.log
fi
for k in ${FOLDS:-0 1 2 3 4}; do
  name="$run-f$k"
  [ -f "runs/$name/adapter/adapter_model.safetensors" ] || .venv/bin/python train.py --run "$name" --held_out_fold "$k" "${args[@]}"
  out="runs/$name/eval-fold$k-all.json"
  [ -f "$out" ] || .venv/bin/python evaluate.py --fold "$k" --limit 0 --adapter "runs/$name/adapter" --out "$out"
done
.venv/bin/python folds.py --run "$run"
