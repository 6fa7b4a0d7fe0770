"""Fine-tunes Gemma 3 270M (from the product's GGUF, dequantized) into the reader with LoRA, on
the CPU. Settings are the globals below; override any of them on the command line:

    .venv/bin/python train.py --run r16-all7-all-bal --held_out_fold 0   # the defaults: the best run so far

Each step: one batch of examples of similar length from every fold but the held-out one; the loss
is the cross-entropy of the answer tokens only (the span or NO_ANSWER, then <end_of_turn>): the
model's body runs over the whole sequence, but the 262k-row output matrix is applied only to the
hidden states that predict answer tokens. A log line per step (to stdout and runs/<run>/train.log);
a checkpoint (LoRA weights, optimizer, step, RNG) every `checkpoint_every` steps and at the end, and
a run that finds one resumes from it. The end writes runs/<run>/adapter/ (fp16 safetensors, peft's
layout, with card.json: data, seed, command, settings).
"""

import json
import math
import os
import random
import resource
import sys
import time
from pathlib import Path

# ---- settings (each may be overridden with --name value) ------------------------------------
run = "r16-all7-all-bal"  # runs/<run>/ holds the log, the checkpoint and the adapter
data = "data/reader.jsonl"
held_out_fold = 0  # never trained on; evaluate.py reads it
seed = 1234
steps = 450  # optimizer steps in all (a resumed run goes on to this number)
stop_after = 0  # end this call after so many steps (0: run to `steps`), e.g. for a smoke run
batch_size = 8
learning_rate = 5e-4
warmup_steps = 20
min_lr_ratio = 0.1  # cosine decay to learning_rate * this
weight_decay = 0.0
grad_clip = 1.0
lora_rank = 16
lora_alpha = 32
lora_dropout = 0.05
lora_targets = "q_proj,k_proj,v_proj,o_proj,gate_proj,up_proj,down_proj"
lora_layers = "all"  # Gemma 3 270M has layers 0-17: "all", or e.g. "9-17" (the upper half: 2.5x faster a step, fewer gains)
no_answer_share = 0.33  # >0: each epoch keeps every span example and samples no-answer ones to this share
# (0 keeps the raw 58 %: that run learned to refuse everything, training/reader/README.md)
dev_v2_repeat = 1  # the insurer's examples count this many times in an epoch (their spans are noisy: README)
bucket = 64  # batches are cut from runs of this many examples sorted by length
checkpoint_every = 25
train_share = 1.0  # <1: a learning curve's point: keeps this seeded share of the training folds' paragraphs
# (HeQ) and questions (dev-v2), each with every example made from it (`training_share`)
adapter_every = 0  # >0: also write runs/<run>/adapter-step<N>/ every so many steps, to read one run's learning curve
threads = 2
attention = "sdpa"
# ---------------------------------------------------------------------------------------------

HERE = Path(__file__).resolve().parent
NO_ANSWER = "אין בקטע"  # prompt_format.NO_ANSWER (not imported: the settings parse without packages)


def usage(settings: dict) -> str:
    lines = ["usage: npm run train:reader -- [--help] [--<setting> <value> ...]", "", "settings (default):"]
    lines += [f"  --{k} {v}" for k, v in settings.items()]
    return "\n".join(lines) + "\n"


def apply_overrides(argv: list[str]) -> dict:
    """The settings above with the command line's values; --help and a bad option end the process."""
    settings = {k: v for k, v in globals().items() if not k.startswith("_") and isinstance(v, (int, float, str)) and k != "HERE"}

    def fail(message: str):
        sys.stderr.write(f"error: {message}\n\n{usage(settings)}")
        raise SystemExit(2)

    i = 0
    while i < len(argv):
        if argv[i] in ("-h", "--help"):
            sys.stdout.write(usage(settings))
            raise SystemExit(0)
        if not argv[i].startswith("--"):
            fail(f"unexpected argument {argv[i]!r}")
        key, eq, value = argv[i][2:].replace("-", "_").partition("=")
        if key not in settings:
            fail(f"unknown option {argv[i].split('=')[0]}")
        if eq:
            i += 1
        elif i + 1 < len(argv):
            value = argv[i + 1]
            i += 2
        else:
            fail(f"{argv[i]} needs a value")
        kind = type(settings[key])
        try:
            settings[key] = int(float(value)) if kind is int else kind(value)
        except ValueError:
            fail(f"--{key} takes a number, not {value!r}")
    globals().update(settings)
    return settings


def layer_list(spec: str) -> list[int] | None:
    if spec == "all":
        return None
    out = []
    for part in spec.split(","):
        a, _, b = part.partition("-")
        out += list(range(int(a), int(b or a) + 1))
    return out


def training_share(examples: list[dict], share: float) -> list[dict]:
    """The examples of a seeded share of the groups the folds are cut by: a HeQ paragraph (its
    questions' answer, unanswerable and other-page examples together), an insurer question (all of
    its windows). Groups, not examples, so no kept question leaks a passage of a dropped one."""
    if share >= 1:
        return examples
    home = {(ex["source"], ex["question"]): ex["origin"] if ex["source"] == "heq" else ex["question"] for ex in examples if ex["kind"] != "other-page"}
    group = lambda ex: home.get((ex["source"], ex["question"]), ex["question"])  # noqa: E731
    rng = random.Random(seed)
    kept = {g for g in sorted({group(ex) for ex in examples}) if rng.random() < share}
    return [ex for ex in examples if group(ex) in kept]


def batch_plan(examples: list[dict], epoch: int) -> list[list[int]]:
    """The epoch's batches: shuffled, cut from length-sorted runs, shuffled again (seeded)."""
    rng = random.Random(seed * 1000 + epoch)
    order = [i for i, ex in enumerate(examples) for _ in range(dev_v2_repeat if ex["source"] == "dev-v2" else 1)]
    if no_answer_share > 0:
        spans = [i for i in order if examples[i]["target"] != NO_ANSWER]
        refusals = [i for i in order if examples[i]["target"] == NO_ANSWER]
        keep = min(len(refusals), round(len(spans) * no_answer_share / (1 - no_answer_share)))
        order = spans + rng.sample(refusals, keep)
    rng.shuffle(order)
    batches = []
    for s in range(0, len(order), bucket):
        run_ = sorted(order[s : s + bucket], key=lambda i: examples[i]["length"])
        batches += [run_[b : b + batch_size] for b in range(0, len(run_), batch_size)]
    rng.shuffle(batches)
    return batches


def learning_rate_at(step: int) -> float:
    if step < warmup_steps:
        return learning_rate * (step + 1) / warmup_steps
    progress = (step - warmup_steps) / max(1, steps - warmup_steps)
    return learning_rate * (min_lr_ratio + (1 - min_lr_ratio) * 0.5 * (1 + math.cos(math.pi * min(1.0, progress))))


def collate(batch: list[dict], pad_id: int):
    import torch

    length = max(ex["length"] for ex in batch)
    ids = torch.full((len(batch), length), pad_id, dtype=torch.long)
    mask = torch.zeros((len(batch), length), dtype=torch.long)
    rows, positions, targets = [], [], []
    for r, ex in enumerate(batch):
        seq = ex["prompt_ids"] + ex["answer_ids"]
        ids[r, : len(seq)] = torch.tensor(seq)
        mask[r, : len(seq)] = 1
        for k, token in enumerate(ex["answer_ids"]):
            rows.append(r)
            positions.append(len(ex["prompt_ids"]) + k - 1)  # the state that predicts this token
            targets.append(token)
    return ids, mask, torch.tensor(rows), torch.tensor(positions), torch.tensor(targets)


def answer_loss(model, ids, mask, rows, positions, targets):
    """Cross-entropy over the answer tokens; the output matrix sees only their predicting states."""
    import torch.nn.functional as F

    causal_lm = model.get_base_model()
    hidden = causal_lm.model(input_ids=ids, attention_mask=mask).last_hidden_state
    logits = causal_lm.lm_head(hidden[rows, positions])
    cap = getattr(causal_lm.config, "final_logit_softcapping", None)
    if cap:
        logits = (logits / cap).tanh() * cap
    return F.cross_entropy(logits.float(), targets)


def peak_rss_gib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20


def main():
    settings = apply_overrides([a for a in sys.argv[1:] if a != "--parse-only"])
    if "--parse-only" in sys.argv:
        return  # train.sh checks the options before it makes the venv
    import numpy as np
    import torch

    from gemma_io import add_lora, load_base_model, load_tokenizer, lora_state, save_adapter, set_lora_state
    from prompt_format import PromptFormat

    torch.set_num_threads(threads)
    out_dir = HERE / "runs" / run
    out_dir.mkdir(parents=True, exist_ok=True)
    log = open(out_dir / "train.log", "a")

    def say(line: str):
        print(line, flush=True)
        log.write(line + "\n")
        log.flush()

    t0 = time.time()
    fmt = PromptFormat(load_tokenizer())
    rows = [json.loads(line) for line in open(HERE / data)]
    examples = training_share([r for r in rows if r["fold"] != held_out_fold], train_share)
    for ex in examples:
        ex["prompt_ids"] = fmt.prompt_ids(ex["question"], ex["passage"])
        ex["answer_ids"] = fmt.answer_ids(ex["target"])
        ex["length"] = len(ex["prompt_ids"]) + len(ex["answer_ids"])

    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)
    model = load_base_model(attention)
    model = add_lora(model, lora_rank, lora_alpha, lora_dropout, lora_targets.split(","), layer_list(lora_layers))
    trainable = [p for p in model.parameters() if p.requires_grad]
    n_trainable = sum(p.numel() for p in trainable)
    optimizer = torch.optim.AdamW(trainable, lr=learning_rate, weight_decay=weight_decay)
    say(f"# {time.strftime('%Y-%m-%d %H:%M:%S')} run {run}: {len(examples)} training examples (fold {held_out_fold} held out), "
        f"{n_trainable / 1e6:.2f} M trainable, loaded in {time.time() - t0:.0f} s; settings {json.dumps(settings)}")

    step, checkpoint = 0, out_dir / "ckpt.pt"
    if checkpoint.exists():
        state = torch.load(checkpoint, weights_only=False)
        made = state["settings"]
        # A checkpoint from before train_share existed trained on every example.
        if made["held_out_fold"] != held_out_fold or made["lora_layers"] != lora_layers or made.get("train_share", 1.0) != train_share:
            raise SystemExit(f"error: {checkpoint} was made with other settings; pick another --run")
        set_lora_state(model, state["lora"])
        optimizer.load_state_dict(state["optimizer"])
        random.setstate(state["rng"]["python"])
        np.random.set_state(state["rng"]["numpy"])
        torch.set_rng_state(state["rng"]["torch"])
        step = state["step"]
        say(f"# resumed from {checkpoint} at step {step}")

    def write_adapter(name: str):
        card = {
            "model": "Gemma 3 270M (base), dequantized from gemma-3-270m-q4_k_m.gguf",
            "task": "reader: question + passage -> verbatim span or NO_ANSWER (prompt_format.py)",
            "data": f"{data}: folds != {held_out_fold}{f', share {train_share} of their groups' if train_share < 1 else ''} ({len(examples)} examples); prepare_data.py, seed in it",
            "seed": seed,
            "steps": step,
            "command": "python train.py " + " ".join(sys.argv[1:]),
            "settings": settings,
            "held_out": "python evaluate.py --adapter runs/%s/%s --fold %d" % (run, name, held_out_fold),
        }
        size = save_adapter(model, out_dir / name, card)
        say(f"# adapter: {out_dir / name} ({size / 2**20:.2f} MiB fp16)")

    def save_checkpoint():
        state = {
            "step": step,
            "settings": settings,
            "lora": lora_state(model),
            "optimizer": optimizer.state_dict(),
            "rng": {"python": random.getstate(), "numpy": np.random.get_state(), "torch": torch.get_rng_state()},
        }
        torch.save(state, checkpoint.with_suffix(".tmp"))
        os.replace(checkpoint.with_suffix(".tmp"), checkpoint)

    plan_epoch, plan = -1, []
    per_epoch = len(batch_plan(examples, 0))
    first_step, smooth = step, None
    model.train()
    while step < steps and not (stop_after and step - first_step >= stop_after):
        epoch, index = divmod(step, per_epoch)
        if epoch != plan_epoch:
            plan_epoch, plan = epoch, batch_plan(examples, epoch)
        batch = [examples[i] for i in plan[index]]
        lr = learning_rate_at(step)
        for group in optimizer.param_groups:
            group["lr"] = lr
        t = time.time()
        loss = answer_loss(model, *collate(batch, fmt.tok.pad_token_id or 0))
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(trainable, grad_clip)
        optimizer.step()
        step += 1
        smooth = loss.item() if smooth is None else 0.9 * smooth + 0.1 * loss.item()
        tokens = sum(ex["length"] for ex in batch)
        answer_tokens = sum(len(ex["answer_ids"]) for ex in batch)
        say(f"step {step:4d}/{steps} | epoch {epoch} | loss {loss.item():.3f} (avg {smooth:.3f}) | lr {lr:.2e} | "
            f"tokens {tokens} (answer {answer_tokens}) | {time.time() - t:.1f} s | peak rss {peak_rss_gib():.2f} GiB")
        if step % checkpoint_every == 0:
            save_checkpoint()
        if adapter_every and step % adapter_every == 0 and step < steps:
            write_adapter(f"adapter-step{step}")
    save_checkpoint()
    if step >= steps:
        write_adapter("adapter")
    say(f"# stopped at step {step}; {time.time() - t0:.0f} s in this call; peak rss {peak_rss_gib():.2f} GiB")


if __name__ == "__main__":
    main()
