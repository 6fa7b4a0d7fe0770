#!/usr/bin/env bash
# Makes training/reader/.venv with the pinned requirements (Python >= 3.10; 3.11 is what they were
# pinned with). Re-run it after requirements.txt changes: it installs again when the file's hash
# differs from the one recorded in .venv/requirements.sha256.
set -euo pipefail
cd "$(dirname "$0")"
PYTHON="${PYTHON:-$(command -v python3.11 || command -v python3)}"
"$PYTHON" -c 'import sys; assert sys.version_info >= (3, 10), "Python 3.10+ needed"'
want="$(sha256sum requirements.txt | cut -d' ' -f1)"
if [ -f .venv/requirements.sha256 ] && [ "$(cat .venv/requirements.sha256)" = "$want" ]; then
  echo "training/reader/.venv is up to date"
  exit 0
fi
[ -x .venv/bin/python ] || "$PYTHON" -m venv .venv
.venv/bin/pip install --quiet --upgrade pip
.venv/bin/pip install --quiet -r requirements.txt
echo "$want" > .venv/requirements.sha256
echo "training/reader/.venv ready ($(.venv/bin/python -c 'import torch, transformers, peft; print("torch", torch.__version__, "transformers", transformers.__version__, "peft", peft.__version__)'))"
