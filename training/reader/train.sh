#!/usr/bin/env bash
# `npm run train:reader [-- --run NAME --steps N ...]`: makes the venv if missing, prepares the data
# if missing, then trains (resuming from runs/<run>/ckpt.pt where it exists). The log is
# runs/<run>/train.log. Never part of `npm test`: it takes hours on two cores.
set -euo pipefail
cd "$(dirname "$0")"
# --help and a bad option answer before anything is installed (train.py's parsing needs no packages)
PY="$(command -v python3.11 || command -v python3)"
for arg in "$@"; do case "$arg" in -h | --help) exec "$PY" train.py --help ;; esac; done
"$PY" train.py "$@" --parse-only
bash setup.sh
if [ ! -f data/reader.jsonl ]; then
  mkdir -p data
  .venv/bin/python prepare_data.py | tee data/prepare.log
fi
exec .venv/bin/python train.py "$@"
