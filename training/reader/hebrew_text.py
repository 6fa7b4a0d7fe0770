"""Words, numbers and normalization for Hebrew (and English) text: what data preparation matches
answers with, what BM25 indexes, and what the evaluation's F1 compares.

Hebrew glues one-letter prefixes to words: ו (and), ה (the), ב (in), ל (to), מ (from), ש (that),
כ (as), often stacked ("ובביטוח", "שהמבוטח"). `strip_prefix` removes a leading ו and then one of
ה ב ל מ ש כ, as long as at least two letters remain. It is crude (it also cuts "מערה" to "ערה"), but
it is applied to both sides of every comparison, so "בביטוח" and "ביטוח" meet; a spurious match
needs two different words that agree after the cut.
"""

import html
import re
import unicodedata

WORD = re.compile(r"[0-9]+(?:[.,/][0-9]+)*%?|[A-Za-z\u0590-\u05FF\"'׳״]+")
NUMBER = re.compile(r"[0-9]+(?:[.,][0-9]+)*")
HEBREW_LETTER = re.compile(r"[\u05D0-\u05EA]")
PREFIX_CONJUNCTION = "ו"
PREFIX_LETTERS = "הבלמשכ"

STOPWORDS = set(
    """
    של את על עם או גם כי אם לא כן זה זו זאת הוא היא הם הן אני אתה את אנחנו יש אין כל מה מי איך האם
    עד אל בין לפי רק אשר כאשר כמו יותר פחות לאחר אחרי לפני תוך בכל ולא אבל אך כדי מן מכל עוד כבר
    שלי שלו שלה שלנו שלכם שלהם לי לו לה לנו להם בו בה בהם אותו אותה אותם מהו מהי מהם מהן מתי למה
    כמה איזה איזו אילו היכן איפה האם ניתן צריך צריכה צריכים רוצה קצת האם the a an of to in for on
    is are be and or by with what which who how when does do can my i it this that as at from
    """.split()
)


def normalize_space(text: str) -> str:
    """HTML entities decoded; NFC; no bidi controls; every run of whitespace (newlines included)
    becomes one space."""
    text = unicodedata.normalize("NFC", html.unescape(text))
    text = re.sub(r"[\u200e\u200f\u202a-\u202e\u2066-\u2069\ufeff]", "", text)
    return re.sub(r"\s+", " ", text).strip()


def words(text: str) -> list[str]:
    """Lower-cased words and numbers, Hebrew quote marks folded into plain ones."""
    folded = text.replace("״", '"').replace("׳", "'")
    return [w.strip("\"'").lower() for w in WORD.findall(folded) if w.strip("\"'")]


def strip_prefix(word: str) -> str:
    if not HEBREW_LETTER.match(word):
        return word
    if word.startswith(PREFIX_CONJUNCTION) and len(word) - 1 >= 2:
        word = word[1:]
    if word[0] in PREFIX_LETTERS and len(word) - 1 >= 2:
        word = word[1:]
    return word


def numbers(text: str) -> set[str]:
    """Numbers as written, thousands separators dropped ("1,500" and "1500" are one number)."""
    return {n.replace(",", "") for n in NUMBER.findall(text)}


def content_words(text: str) -> set[str]:
    """Prefix-stripped words of two or more letters that are neither stopwords nor numbers."""
    out = set()
    for w in words(text):
        if w in STOPWORDS or NUMBER.fullmatch(w.rstrip("%")):
            continue
        stem = strip_prefix(w)
        if len(stem) >= 2 and stem not in STOPWORDS:
            out.add(stem)
    return out


def answer_tokens(text: str) -> list[str]:
    """The tokens the evaluation's F1 counts: words with punctuation gone, prefixes stripped."""
    return [strip_prefix(w) for w in words(text)]
