"""Gemma 3 270M in and out: the tokenizer and the fp32 model from the product's GGUF, the LoRA that
training puts on it, and the adapter file it writes (peft's layout: adapter_config.json +
adapter_model.safetensors, here in fp16).

Dequantizing the GGUF's tensors takes seconds; converting its tokenizer takes most of a minute, so
the first load writes the tokenizer to .cache/ (keyed by the GGUF's sha256) and later loads read it.
"""

import hashlib
import json
import os
import shutil
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
GGUF = Path(os.environ.get("READER_GGUF", REPO / "models" / "gguf" / "gemma-3-270m-q4_k_m.gguf"))
CACHE = HERE / ".cache"


def gguf_sha256(path: Path = GGUF) -> str:
    side = path.with_name(path.name + ".sha256")
    if side.exists():
        return side.read_text().split()[0]
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def _cached(kind: str) -> Path:
    return CACHE / f"{kind}-{gguf_sha256()[:16]}"


def load_tokenizer():
    from transformers import AutoTokenizer

    if not GGUF.exists():
        raise SystemExit(f"error: no Gemma GGUF at {GGUF}: run `npx harel-builder models fetch` first")
    cached = _cached("tokenizer")
    if cached.exists():
        return AutoTokenizer.from_pretrained(cached)
    tok = AutoTokenizer.from_pretrained(GGUF.parent, gguf_file=GGUF.name)
    tmp = cached.with_suffix(".tmp")
    shutil.rmtree(tmp, ignore_errors=True)
    tok.save_pretrained(tmp)
    tmp.rename(cached)
    return tok


def load_base_model(attention: str = "sdpa"):
    """Gemma3ForCausalLM in fp32, dequantized from the GGUF (a few seconds)."""
    import torch
    from transformers import AutoModelForCausalLM

    if not GGUF.exists():
        raise SystemExit(f"error: no Gemma GGUF at {GGUF}: run `npx harel-builder models fetch` first")
    model = AutoModelForCausalLM.from_pretrained(
        GGUF.parent, gguf_file=GGUF.name, dtype=torch.float32, attn_implementation=attention
    )
    model.config.use_cache = False
    return model


def add_lora(model, rank: int, alpha: int, dropout: float, targets: list[str], layers: list[int]):
    from peft import LoraConfig, get_peft_model

    config = LoraConfig(
        r=rank,
        lora_alpha=alpha,
        lora_dropout=dropout,
        target_modules=targets,
        layers_to_transform=layers,
        # peft refuses a pattern without layers to apply it to ("all": layers is None)
        layers_pattern="layers" if layers is not None else None,
        bias="none",
        task_type="CAUSAL_LM",
    )
    return get_peft_model(model, config)


def lora_state(model) -> dict:
    from peft import get_peft_model_state_dict

    return {k: v.detach().clone() for k, v in get_peft_model_state_dict(model).items()}


def set_lora_state(model, state: dict):
    from peft import set_peft_model_state_dict

    set_peft_model_state_dict(model, state)


def save_adapter(model, folder: Path, card: dict) -> int:
    """Writes the adapter in fp16 (peft's file names) and card.json; returns the weights' bytes."""
    from safetensors.torch import save_file

    folder.mkdir(parents=True, exist_ok=True)
    weights = {k: v.half().contiguous() for k, v in lora_state(model).items()}
    save_file(weights, folder / "adapter_model.safetensors", metadata={"format": "pt"})
    model.peft_config["default"].save_pretrained(folder)
    (folder / "card.json").write_text(json.dumps(card, ensure_ascii=False, indent=1) + "\n")
    return (folder / "adapter_model.safetensors").stat().st_size


def load_adapter(model, folder: Path):
    from peft import PeftModel

    return PeftModel.from_pretrained(model, folder, is_trainable=False)
