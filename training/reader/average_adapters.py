"""Two or more LoRA adapters of the same recipe (other seeds) as one: their weight changes averaged.

    .venv/bin/python average_adapters.py runs/<run>/adapter runs/<run-s2>/adapter --out runs/<name>/adapter

Averaging each adapter's A and B apart would not average what they change (B·A is not linear in
the pair), so the result stacks them instead: A = [A1; A2; …], B = [B1, B2, …] / n, of rank n·r with
lora_alpha n·alpha, so that peft's scale alpha/r stays the adapters' own and
scale · B·A = mean(scale · Bi·Ai), exactly. The rank grows with n (two rank-16 adapters on every
projection: 14.5 MiB, over the 10 MB an adapter may weigh when committed), so this measures whether
averaging seeds reads better; shipping it would need the average cut back to rank 16 (an SVD).
Needs torch and safetensors (the training venv); writes adapter_model.safetensors (fp16),
adapter_config.json and card.json.
"""

import argparse
import json
from pathlib import Path


def main():
    parser = argparse.ArgumentParser(description="LoRA adapters of one recipe averaged into one (their weight changes)")
    parser.add_argument("adapters", type=Path, nargs="+", help="adapter folders (adapter_model.safetensors, adapter_config.json)")
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args()
    if len(args.adapters) < 2:
        raise SystemExit("average_adapters.py: give two adapters or more")

    import torch
    from safetensors.torch import load_file, save_file

    configs = [json.loads((a / "adapter_config.json").read_text()) for a in args.adapters]
    keys = ("r", "lora_alpha", "target_modules", "layers_to_transform")
    # peft writes target_modules in set order, so the lists are compared as sets
    shapes = [{k: sorted(c[k]) if isinstance(c[k], list) else c[k] for k in keys} for c in configs]
    if any(s != shapes[0] for s in shapes):
        raise SystemExit(f"average_adapters.py: the adapters differ in {', '.join(keys)}; only one recipe's seeds can be averaged")
    states = [load_file(str(a / "adapter_model.safetensors")) for a in args.adapters]
    n = len(states)
    out = {}
    for name in states[0]:
        parts = [s[name].float() for s in states]
        if ".lora_A." in name:
            out[name] = torch.cat(parts, dim=0)
        elif ".lora_B." in name:
            out[name] = torch.cat(parts, dim=1) / n
        else:
            raise SystemExit(f"average_adapters.py: {name} is neither lora_A nor lora_B")
    args.out.mkdir(parents=True, exist_ok=True)
    save_file({k: v.half().contiguous() for k, v in out.items()}, str(args.out / "adapter_model.safetensors"), metadata={"format": "pt"})
    config = {**configs[0], "r": configs[0]["r"] * n, "lora_alpha": configs[0]["lora_alpha"] * n}
    (args.out / "adapter_config.json").write_text(json.dumps(config, indent=2) + "\n")
    card = {"averaged": [str(a) for a in args.adapters], "rank": config["r"], "lora_alpha": config["lora_alpha"]}
    (args.out / "card.json").write_text(json.dumps(card, indent=1) + "\n")
    size = (args.out / "adapter_model.safetensors").stat().st_size
    print(f"wrote {args.out}: rank {config['r']}, {size / 2**20:.2f} MiB")


if __name__ == "__main__":
    main()
