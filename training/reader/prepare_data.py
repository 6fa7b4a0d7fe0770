"""Writes the reader's training and held-out examples (data/reader.jsonl, git-ignored).

One example: a question, a passage (a window of at most ~120 Gemma tokens of one page or
paragraph) and the target: the shortest verbatim span of the passage that answers, or NO_ANSWER.
Sources (../shared/data, read only, never copied into the repository):
- HeQ v1.1 validation: answerable -> a window around the answer, target the annotated span;
  unanswerable -> a window of its own paragraph (around the annotators' tempting wrong answer where
  they gave one) -> NO_ANSWER. Folds by paragraph.
- dev-v2 (the insurer): answerable -> the gold page's window that shares most numbers and content
  words with the ground-truth answer, target the shortest span of it that covers the answer's fact
  (its numbers, and its content words that the question does not already hold);
  unanswerable -> the two pages BM25 ranks first for the question -> NO_ANSWER. Folds by question.
- Negatives that teach grading (one per answerable question): the same question with the window of
  the page (HeQ: paragraph of the same fold) BM25 ranks first among those that are not gold, whose
  window holds none of the answer's text, numbers or most of its fact words -> NO_ANSWER.
- With --own-windows, a harder negative per answerable HeQ question: its own paragraph's window that
  shares most words with the question and holds no word of the answer -> NO_ANSWER (on topic, the
  fact a sentence away: what the loop reads beside the right window of a policy page).
- With --hand-spans, the insurer's answer targets as a person checked them (hand_spans.py): 63
  spans re-chosen, 20 kept, 30 examples left out whose window states no answer.

Run: .venv/bin/python prepare_data.py   (prints counts per source, kind and fold, and a sample)
"""

import argparse
import json
import random
import re
from collections import Counter
from pathlib import Path

import hand_spans
from bm25 import BM25
from gemma_io import HERE, REPO, load_tokenizer
from hebrew_text import content_words, normalize_space, numbers
from prompt_format import ANSWER_TOKENS, NO_ANSWER, PromptFormat

# ---- settings -------------------------------------------------------------------------------
SEED = 1234
FOLDS = 5
SHARED = REPO.parent / "shared" / "data"
HEQ = SHARED / "heq" / "heq_v1.1_val.json"
DEV = SHARED / "harel" / "questions" / "dev-v2.json"
CORPUS = SHARED / "harel" / "corpus"
OUT = HERE / "data" / "reader.jsonl"
NEGATIVE_CANDIDATES = 8  # ranked pages tried before a question goes without a negative
WINDOW_STRIDE = 6  # words between the starts of the windows compared on a page
SAMPLE = 15  # dev-v2 targets printed for checking by hand
CLAUSE_LABEL_SEED = 4321  # its own stream: the windows' random placement stays as without labels
PUNCT = " ,.;:!?()[]{}\"'-–—•·|/\\"
# ---------------------------------------------------------------------------------------------


class Text:
    """A normalized text as words, each with its approximate token count, and windows over it."""

    def __init__(self, raw: str, fmt: PromptFormat):
        self.text = normalize_space(raw)
        self.words = self.text.split(" ") if self.text else []
        self.costs = [fmt.word_cost(w) for w in self.words]
        self.starts, pos = [], 0
        for w in self.words:
            self.starts.append(pos)
            pos += len(w) + 1
        self.fmt = fmt

    def join(self, a: int, b: int) -> str:
        return " ".join(self.words[a:b])

    def word_range(self, start: int, end: int) -> tuple[int, int]:
        """The words that the characters [start, end) touch."""
        a = max(i for i, s in enumerate(self.starts) if s <= start)
        b = max(i for i, s in enumerate(self.starts) if s < end) + 1
        return a, b

    def exact_fit(self, a: int, b: int, budget: int, keep: tuple[int, int]) -> tuple[int, int] | None:
        """Drops words from the side farther from `keep` until the exact tokenization fits."""
        while len(self.fmt.encode(self.join(a, b))) > budget:
            if a >= keep[0] and b <= keep[1]:
                return None
            if b > keep[1] and (a >= keep[0] or b - keep[1] >= keep[0] - a):
                b -= 1
            else:
                a += 1
        return a, b

    def window_around(self, lo: int, hi: int, budget: int, rng: random.Random) -> tuple[int, int] | None:
        """A window holding words [lo, hi), placed at random around them."""
        left_budget = rng.uniform(0, max(0, budget - sum(self.costs[lo:hi])))
        a, b, used = lo, hi, sum(self.costs[lo:hi])
        while a > 0 and used + self.costs[a - 1] <= sum(self.costs[lo:hi]) + left_budget:
            a -= 1
            used += self.costs[a]
        while b < len(self.words) and used + self.costs[b] <= budget:
            used += self.costs[b]
            b += 1
        while a > 0 and used + self.costs[a - 1] <= budget:
            a -= 1
            used += self.costs[a]
        return self.exact_fit(a, b, budget, (lo, hi))

    def windows(self, budget: int):
        """Windows starting every WINDOW_STRIDE words, each as long as the budget allows."""
        for a in range(0, max(1, len(self.words)), WINDOW_STRIDE):
            b, used = a, 0
            while b < len(self.words) and used + self.costs[b] <= budget:
                used += self.costs[b]
                b += 1
            yield a, b
            if b >= len(self.words):
                break

    def best_window(self, budget: int, score, allowed=None) -> tuple[float, tuple[int, int] | None]:
        """The window with the highest score(text), among those allowed(a, b) where given."""
        best, best_score = None, -1.0
        for a, b in self.windows(budget):
            if allowed and not allowed(a, b):
                continue
            s = score(self.join(a, b))
            if s > best_score:
                best, best_score = (a, b), s
        if best is None:
            return 0.0, None
        middle = ((best[0] + best[1]) // 2,) * 2
        return best_score, self.exact_fit(best[0], best[1], budget, middle)


def overlap_score(reference: str):
    nums, cws = numbers(reference), content_words(reference)
    return lambda text: 3 * len(nums & numbers(text)) + len(cws & content_words(text))


def example(source, kind, fold, qid, question, passage, target, answers, origin, fmt, **extra):
    prompt = fmt.prompt_ids(question, passage)
    assert len(prompt) <= 160, (qid, len(prompt))
    assert target == NO_ANSWER or target in passage, (qid, target)
    return {
        "id": f"{qid}:{kind}",
        "source": source,
        "kind": kind,
        "fold": fold,
        "question": question,
        "passage": passage,
        "target": target,
        "answers": answers,
        "origin": origin,
        "prompt_tokens": len(prompt),
        "target_tokens": len(fmt.answer_ids(target)),
        **extra,
    }


# ---- HeQ ------------------------------------------------------------------------------------


def locate(context: Text, raw_context: str, answer: dict) -> tuple[int, int] | None:
    """The answer's character span in the normalized context (nearest to its annotated offset)."""
    text = normalize_space(answer["text"])
    approx = len(normalize_space(raw_context[: answer["answer_start"]]))
    hits, at = [], context.text.find(text)
    while at >= 0:
        hits.append(at)
        at = context.text.find(text, at + 1)
    if not hits:
        return None
    start = min(hits, key=lambda h: abs(h - approx))
    return start, start + len(text)


SENTENCE_END = re.compile(r"[.!?;:]\s+(?=[\u05D0-\u05EAA-Za-z\"(])")


def with_clause_labels(para: dict, rng: random.Random) -> dict:
    """The paragraph as a policy would print it: a clause number ("4.2", "4.2.1") before each
    sentence, answer offsets moved to match. The loop reads policies, whose lines open with clause
    numbers, and the reader copied them for answers (8 of 29 demo spans): HeQ's prose has none."""
    context = para["context"]
    starts = [0] + [m.end() for m in SENTENCE_END.finditer(context)]
    section, depth = rng.randint(1, 12), rng.choice((2, 3))
    parent = rng.randint(1, 9)
    labels = [f"{section}.{i + 1}" if depth == 2 else f"{section}.{parent}.{i + 1}" for i in range(len(starts))]
    pieces, last = [], 0
    for at, label in zip(starts, labels):
        pieces += [context[last:at], label + " "]
        last = at
    pieces.append(context[last:])

    def moved(offset: int) -> int:
        return offset + sum(len(label) + 1 for at, label in zip(starts, labels) if at <= offset)

    def shift(answers: list[dict]) -> list[dict]:
        return [{**a, "answer_start": moved(a["answer_start"])} for a in answers]

    qas = [{**qa, "answers": shift(qa["answers"]), "wrong_answers": shift(qa.get("wrong_answers", []))} for qa in para["qas"]]
    return {**para, "context": "".join(pieces), "qas": qas}


def own_window(ctx: Text, span_words: tuple[int, int], answers: list[str], budget: int, question: str) -> tuple[int, int] | None:
    """The window of the question's own paragraph that shares most words with the question among
    those that hold no word of the answer and none of its texts: on topic, the fact not in it."""
    overlap = overlap_score(question)
    score = lambda text: -1 if any(answer in text for answer in answers) else overlap(text)  # noqa: E731
    best_score, best = ctx.best_window(budget, score, allowed=lambda a, b: b <= span_words[0] or a >= span_words[1])
    return best if best_score > 0 else None


def heq_examples(fmt: PromptFormat, rng: random.Random, clause_labels: float = 0.0, own_windows: bool = False) -> list[dict]:
    data = json.loads(HEQ.read_text())
    paragraphs = [p for article in data["data"] for p in article["paragraphs"]]
    if clause_labels > 0:
        labels_rng = random.Random(CLAUSE_LABEL_SEED)
        chosen = [labels_rng.random() < clause_labels for _ in paragraphs]
        paragraphs = [with_clause_labels(p, labels_rng) if c else p for p, c in zip(paragraphs, chosen)]
        print(f"  clause numbers before the sentences of {sum(chosen)} of {len(paragraphs)} paragraphs")
    order = list(range(len(paragraphs)))
    rng.shuffle(order)
    fold_of = {p: i % FOLDS for i, p in enumerate(order)}
    texts = [Text(p["context"], fmt) for p in paragraphs]
    index = BM25([t.text for t in texts])
    out, skipped = [], Counter()
    for pi, para in enumerate(paragraphs):
        ctx, fold = texts[pi], fold_of[pi]
        for qa in para["qas"]:
            question = fmt.trim_question(qa["question"])
            budget = fmt.passage_budget(question)
            qid = f"heq-{qa['id'][:8]}"
            if qa.get("is_impossible"):
                wrong = [locate(ctx, para["context"], w) for w in qa.get("wrong_answers", [])]
                wrong = [w for w in wrong if w]
                if wrong:
                    win = ctx.window_around(*ctx.word_range(*wrong[0]), budget, rng)
                else:
                    win = ctx.best_window(budget, overlap_score(question))[1]
                if not win:
                    skipped["heq unanswerable: no window"] += 1
                    continue
                out.append(example("heq", "unanswerable", fold, qid, question, ctx.join(*win), NO_ANSWER, [], f"heq:p{pi}", fmt))
                continue
            answers = [normalize_space(a["text"]) for a in qa["answers"]]
            target = next((a for a in answers if len(fmt.answer_ids(a)) <= ANSWER_TOKENS), None)
            span = locate(ctx, para["context"], qa["answers"][answers.index(target)]) if target else None
            if not span:
                skipped["heq answerable: answer over budget or not found"] += 1
                continue
            win = ctx.window_around(*ctx.word_range(*span), budget, rng)
            if not win or target not in ctx.join(*win):
                skipped["heq answerable: no window holds the answer"] += 1
                continue
            passage = ctx.join(*win)
            out.append(
                example("heq", "answer", fold, qid, question, passage, target, [a for a in answers if a in passage], f"heq:p{pi}", fmt)
            )
            if own_windows:
                # No draw from rng: every other example stays where it was without this option.
                own = own_window(ctx, ctx.word_range(*span), answers, budget, question)
                if own:
                    out.append(example("heq", "own-window", fold, qid, question, ctx.join(*own), NO_ANSWER, [], f"heq:p{pi}", fmt))
                else:
                    skipped["heq own-window negative: paragraph within one window"] += 1
            others = index.ranked(question, lambda j: j != pi and fold_of[j] == fold)
            for j in others[:NEGATIVE_CANDIDATES]:
                win = texts[j].best_window(budget, overlap_score(question))[1]
                if win and not any(a in texts[j].join(*win) for a in answers):
                    out.append(example("heq", "other-page", fold, qid, question, texts[j].join(*win), NO_ANSWER, [], f"heq:p{j}", fmt))
                    break
            else:
                skipped["heq negative: none found"] += 1
    for k, v in skipped.items():
        print(f"  skipped {v:4d}  {k}")
    return out


# ---- dev-v2 ---------------------------------------------------------------------------------


def corpus_pages() -> list[dict]:
    pages = []
    for path in sorted(CORPUS.rglob("*.json")):
        doc = json.loads(path.read_text())
        for p in doc["pages"]:
            if p["text"].strip():
                pages.append({"file": doc["file"], "page": p["page"], "kind": doc["kind"], "text": p["text"]})
    return pages


def is_gold(page: dict, source: dict) -> bool:
    return any(page["file"] == s["file"] and (s["page"] is None or s["page"] == page["page"]) for s in source["any_of"])


def fact_keys(answer: str, question: str) -> tuple[set[str], set[str]]:
    """What carries the answer's fact: its numbers, and its content words the question lacks."""
    return numbers(answer), content_words(answer) - content_words(question)


def shortest_fact_span(text: Text, a: int, b: int, nums: set[str], cws: set[str], fmt: PromptFormat):
    """The shortest run of the window's words with the most fact weight (numbers 3, words 1)."""
    word_nums = [numbers(w) & nums for w in text.words]
    word_cws = [content_words(w) & cws for w in text.words]
    best, best_key = None, (0, 0)
    for i in range(a, b):
        if not (word_nums[i] or word_cws[i]):
            continue
        seen_n, seen_c, cost = set(), set(), 0
        for j in range(i, b):
            cost += text.costs[j]
            if cost > ANSWER_TOKENS - 1:
                break
            seen_n |= word_nums[j]
            seen_c |= word_cws[j]
            if not (word_nums[j] or word_cws[j]):
                continue
            key = (3 * len(seen_n) + len(seen_c), -cost)
            if key > best_key:
                best, best_key = (i, j + 1), key
    if not best:
        return None
    span = text.join(*best).strip(PUNCT)
    while span and len(fmt.answer_ids(span)) > ANSWER_TOKENS:
        span = span.rsplit(" ", 1)[0].strip(PUNCT) if " " in span else ""
    return span or None


def dev_examples(fmt: PromptFormat, rng: random.Random) -> tuple[list[dict], list[dict]]:
    questions = json.loads(DEV.read_text())
    order = list(range(len(questions)))
    rng.shuffle(order)
    fold_of = {q: i % FOLDS for i, q in enumerate(order)}
    pages = corpus_pages()
    index = BM25([p["text"] for p in pages])
    texts: dict[int, Text] = {}

    def text_of(i: int) -> Text:
        if i not in texts:
            texts[i] = Text(pages[i]["text"], fmt)
        return texts[i]

    def origin(i: int) -> str:
        return f"{pages[i]['file']}#{pages[i]['page']}"

    out, sample, skipped = [], [], Counter()
    for qi, q in enumerate(questions):
        question, fold = fmt.trim_question(q["question"]), fold_of[qi]
        budget = fmt.passage_budget(question)
        qid = q["id"]
        if not q["answerable"]:
            for rank, i in enumerate(index.ranked(question)[:2]):
                win = text_of(i).best_window(budget, overlap_score(question))[1]
                out.append(example("dev-v2", "unanswerable", fold, f"{qid}-{rank}", question, text_of(i).join(*win), NO_ANSWER, [], origin(i), fmt, ground_truth=q["ground_truth_answer"]))
            continue
        gt = q["ground_truth_answer"]
        nums, cws = fact_keys(gt, question)
        gold_pages = set()
        for n, source in enumerate(q["ground_truth_sources"]):
            candidates = [i for i, p in enumerate(pages) if is_gold(p, source)]
            gold_pages |= set(candidates)
            scored = [(text_of(i).best_window(budget, overlap_score(gt)), i) for i in candidates]
            scored = [(s, w, i) for (s, w), i in scored if w]
            if not scored:
                skipped["dev-v2 answerable: gold page missing or empty"] += 1
                continue
            _, win, i = max(scored, key=lambda t: t[0])
            span = shortest_fact_span(text_of(i), *win, nums, cws, fmt) or shortest_fact_span(text_of(i), *win, nums, content_words(gt), fmt)
            if not span:
                skipped["dev-v2 answerable: no fact words in the gold window"] += 1
                continue
            ex = example("dev-v2", "answer", fold, f"{qid}-{n}", question, text_of(i).join(*win), span, [span], origin(i), fmt, ground_truth=gt)
            out.append(ex)
            sample.append(ex)
        for i in index.ranked(question, lambda j: j not in gold_pages)[:NEGATIVE_CANDIDATES]:
            win = text_of(i).best_window(budget, overlap_score(question))[1]
            if not win:
                continue
            passage = text_of(i).join(*win)
            if nums & numbers(passage) or (cws and len(cws & content_words(passage)) >= len(cws) / 2):
                continue
            out.append(example("dev-v2", "other-page", fold, qid, question, passage, NO_ANSWER, [], origin(i), fmt, ground_truth=gt))
            break
        else:
            skipped["dev-v2 negative: none found"] += 1
    for k, v in skipped.items():
        print(f"  skipped {v:4d}  {k}")
    return out, sample


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", type=Path, default=OUT)
    parser.add_argument("--clause-labels", type=float, default=0.0, dest="clause_labels",
                        help="share of HeQ paragraphs given a clause number before each sentence (0: none, the shipped data)")
    parser.add_argument("--own-windows", action="store_true", dest="own_windows",
                        help="also, for each answerable HeQ question, its own paragraph's best window without the answer -> no-answer")
    parser.add_argument("--hand-spans", action="store_true", dest="hand_spans",
                        help=f"the insurer's targets as checked by hand ({hand_spans.HAND_SPANS.name}): spans re-chosen, unanswerable windows left out")
    args = parser.parse_args()
    for path in (HEQ, DEV, CORPUS):
        if not path.exists():
            raise SystemExit(f"error: {path} is missing: the real data lives in ../shared/data beside the checkout")
    rng = random.Random(SEED)
    fmt = PromptFormat(load_tokenizer())
    print(f"prompt: {fmt.fixed} fixed tokens; no-answer {NO_ANSWER!r}")
    heq = heq_examples(fmt, rng, args.clause_labels, args.own_windows)
    dev, sample = dev_examples(fmt, rng)
    if args.hand_spans:
        dev, verdicts = hand_spans.apply(dev, fmt, hand_spans.load())
        print("dev-v2 targets by hand: " + ", ".join(f"{v} {k}" for k, v in sorted(verdicts.items())))
    rows = heq + dev
    args.out.parent.mkdir(parents=True, exist_ok=True)
    with open(args.out, "w") as f:
        for r in rows:
            f.write(json.dumps(r, ensure_ascii=False) + "\n")
    print(f"wrote {len(rows)} examples to {args.out}")
    counts = Counter((r["source"], r["kind"], r["fold"]) for r in rows)
    print(f"{'source':8s} {'kind':13s} " + " ".join(f"fold{f}" for f in range(FOLDS)) + "  total")
    for source, kind in sorted({(s, k) for s, k, _ in counts}):
        per = [counts[(source, kind, f)] for f in range(FOLDS)]
        print(f"{source:8s} {kind:13s} " + " ".join(f"{n:5d}" for n in per) + f"  {sum(per):5d}")
    tokens = [r["prompt_tokens"] for r in rows]
    print(f"prompt tokens: mean {sum(tokens) / len(tokens):.0f}, max {max(tokens)}; "
          f"target tokens max {max(r['target_tokens'] for r in rows)}")
    print(f"\n{SAMPLE} dev-v2 targets (seeded sample) beside their ground truth:")
    for ex in random.Random(SEED).sample(sample, min(SAMPLE, len(sample))):
        print(f"- {ex['id']}\n    target: {ex['target']}\n    truth:  {ex['ground_truth']}")


if __name__ == "__main__":
    main()
