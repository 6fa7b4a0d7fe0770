#!/usr/bin/env bash
# `npm run train:reader:folds [-- --run NAME --<setting> <value> ...]`: one adapter per fold, each
# trained with that fold held out and then read on it (evaluate.py --limit 0), and the folds' mean
# (folds.py). These are the held-out figures a reported number rests on, and the adapters whose
# verdicts on a fold's questions an answerability refit may use (no question read by an adapter
# that trained on it). About 80 minutes a fold on two cores (train.py's defaults): run it in the
# background. It resumes: train.py from runs/<run>-f<k>/ckpt.pt; a fold whose adapter exists is not
# trained again, nor one whose eval file exists read again. FOLDS="0 1" limits the folds.
# LOOP=1 also reads each fold in the loop, as the widget does (Chromium, BM25, reader-calls 2): the
# fold's adapter merged as `models fetch` merges the shipped one (runs/<run>-f<k>/gguf/), then
# `harel-builder eval --reader` on the fold's dev-v2 questions and every 4th of its HeQ questions
# (runs/<run>-f<k>/loop-dev-v2.json, loop-heq.json): the held-out records, p(no-answer) included,
# that an answerability refit with the reader's verdict reads. ~15 minutes a fold.
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
# The fold's adapter in the loop: merged onto the base GGUF of models/gguf/ (linked with its .sha256
# record, which `models fetch` reads as "already present": no second download), then read on the
# fold's own questions over BM25 indexes of the corpus and of HeQ (built once into .tmp/).
read_in_loop() {
  local k="$1" name="$2" root=../..
  local gguf="runs/$name/gguf/gemma-3-270m-harel-reader.gguf" base="gemma-3-270m-q4_k_m.gguf"
  if [ ! -f "$gguf" ]; then
    mkdir -p "runs/$name/gguf"
    for f in "$base" "$base.sha256"; do ln -sf "$(cd "$root" && pwd)/models/gguf/$f" "runs/$name/gguf/$f"; done
    (cd "$root" && npx harel-builder models fetch --only gemma --adapter "training/reader/runs/$name/adapter" --out "training/reader/runs/$name" --quiet)
    rm -f "runs/$name/gguf/$base" "runs/$name/gguf/$base.sha256"
  fi
  .venv/bin/python held_out_questions.py --fold "$k" --out "runs/$name/dev-v2-fold$k.json"
  .venv/bin/python held_out_questions.py --heq --fold "$k" --out "runs/$name/heq-fold$k.json"
  (
    cd "$root"
    [ -d .tmp/harel ] || npx harel-builder build ../shared/data/harel/corpus --out .tmp/harel --no-embed --quiet
    [ -d .tmp/heq ] || npx harel-builder build ../shared/data/heq/heq_v1.1_val.json --out .tmp/heq --no-embed --quiet
    local run="training/reader/runs/$name" model="training/reader/$gguf"
    [ -f "$run/loop-dev-v2.json" ] || npx harel-builder eval .tmp/harel --questions "$run/dev-v2-fold$k.json" --reader "$model" --json "$run/loop-dev-v2.json" --quiet
    [ -f "$run/loop-heq.json" ] || npx harel-builder eval .tmp/heq --questions "$run/heq-fold$k.json" --no-route --every 4 --reader "$model" --json "$run/loop-heq.json" --quiet
  )
}

for k in ${FOLDS:-0 1 2 3 4}; do
  name="$run-f$k"
  [ -f "runs/$name/adapter/adapter_model.safetensors" ] || .venv/bin/python train.py --run "$name" --held_out_fold "$k" "${args[@]}"
  out="runs/$name/eval-fold$k-all.json"
  [ -f "$out" ] || .venv/bin/python evaluate.py --fold "$k" --limit 0 --adapter "runs/$name/adapter" --out "$out"
  if [ "${LOOP:-0}" = 1 ]; then read_in_loop "$k" "$name"; fi
done
.venv/bin/python folds.py --run "$run"
