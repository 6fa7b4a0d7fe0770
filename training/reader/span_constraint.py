"""Which replies a span-only reader may write (evaluate.py --span-only): a verbatim span of its
passage, or the no-answer string. Measured as a decoding constraint before building it into the
widget as a llama.cpp grammar; it did not gain (README.md, "Span-only decoding").

A span begins at the passage's start, after a space or punctuation ('"כולנו"', "(30 יום)" gives
"30 יום"), or after at most three of Hebrew's one-letter prefixes ("בפקיעין" gives "פקיעין": HeQ's
gold spans leave them out, and the model learned to). It may end anywhere. Leading spaces of a
reply are dropped before the check, as the widget's normalizeReaderText drops them.
"""

from hebrew_text import PREFIX_CONJUNCTION, PREFIX_LETTERS

# Hebrew's one-letter prefixes, stacked at most this deep ("ובה…"): HeQ's spans often leave them out.
SPAN_PREFIX_LETTERS = PREFIX_CONJUNCTION + PREFIX_LETTERS
MAX_PREFIX = 3


def is_word_char(c: str) -> bool:
    return c.isalnum()


def is_start(passage: str, i: int) -> bool:
    if passage[i] == " ":
        return False
    if i == 0 or not is_word_char(passage[i - 1]):
        return True
    word = i
    while word > 0 and is_word_char(passage[word - 1]):
        word -= 1
    return i - word <= MAX_PREFIX and all(c in SPAN_PREFIX_LETTERS for c in passage[word:i])


class SpanConstraint:
    def __init__(self, passage: str, no_answer: str):
        self.passage = passage
        self.no_answer = no_answer
        self.starts = [i for i in range(len(passage)) if is_start(passage, i)]

    def allows(self, reply: str) -> bool:
        """Whether `reply` (decoded so far) can still grow into an allowed reply."""
        text = reply.lstrip(" ").rstrip("\ufffd")  # an unfinished UTF-8 character decodes as U+FFFD
        if not text:
            return True
        if self.no_answer.startswith(text):
            return True
        return any(self.passage.startswith(text, i) for i in self.starts)
