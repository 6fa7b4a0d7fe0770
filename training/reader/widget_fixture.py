"""Writes tests/fixtures/reader/prompt-cases.json: reference cases for the widget's reader prompt
(widget/engines/gguf/reader-prompt.ts), built here by prompt_format.py with the Gemma tokenizer the
training used, so the TypeScript prompt is checked against the one the model was trained on.

    .venv/bin/python widget_fixture.py

Six HeQ examples from data/reader.jsonl (HeQ v1.1: CC BY 4.0, attribution in the fixture) and
cases written here (no dev-v2 or corpus text may be committed): a long question, a passage past the
budget, HTML entities, bidi controls, NFD text and newlines. The passage rule the widget uses: the
longest run of whole words from the passage's start whose tokens fit the budget.
"""

import json
from pathlib import Path

from gemma_io import load_tokenizer
from hebrew_text import normalize_space
from prompt_format import NO_ANSWER, PROMPT_TOKENS, PromptFormat

HERE = Path(__file__).parent
OUT = HERE.parent.parent / "tests" / "fixtures" / "reader" / "prompt-cases.json"

OWN = [
    {
        "id": "own-long-question",
        "question": "אני מבוטח בביטוח דירה כבר שש שנים ובחודש שעבר הייתה אצלי נזילה גדולה מהצנרת בקיר המטבח שגרמה נזק לארונות ולרצפה, ורציתי לשאול מה גובה ההשתתפות העצמית שאשלם על נזקי מים בצנרת?",
        "passage": "ההשתתפות העצמית בנזקי מים מצנרת היא 850 ש\"ח לכל מקרה ביטוח. במקרה של איתור נזילה ללא נזק נוסף לא תחול השתתפות עצמית.",
    },
    {
        "id": "own-long-passage",
        "question": "תוך כמה ימים יש להודיע על מקרה ביטוח?",
        "passage": " ".join(
            [
                "המבוטח יודיע למבטח על קרות מקרה הביטוח מיד לאחר שנודע לו על כך, ולא יאוחר משלושים ימים מיום קרותו.",
                "להודעה יצורפו המסמכים הבאים: טופס תביעה חתום, צילום תעודת זהות, אישור משטרה במקרה של גניבה או פריצה,",
                "הצעת מחיר לתיקון הנזק מאת בעל מקצוע מוסמך, ותמונות של הנזק כפי שנראה לפני תחילת התיקון.",
                "המבטח רשאי לדרוש מסמכים נוספים הדרושים לבירור חבותו, והמבוטח ימציא אותם תוך זמן סביר.",
                "לא הודיע המבוטח במועד, ישלם המבטח את תגמולי הביטוח בשיעור שהיה משלם אילו הודיע כנדרש.",
                "תגמולי הביטוח ישולמו תוך שלושים ימים מיום שהיו בידי המבטח כל המסמכים והמידע הדרושים לבירור התביעה.",
                "על תגמולי ביטוח שלא שולמו במועד יתווספו הפרשי הצמדה וריבית כחוק.",
            ]
        ),
    },
    {
        "id": "own-entities-bidi-newlines",
        "question": "\u200fמה&nbsp;כולל   הכיסוי\u202b לרכב\u202c חלופי?\n",
        "passage": "הכיסוי כולל רכב חלופי &quot;צמוד&quot; לתקופה של עד 14 ימים\n\nבמקרה של תאונה &amp; גניבה.\u2066 השירות ניתן\t24 שעות ביממה.",
    },
    {
        "id": "own-nfd",
        # "שָׁלוֹם" with its points in a non-canonical order, and a decomposed é: NFC reorders/composes them.
        "question": "What does cafe\u0301 cover? מה זה ש\u05c1\u05b8לוֹם?",
        "passage": "The cafe\u0301 cover pays for food spoiled when the fridge breaks, up to 1,500 NIS a year.",
    },
    {
        "id": "own-english",
        "question": "How long is the waiting period for dental treatment?",
        "passage": "Dental treatment is covered after a waiting period of 90 days from the start of the policy. Orthodontics are not covered.",
    },
]


def window(fmt: PromptFormat, passage: str, budget: int) -> str:
    words = normalize_space(passage).split(" ")
    while len(words) > 1 and len(fmt.encode(" ".join(words))) > budget:
        words = words[:-1]
    return " ".join(words)


def case(fmt: PromptFormat, cid: str, question: str, passage: str, target: str | None, license_: str | None):
    q = fmt.trim_question(question)
    budget = fmt.passage_budget(q)
    p = window(fmt, passage, budget)
    ids = fmt.prompt_ids(q, p)
    assert len(ids) <= PROMPT_TOKENS, (cid, len(ids))
    text = f"<bos><start_of_turn>user\nשאלה: {q}\nקטע: {p}<end_of_turn>\n<start_of_turn>model\n"
    out = {
        "id": cid,
        "question": question,
        "passage": passage,
        "expected": {
            "question": q,
            "passage": p,
            "questionTokens": len(fmt.encode(q)),
            "passageBudget": budget,
            "passageTokens": len(fmt.encode(p)),
            "prompt": text,
            "promptTokens": len(ids),
            "promptIds": ids,
        },
    }
    if target is not None:
        out["target"] = target
        out["targetIds"] = fmt.encode(target)
    if license_:
        out["license"] = license_
    return out


def main():
    fmt = PromptFormat(load_tokenizer())
    rows = [json.loads(line) for line in open(HERE / "data" / "reader.jsonl")]
    heq = [r for r in rows if r["source"] == "heq"]
    picked = []
    for kind in ("answer", "unanswerable", "other-page"):
        picked += [r for r in heq if r["kind"] == kind][:2]
    cases = [case(fmt, r["id"], r["question"], r["passage"], r["target"], "HeQ v1.1 (CC BY 4.0)") for r in picked]
    cases += [case(fmt, c["id"], c["question"], c["passage"], None, None) for c in OWN]
    doc = {
        "about": "Reference prompts for widget/engines/gguf/reader-prompt.ts, written by training/reader/widget_fixture.py with prompt_format.py and the Gemma 3 tokenizer. "
        "The heq-* cases are from HeQ v1.1 (Hebrew Question Answering Dataset, NNLP-IL: Hilla Merhav Fine, Roei Shlezinger, Amir David Nissan Cohen), CC BY 4.0, as prepared by prepare_data.py; the own-* cases were written for this fixture.",
        "noAnswer": NO_ANSWER,
        "noAnswerIds": fmt.encode(NO_ANSWER),
        "fixedTokens": fmt.fixed,
        "cases": cases,
    }
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text(json.dumps(doc, ensure_ascii=False, indent=1) + "\n")
    print(f"wrote {OUT}: {len(cases)} cases; prompt tokens {[c['expected']['promptTokens'] for c in cases]}")


if __name__ == "__main__":
    main()
