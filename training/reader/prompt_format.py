"""The reader's one prompt format, the same in training, in evaluation and (later) in the widget.

    <bos><start_of_turn>user
    שאלה: {question}
    קטע: {passage}<end_of_turn>
    <start_of_turn>model
    {span or NO_ANSWER}<end_of_turn>

- Question first: the loop reads several passages for one question, and a prompt that starts with
  the question lets llama.cpp keep that prefix's cache from one passage to the next.
- Whitespace in question and passage is collapsed to single spaces (hebrew_text.normalize_space).
- Budget: the whole prompt (BOS and turn markers included) <= PROMPT_TOKENS; the question keeps at
  most QUESTION_TOKENS tokens (its last words: Hebrew questions end with what they ask); the passage
  gets at most PASSAGE_TOKENS and never more than what is left.
- The answer is a verbatim span of the passage of at most ANSWER_TOKENS tokens, or NO_ANSWER.
- Turn markers are control tokens (ids 105/106 in Gemma 3's vocabulary); the text between them is
  tokenized on its own, as llama.cpp does when it parses special tokens in a prompt.
"""

from hebrew_text import normalize_space

NO_ANSWER = "אין בקטע"
PROMPT_TOKENS = 160
PASSAGE_TOKENS = 120
QUESTION_TOKENS = 36
ANSWER_TOKENS = 24
QUESTION_LABEL = "שאלה: "
PASSAGE_LABEL = "\nקטע: "


class PromptFormat:
    def __init__(self, tokenizer):
        self.tok = tokenizer
        ids = tokenizer.convert_tokens_to_ids(["<bos>", "<start_of_turn>", "<end_of_turn>"])
        self.bos, self.start_turn, self.end_turn = ids
        self.fixed = len(self.prompt_ids("", ""))  # the prompt with an empty question and passage
        self._word_costs: dict[str, int] = {}

    def encode(self, text: str) -> list[int]:
        return self.tok.encode(text, add_special_tokens=False)

    def word_cost(self, word: str) -> int:
        """Tokens one word adds after a space (an estimate: exact counts come from encode)."""
        if word not in self._word_costs:
            self._word_costs[word] = max(1, len(self.encode(" " + word))) if word else 0
        return self._word_costs[word]

    def prompt_ids(self, question: str, passage: str) -> list[int]:
        return (
            [self.bos, self.start_turn]
            + self.encode(f"user\n{QUESTION_LABEL}{question}{PASSAGE_LABEL}{passage}")
            + [self.end_turn]
            + self.encode("\n")
            + [self.start_turn]
            + self.encode("model\n")
        )

    def answer_ids(self, answer: str) -> list[int]:
        return self.encode(answer) + [self.end_turn]

    def trim_question(self, question: str) -> str:
        """The question's last words that fit QUESTION_TOKENS."""
        words = normalize_space(question).split(" ")
        while len(words) > 1 and len(self.encode(" ".join(words))) > QUESTION_TOKENS:
            words = words[1:]
        return " ".join(words)

    def passage_budget(self, question: str) -> int:
        return min(PASSAGE_TOKENS, PROMPT_TOKENS - self.fixed - len(self.encode(question)) - 2)

    def fits(self, question: str, passage: str) -> bool:
        return len(self.prompt_ids(question, passage)) <= PROMPT_TOKENS
