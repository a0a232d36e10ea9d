"""Vision-language judges and a generator for (image, question) tasks.

Supported families: Qwen2.5-VL and Qwen2-VL (the paper's judges are Qwen2.5-VL-7B-Instruct) and
LLaVA-style models (a CLIP-like vision tower feeding a causal LM through ``<image>`` tokens).
Models load by hub name (only from the local cache: no network) or local path, on CPU or GPU
with a chosen dtype (bf16/fp16/fp32) and optional ``device_map``.

Judges score like the LLM judges: one yes/no (or 0-9) question per (role, candidate), read from
next-token probabilities; every role x candidate prompt of a step goes through batched forward
passes (``batch_size`` rows each). The three roles follow the paper's intent (Visual: is what the
step says visible in the image; Logical: does it follow from the question and earlier steps;
Contextual: does it stay on the question without speculating about what is not shown); the
prompt wording is this project's.

Prompts are built from a fixed chat layout per family (ChatML for Qwen, ``USER:/ASSISTANT:`` for
LLaVA), and the image placeholder is expanded here to the number of visual tokens the model
expects; this needs only a tokenizer and an image processor, not the family's processor class.
"""

from __future__ import annotations

import hashlib
import inspect
import threading
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

from accord.adapters.local._llm import (
    CLOSING,
    FINAL_PATTERN,
    StopWhen,
    check_sampling,
    ends_line,
    model_lock,
    steps_text,
)
from accord.adapters.local._scoring import answer_token_groups, check_roles_and_mode, scores_from_logits
from accord.protocols import JudgeScore, StepContext

FAMILIES = ("qwen2_5_vl", "qwen2_vl", "llava")
VLM_ROLES = {
    "visual": (
        "Check VISUAL GROUNDING: everything the proposed step says about the picture (objects, "
        "counts, colours, positions, text, relations) must be visible in the image."
    ),
    "logical": (
        "Check LOGICAL VALIDITY: the proposed step must follow from the question and the earlier "
        "steps, with correct arithmetic and no contradiction of what was already established."
    ),
    "contextual": (
        "Check CONTEXTUAL RELEVANCE: the proposed step must stay on the question asked and must "
        "not speculate about objects or events the image does not show."
    ),
}
VLM_JUDGE_SYSTEM = "You are a strict grader of reasoning steps about an image. You answer only as instructed."
SOLVER_SYSTEM = (
    "You answer questions about an image step by step. Write exactly one short step per line. "
    "When you know the result, write a last line of the form 'The answer is <value>.'"
)
_DTYPES = ("float32", "bfloat16", "float16")


# ----------------------------------------------------------------- images
def load_image(item: Any):
    """A PIL RGB image from a path, a PIL image or an (H, W, 3) uint8 array; clear errors otherwise."""
    from PIL import Image

    if isinstance(item, Image.Image):
        return item.convert("RGB")
    if isinstance(item, (str, Path)):
        path = Path(item)
        if not path.is_file():
            raise FileNotFoundError(f"image file {path} does not exist")
        try:
            with Image.open(path) as img:
                return img.convert("RGB")
        except Exception as exc:  # PIL raises several types for unreadable files
            raise ValueError(f"image file {path} could not be read as an image: {exc}") from None
    if hasattr(item, "shape") and hasattr(item, "dtype"):
        return Image.fromarray(item).convert("RGB")
    raise TypeError(f"an image must be a path, a PIL image or an array, got {type(item).__name__}")


def image_digest(img) -> str:
    """A content digest of a PIL image (part of the judge-cache key: same prompt, other image, other key)."""
    h = hashlib.sha256(f"{img.mode}:{img.size}".encode())
    h.update(img.tobytes())
    return h.hexdigest()


# ------------------------------------------------------------------ model
def family_of(config) -> str:
    """The VLM family of a transformers config, or a ValueError naming the unsupported type."""
    kind = getattr(config, "model_type", "")
    if kind in ("qwen2_5_vl", "qwen2_vl"):
        return kind
    if kind in ("llava", "llava_next", "llava_onevision") or hasattr(config, "image_token_index"):
        return "llava"
    raise ValueError(f"unsupported vision-language model type {kind!r}; supported: {', '.join(FAMILIES)}")


@dataclass
class VLM:
    """A loaded vision-language model with what it takes to turn (text, images) into model inputs."""

    model: Any
    tokenizer: Any
    image_processor: Any
    model_id: str = ""
    family: str = field(default="")

    def __post_init__(self) -> None:
        self.family = self.family or family_of(self.model.config)
        if self.family not in FAMILIES:
            raise ValueError(f"unknown VLM family {self.family!r}; choose one of {FAMILIES}")
        self.model_id = self.model_id or str(getattr(self.model.config, "_name_or_path", "") or self.family)
        cfg = self.model.config
        if self.family == "llava":
            self.image_token_id = int(cfg.image_token_index)
        else:
            self.image_token_id = int(cfg.image_token_id)
        self.image_token = self.tokenizer.convert_ids_to_tokens(self.image_token_id)
        if self.tokenizer.pad_token_id is None:
            self.tokenizer.pad_token = self.tokenizer.eos_token
        self.tokenizer.padding_side = "left"
        self._forward_params = set(inspect.signature(self.model.forward).parameters)
        self._pixels: dict[str, dict[str, Any]] = {}

    @property
    def device(self):
        return next(self.model.parameters()).device

    def chat(self, system: str, user: str, n_images: int, assistant_prefix: str = "") -> str:
        """The prompt text in the family's chat layout, with one placeholder per image before ``user``."""
        if self.family == "llava":
            images = "<image>\n" * n_images
            return f"{system}\nUSER: {images}{user} ASSISTANT:" + (" " + assistant_prefix if assistant_prefix else "")
        images = "<|vision_start|><|image_pad|><|vision_end|>" * n_images
        return (
            f"<|im_start|>system\n{system}<|im_end|>\n<|im_start|>user\n{images}{user}<|im_end|>\n"
            f"<|im_start|>assistant\n{assistant_prefix}"
        )

    def _image_inputs(self, images: Sequence[Any]) -> dict[str, Any]:
        """Pixel tensors for a list of PIL images, and the number of visual tokens of each."""
        import torch

        key = "|".join(image_digest(i) for i in images)
        hit = self._pixels.get(key)
        if hit is not None:
            return hit
        out = self.image_processor(images=list(images), return_tensors="pt")
        if self.family == "llava":
            pv = out["pixel_values"]
            patch = int(self.model.config.vision_config.patch_size)
            per = (pv.shape[-2] // patch) * (pv.shape[-1] // patch)
            if getattr(self.model.config, "vision_feature_select_strategy", "default") == "full":
                per += 1  # the CLS position is kept
            res = {"pixel_values": pv, "counts": [per] * len(images)}
        else:
            thw = out["image_grid_thw"]
            merge = int(getattr(self.image_processor, "merge_size", 2))
            res = {
                "pixel_values": out["pixel_values"],
                "image_grid_thw": thw,
                "counts": [int(torch.prod(t)) // (merge * merge) for t in thw],
            }
        if len(self._pixels) > 32:
            self._pixels.clear()
        self._pixels[key] = res
        return res

    def inputs(self, texts: Sequence[str], images: Sequence[Any]) -> dict[str, Any]:
        """Batched model inputs: every text gets all ``images`` (left padding, expanded image tokens)."""
        import torch

        extra: dict[str, Any] = {}
        if images:
            img = self._image_inputs(images)
            expanded = []
            for t in texts:
                parts = t.split(self.image_token)
                if len(parts) - 1 != len(images):
                    raise ValueError(f"prompt has {len(parts) - 1} image placeholders for {len(images)} images")
                s = parts[0]
                for c, p in zip(img["counts"], parts[1:]):
                    s += self.image_token * c + p
                expanded.append(s)
            texts = expanded
            b = len(texts)
            extra["pixel_values"] = torch.cat([img["pixel_values"]] * b).to(self.device, self.model.dtype)
            if "image_grid_thw" in img:
                extra["image_grid_thw"] = torch.cat([img["image_grid_thw"]] * b).to(self.device)
        enc = self.tokenizer(list(texts), return_tensors="pt", padding=True, add_special_tokens=False)
        enc = {k: v.to(self.device) for k, v in enc.items()}
        if images and self.family != "llava" and "mm_token_type_ids" in self._forward_params:
            enc["mm_token_type_ids"] = (enc["input_ids"] == self.image_token_id).int()
        return {**enc, **extra}

    def next_token_logits(self, texts: Sequence[str], images: Sequence[Any]):
        """(batch, vocab) logits of the token after each text, in one forward pass."""
        import torch

        inp = self.inputs(texts, images)
        kwargs = {"logits_to_keep": 1} if "logits_to_keep" in self._forward_params else {}
        with torch.no_grad():
            return self.model(**inp, **kwargs).logits[:, -1].float()


def load_vlm(
    name_or_path: str, device: str = "cpu", dtype: str = "float32", device_map: str | dict | None = None
) -> VLM:
    """A :class:`VLM` from a local path or a hub name already in the local cache (never downloads)."""
    import torch
    from transformers import AutoConfig, AutoImageProcessor, AutoModelForImageTextToText, AutoTokenizer

    if dtype not in _DTYPES:
        raise ValueError(f"dtype must be one of {_DTYPES}, got {dtype!r}")
    torch_dtype = getattr(torch, dtype)
    try:
        config = AutoConfig.from_pretrained(name_or_path, local_files_only=True)
    except (OSError, ValueError) as exc:
        raise ValueError(
            f"VLM {name_or_path!r} not found locally (give a local folder or a cached name): {exc}"
        ) from None
    family_of(config)
    kwargs: dict[str, Any] = {"dtype": torch_dtype, "local_files_only": True}
    if device_map is not None:
        kwargs["device_map"] = device_map
    model = AutoModelForImageTextToText.from_pretrained(name_or_path, **kwargs)
    if device_map is None:
        model.to(device)
    model.eval()
    tok = AutoTokenizer.from_pretrained(name_or_path, local_files_only=True)
    proc = AutoImageProcessor.from_pretrained(name_or_path, local_files_only=True)
    return VLM(model, tok, proc, model_id=str(name_or_path))


@lru_cache(maxsize=4)
def shared_vlm(name_or_path: str, device: str = "cpu", dtype: str = "float32") -> VLM:
    """One loaded VLM per (path, device, dtype) in a process: the generator and every judge group
    of a run that name the same model share its weights."""
    return load_vlm(name_or_path, device, dtype)


# ----------------------------------------------------------------- judges
def judge_user_text(role: str, mode: str, ctx: StepContext, candidate: str) -> str:
    """The judge's question about one candidate under one role: question and earlier steps first
    (shared), then the check, the candidate and the closing question."""
    earlier = "\n".join(f"{i + 1}. {s}" for i, s in enumerate(ctx.steps)) or "(none yet)"
    step = candidate if candidate.strip() else "(empty: the reasoning stops here)"
    return (
        f"Question: {ctx.question}\n\nEarlier steps:\n{earlier}\n\n{VLM_ROLES[role]}\n\n"
        f"Proposed step: {step}\n\n{CLOSING[mode]}"
    )


def judge_prompts(
    vlm: VLM, role: str, mode: str, ctx: StepContext, candidates: Sequence[str], n_images: int
) -> list[str]:
    """One prompt per candidate for one role (:func:`judge_user_text` in the model's chat layout)."""
    return [vlm.chat(VLM_JUDGE_SYSTEM, judge_user_text(role, mode, ctx, c), n_images) for c in candidates]


class VLMJudges:
    """A VLM judging in one or more roles; all roles x candidates of a step in batched forward passes.

    Each role is one panel column named ``{name_prefix}{role}``. ``vlm`` is a loaded :class:`VLM`
    (else ``model`` is loaded with :func:`load_vlm`). ``cache`` is a
    :class:`~accord.adapters._cache.JudgeCache`; its key includes a digest of the images.
    """

    def __init__(
        self,
        roles: Sequence[str] = ("visual", "logical", "contextual"),
        model: str = "",
        mode: str = "yes_no",
        name_prefix: str = "vlm_",
        names: Sequence[str] | None = None,
        vlm: VLM | None = None,
        cache=None,
        batch_size: int = 16,
        device: str = "cpu",
        dtype: str = "float32",
        device_map: str | dict | None = None,
    ):
        check_roles_and_mode("VLM judge", roles, VLM_ROLES, mode)
        if batch_size < 1:
            raise ValueError(f"batch_size must be >= 1, got {batch_size}")
        if vlm is None:
            if not model:
                raise ValueError("VLM judges need a loaded vlm or a model name/path")
            vlm = load_vlm(model, device, dtype, device_map)
        self.vlm = vlm
        self.roles = tuple(roles)
        self.mode = mode
        self.names = list(names) if names is not None else [f"{name_prefix}{r}" for r in roles]
        if len(self.names) != len(self.roles):
            raise ValueError(f"{len(self.names)} names given for {len(self.roles)} roles")
        self.groups = answer_token_groups(vlm.tokenizer, mode)
        self.cache = cache
        self.batch_size = batch_size
        self.judge_key = f"accord-vlm-judge/{mode}"
        self.last_tokens = 0
        self.forward_passes = 0

    def describe(self) -> dict:
        """How the scores are read (recorded in the run's trace header)."""
        return {
            "roles": dict(zip(self.names, self.roles)),
            "scoring": "next-token",
            "mode": self.mode,
            "model": self.vlm.model_id,
            "family": self.vlm.family,
            "answer_tokens": [[self.vlm.tokenizer.decode([t]) for t in g] for g in self.groups],
            "batch_size": self.batch_size,
        }

    def score_many(self, ctx: StepContext, candidates: Sequence[str]) -> list[list[JudgeScore]]:
        """Scores per role (outer) per candidate (inner)."""
        images = [load_image(a) for a in ctx.attachments]
        digest = ",".join(image_digest(i) for i in images)
        prompts = [p for r in self.roles for p in judge_prompts(self.vlm, r, self.mode, ctx, candidates, len(images))]
        values: list[float | None] = [None] * len(prompts)
        todo = []
        for i, p in enumerate(prompts):
            hit = self.cache.get(self.judge_key, self.vlm.model_id, digest + "\x1f" + p) if self.cache else None
            if hit is not None and hit.value is not None:
                values[i] = hit.value
            else:
                todo.append(i)
        tokens = 0
        with model_lock(self.vlm.model):
            for start in range(0, len(todo), self.batch_size):
                chunk = todo[start : start + self.batch_size]
                logits = self.vlm.next_token_logits([prompts[i] for i in chunk], images)
                self.forward_passes += 1
                tokens += int(logits.shape[0])
                for i, v in zip(chunk, scores_from_logits(logits, self.groups, self.mode)):
                    values[i] = v
                    if self.cache is not None:
                        self.cache.put(self.judge_key, self.vlm.model_id, digest + "\x1f" + prompts[i], v)
        self.last_tokens = sum(len(self.vlm.tokenizer.encode(prompts[i], add_special_tokens=False)) for i in todo)
        n = len(candidates)
        return [[JudgeScore(v) for v in values[k * n : (k + 1) * n]] for k in range(len(self.roles))]


class VLMJudge:
    """One role of :class:`VLMJudges` as a plain :class:`~accord.protocols.Judge`."""

    def __init__(self, role: str = "visual", **kwargs):
        self._group = VLMJudges((role,), **kwargs)
        self.name = self._group.names[0]

    def score(self, ctx: StepContext, candidates: Sequence[str]) -> list[JudgeScore]:
        return self._group.score_many(ctx, candidates)[0]


# -------------------------------------------------------------- generator
class VLMGenerator:
    """Proposes candidate next steps for (image, question) tasks; n candidates from one seeded batch."""

    def __init__(
        self,
        vlm: VLM,
        temperature: float = 0.8,
        top_p: float = 0.6,
        max_new_tokens: int = 48,
        system_prompt: str = SOLVER_SYSTEM,
        instruction: str = "Reason step by step.",
    ):
        check_sampling(temperature, top_p, max_new_tokens)
        self.vlm = vlm
        self.temperature, self.top_p, self.max_new_tokens = temperature, top_p, max_new_tokens
        self.system_prompt, self.instruction = system_prompt, instruction
        self.last_stats: dict[str, int] = {"generated": 0, "prompt": 0}
        self._lock = threading.Lock()

    def prompt(self, ctx: StepContext, n_images: int) -> str:
        user = f"{ctx.question}\n{self.instruction}".strip()
        return self.vlm.chat(self.system_prompt, user, n_images, steps_text(ctx.steps))

    def propose(self, ctx: StepContext, n: int, seed: int) -> list[str]:
        """n candidate next steps from one batched, seeded generate call."""
        import torch
        from transformers import StoppingCriteriaList

        if n < 1:
            raise ValueError(f"n must be >= 1, got {n}")
        images = [load_image(a) for a in ctx.attachments]
        inp = self.vlm.inputs([self.prompt(ctx, len(images))] * n, images)
        plen = inp["input_ids"].shape[1]
        tok = self.vlm.tokenizer
        sample = self.temperature > 0
        kwargs = (
            dict(do_sample=True, temperature=self.temperature, top_p=self.top_p) if sample else dict(do_sample=False)
        )
        with model_lock(self.vlm.model), torch.no_grad():
            torch.manual_seed(seed % (2**63))
            out = self.vlm.model.generate(
                **inp,
                max_new_tokens=self.max_new_tokens,
                stopping_criteria=StoppingCriteriaList([StopWhen(tok, plen, ends_line)]),
                pad_token_id=tok.pad_token_id,
                eos_token_id=tok.eos_token_id,
                **kwargs,
            )
        steps, generated = [], 0
        special = set(tok.all_special_ids)
        for row in out[:, plen:]:
            ids = row.tolist()
            generated += sum(1 for t in ids if t not in special) + (1 if any(t in special for t in ids) else 0)
            text = tok.decode(ids, skip_special_tokens=True).lstrip()
            steps.append(text.split("\n", 1)[0].strip())
        self.last_stats = {"generated": generated, "prompt": plen * n}
        return steps

    def is_final(self, step: str) -> bool:
        """A step ends the answer when it states the answer, or when the model wrote nothing more."""
        return not step.strip() or bool(FINAL_PATTERN.search(step))


# ------------------------------------------------------- random models
_SPECIAL = [
    "<|endoftext|>",
    "<|im_start|>",
    "<|im_end|>",
    "<|vision_start|>",
    "<|vision_end|>",
    "<|image_pad|>",
    "<|video_pad|>",
    "<image>",
]
_CORPUS = (
    "yes no Yes No YES NO 0 1 2 3 4 5 6 7 8 9 yes no yes no",
    "Question: How many red circles are in the image? Earlier steps: none yet. The answer is 3.",
    "Check VISUAL GROUNDING LOGICAL VALIDITY CONTEXTUAL RELEVANCE: the proposed step must follow.",
    "Is the proposed step acceptable under this check? Answer yes or no. Rate it with one digit.",
    "There are two blue squares and one green triangle left of a yellow star on a white background.",
)


def small_tokenizer(vocab_size: int = 600):
    """A small byte-level BPE tokenizer with the Qwen/LLaVA special tokens, trained in memory (no download).

    For random-weight models in smoke tests and throughput checks; " yes", " no" and the digits are
    single tokens so that next-token scoring works.
    """
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import PreTrainedTokenizerFast

    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=vocab_size,
        special_tokens=_SPECIAL,
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        show_progress=False,
    )
    tok.train_from_iterator(list(_CORPUS) * 20, trainer)
    return PreTrainedTokenizerFast(tokenizer_object=tok, eos_token="<|im_end|>", pad_token="<|endoftext|>")


def random_vlm(
    family: str = "qwen2_5_vl",
    hidden: int = 64,
    layers: int = 2,
    heads: int = 4,
    kv_heads: int = 2,
    vision_hidden: int = 32,
    vision_layers: int = 1,
    image_size: int = 56,
    vocab_size: int = 600,
    seed: int = 0,
    dtype: str = "float32",
    device: str = "cpu",
) -> VLM:
    """A randomly initialised VLM of ``family`` built from a config, with its tokenizer and image processor.

    Nothing is downloaded. Used by the tests (tiny sizes) and by ``scripts/gpu_check.py`` (~1B).
    ``image_size`` bounds the processed image side (Qwen: max pixels; LLaVA: the crop size).
    """
    import torch

    if family not in FAMILIES:
        raise ValueError(f"unknown VLM family {family!r}; choose one of {FAMILIES}")
    tok = small_tokenizer(vocab_size)
    ids = {t: tok.convert_tokens_to_ids(t) for t in _SPECIAL}
    text = dict(
        vocab_size=len(tok),
        hidden_size=hidden,
        intermediate_size=hidden * 2 if hidden < 512 else int(hidden * 8 / 3) // 64 * 64,
        num_hidden_layers=layers,
        num_attention_heads=heads,
        num_key_value_heads=kv_heads,
        max_position_embeddings=4096,
        eos_token_id=ids["<|im_end|>"],
        pad_token_id=ids["<|endoftext|>"],
        bos_token_id=None,
    )
    torch.manual_seed(seed)
    with torch.device(device):  # initialise the weights where they will live (fast for ~1B on a GPU)
        model, proc = _random_model(family, text, ids, hidden, heads, vision_hidden, vision_layers, image_size)
    model.to(dtype=getattr(torch, dtype)).eval()
    return VLM(model, tok, proc, model_id=f"random-{family}-h{hidden}-l{layers}-s{seed}", family=family)


def _random_model(family, text, ids, hidden, heads, vision_hidden, vision_layers, image_size):
    if family == "llava":
        from transformers import CLIPImageProcessor, LlavaConfig, LlavaForConditionalGeneration

        side = max(14, image_size // 14 * 14)
        proc = CLIPImageProcessor(size={"shortest_edge": side}, crop_size={"height": side, "width": side})
        cfg = LlavaConfig(
            vision_config=dict(
                model_type="clip_vision_model",
                hidden_size=vision_hidden,
                intermediate_size=vision_hidden * 2,
                num_hidden_layers=vision_layers + 1,
                num_attention_heads=2,
                image_size=side,
                patch_size=14,
            ),
            text_config=dict(model_type="llama", **text),
            image_token_index=ids["<image>"],
            image_seq_length=(side // 14) ** 2,
        )
        model = LlavaForConditionalGeneration(cfg)
    else:
        from transformers import Qwen2VLImageProcessor

        proc = Qwen2VLImageProcessor(
            min_pixels=28 * 28, max_pixels=image_size * image_size, patch_size=14, merge_size=2, temporal_patch_size=2
        )
        head_dim = hidden // heads
        section = [head_dim // 8, (head_dim // 2 - head_dim // 8) // 2]
        section.append(head_dim // 2 - sum(section))
        text["rope_scaling"] = {"type": "mrope", "mrope_section": section}
        special = dict(
            image_token_id=ids["<|image_pad|>"],
            video_token_id=ids["<|video_pad|>"],
            vision_start_token_id=ids["<|vision_start|>"],
            vision_end_token_id=ids["<|vision_end|>"],
        )
        if family == "qwen2_vl":
            from transformers import Qwen2VLConfig, Qwen2VLForConditionalGeneration

            cfg = Qwen2VLConfig(
                text_config=text,
                **special,
                vision_config=dict(
                    depth=vision_layers,
                    embed_dim=vision_hidden,
                    hidden_size=hidden,
                    num_heads=2,
                    mlp_ratio=2,
                    patch_size=14,
                    spatial_merge_size=2,
                    temporal_patch_size=2,
                    in_channels=3,
                ),
            )
            model = Qwen2VLForConditionalGeneration(cfg)
        else:
            from transformers import Qwen2_5_VLConfig, Qwen2_5_VLForConditionalGeneration

            cfg = Qwen2_5_VLConfig(
                text_config=text,
                **special,
                vision_config=dict(
                    depth=vision_layers,
                    hidden_size=vision_hidden,
                    intermediate_size=vision_hidden * 2,
                    num_heads=2 if vision_hidden < 512 else vision_hidden // 64,
                    out_hidden_size=hidden,
                    patch_size=14,
                    spatial_merge_size=2,
                    temporal_patch_size=2,
                    window_size=56,
                    fullatt_block_indexes=[vision_layers - 1],
                ),
            )
            model = Qwen2_5_VLForConditionalGeneration(cfg)
    return model, proc
