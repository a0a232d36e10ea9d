"""Throughput and memory of VLM judging on a GPU, with a ~1B random-weight Qwen2.5-VL.

Builds the model from a config (nothing downloaded), then scores batched judging steps (3 roles x
n candidates, one image per step) in bf16 and prints candidates scored per second, judge calls per
second, peak GPU memory, and the time of one VLM generation step for comparison.

    python scripts/gpu_check.py                 # on a GPU machine (about 1-2 minutes)
    python scripts/gpu_check.py --dry-run       # CPU path with a tiny model (checks the script itself)

Exits non-zero with a one-line reason if asked for a GPU that is not there.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

SIZES = {
    # ~0.9B parameters: text 2048 x 16 layers (GQA 16/4 heads), vision 1024 x 16 blocks
    "1b": dict(hidden=2048, layers=16, heads=16, kv_heads=4, vision_hidden=1024, vision_layers=16, image_size=448),
    "tiny": dict(hidden=64, layers=2, heads=4, kv_heads=2, vision_hidden=32, vision_layers=1, image_size=56),
}


def picture(seed: int, side: int):
    """A synthetic picture (coloured blocks), different per step so that no cache can help."""
    import numpy as np
    from PIL import Image

    rng = np.random.default_rng(abs(seed) + 1000 * (seed < 0))
    arr = np.full((side, side, 3), 255, dtype=np.uint8)
    for _ in range(6):
        x, y = rng.integers(0, side - side // 4, 2)
        arr[y : y + side // 4, x : x + side // 4] = rng.integers(0, 255, 3)
    return Image.fromarray(arr)


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--dry-run", action="store_true", help="CPU, tiny model, float32")
    p.add_argument("--size", choices=sorted(SIZES), default=None)
    p.add_argument("--dtype", default=None, help="bfloat16 (GPU default), float16 or float32")
    p.add_argument("--candidates", type=int, default=8, help="candidates per step (x 3 roles = prompts per step)")
    p.add_argument("--steps", type=int, default=5, help="timed judging steps (after one warm-up step)")
    p.add_argument("--batch-size", type=int, default=32)
    args = p.parse_args()

    import torch

    from accord.adapters.local._vlm import VLMGenerator, VLMJudges, random_vlm
    from accord.protocols import StepContext

    device = "cpu" if args.dry_run else "cuda"
    if device == "cuda" and not torch.cuda.is_available():
        print("gpu_check: no CUDA device is visible (use --dry-run for the CPU path)")
        return 2
    size = args.size or ("tiny" if args.dry_run else "1b")
    dtype = args.dtype or ("float32" if args.dry_run else "bfloat16")
    spec = SIZES[size]

    t0 = time.perf_counter()
    vlm = random_vlm("qwen2_5_vl", dtype=dtype, device=device, seed=0, **spec)
    if device == "cuda":
        torch.cuda.synchronize()
    build_s = time.perf_counter() - t0
    params = sum(p.numel() for p in vlm.model.parameters())
    print(
        f"device {torch.cuda.get_device_name() if device == 'cuda' else 'cpu'}; model qwen2_5_vl random {size}: "
        f"{params / 1e6:.1f} M parameters, {dtype}, built in {build_s:.1f} s"
    )

    judges = VLMJudges(vlm=vlm, batch_size=args.batch_size)
    side = spec["image_size"]

    def step(k: int) -> None:
        ctx = StepContext(
            f"How many blue squares are in picture {k}?", ("I look at the picture.",), (picture(k, side),)
        )
        cands = [f"Step {k}.{i}: there are {i + 1} blue squares in the picture." for i in range(args.candidates)]
        judges.score_many(ctx, cands)

    if device == "cuda":
        torch.cuda.reset_peak_memory_stats()
    step(-1)  # warm-up (kernels, allocator)
    if device == "cuda":
        torch.cuda.synchronize()
    t0 = time.perf_counter()
    for k in range(args.steps):
        step(k)
    if device == "cuda":
        torch.cuda.synchronize()
    judge_s = (time.perf_counter() - t0) / args.steps
    prompts = 3 * args.candidates
    print(
        f"judging: {args.candidates} candidates x 3 roles = {prompts} prompts per step, "
        f"{vlm._image_inputs([picture(0, side)])['counts'][0]} visual tokens per image, batch size {args.batch_size}"
    )
    print(
        f"judging: {judge_s:.3f} s per step; THROUGHPUT {args.candidates / judge_s:.1f} candidates/s "
        f"({prompts / judge_s:.1f} judge calls/s)"
    )

    gen = VLMGenerator(vlm, max_new_tokens=32)
    ctx = StepContext("How many blue squares are in the picture?", (), (picture(0, side),))
    gen.propose(ctx, 3, seed=0)  # warm-up
    if device == "cuda":
        torch.cuda.synchronize()
    t0 = time.perf_counter()
    gen.propose(ctx, 3, seed=1)
    if device == "cuda":
        torch.cuda.synchronize()
    gen_s = time.perf_counter() - t0
    print(
        f"generation: 3 candidates x up to 32 tokens in {gen_s:.3f} s; judging 3 candidates would take "
        f"{judge_s * 3 / args.candidates:.3f} s (ratio {judge_s * 3 / args.candidates / gen_s:.3f}, batched larger "
        "steps amortise better)"
    )
    if device == "cuda":
        print(
            f"PEAK GPU MEMORY {torch.cuda.max_memory_allocated() / 2**30:.2f} GiB allocated, "
            f"{torch.cuda.max_memory_reserved() / 2**30:.2f} GiB reserved"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
