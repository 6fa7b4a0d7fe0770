"""A plain BM25 over prefix-stripped words: which other page or paragraph looks most like the
question, so that a negative example is one a retriever could really hand the reader."""

import math
from collections import Counter

from hebrew_text import strip_prefix, words


def terms(text: str) -> list[str]:
    return [strip_prefix(w) for w in words(text)]


class BM25:
    def __init__(self, documents: list[str], k1: float = 1.2, b: float = 0.75):
        self.k1, self.b = k1, b
        self.counts = [Counter(terms(d)) for d in documents]
        self.lengths = [sum(c.values()) for c in self.counts]
        self.average = sum(self.lengths) / max(1, len(self.lengths))
        df = Counter(t for c in self.counts for t in c)
        n = len(documents)
        self.idf = {t: math.log(1 + (n - f + 0.5) / (f + 0.5)) for t, f in df.items()}

    def scores(self, query: str) -> list[float]:
        q = set(terms(query))
        out = []
        for counts, length in zip(self.counts, self.lengths):
            s = 0.0
            norm = self.k1 * (1 - self.b + self.b * length / self.average)
            for t in q:
                f = counts.get(t)
                if f:
                    s += self.idf[t] * f * (self.k1 + 1) / (f + norm)
            out.append(s)
        return out

    def ranked(self, query: str, allowed=None) -> list[int]:
        """Document indices, best first; `allowed(i)` filters."""
        scores = self.scores(query)
        order = sorted(range(len(scores)), key=lambda i: -scores[i])
        return [i for i in order if scores[i] > 0 and (allowed is None or allowed(i))]
