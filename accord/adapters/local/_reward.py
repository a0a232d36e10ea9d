"""Reward models as judges: raw (unbounded) rewards per (prompt, response), batched.

Reward sources (each has ``name`` and ``rewards(prompts, responses, references=None) -> (N,)``):

- :class:`RewardModel` — a transformers sequence-classification model, by name or local path
  (or an already loaded model + tokenizer); CPU/GPU, dtype, batched. One logit is the reward;
  two logits give the log-odds logit[1] - logit[0]; more need ``label`` (its log-probability).
- :class:`LikelihoodReward` — a causal LM's mean log-probability of the response given the prompt
  (an implicit reward; SmolLM2 by default).
- :class:`SimilarityReward` — cosine similarity of response and reference sentence embeddings.
- :class:`CorrectnessReward` — 1 if the response's answer equals the reference (math-verify), else 0.
- :class:`JudgeReward` — any step-loop judge (e.g. the LLM judge of :mod:`accord.adapters.local._llm`)
  scoring the response as one step: a generative judge.

:class:`RewardJudge` puts any source on a panel: it calibrates raw rewards to [0, 1] with a fitted
:class:`~accord.adapters._calibration.Calibrator` (default: the plain logistic, recorded as such).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

import numpy as np

from accord.adapters._calibration import Calibrator
from accord.protocols import JudgeScore, StepContext

_DTYPES = ("float32", "bfloat16", "float16")


class RewardSource(Protocol):
    name: str

    def rewards(
        self, prompts: Sequence[str], responses: Sequence[str], references: Sequence[str | None] | None = None
    ) -> np.ndarray: ...


def _check_pairs(prompts: Sequence[str], responses: Sequence[str]) -> None:
    if len(prompts) != len(responses):
        raise ValueError(f"got {len(prompts)} prompts for {len(responses)} responses (one prompt per response)")


def _torch_dtype(dtype: str):
    import torch

    if dtype not in _DTYPES:
        raise ValueError(f"dtype must be one of {', '.join(_DTYPES)}, got {dtype!r}")
    return getattr(torch, dtype)


def _render(tokenizer, prompt: str, response: str) -> str:
    """Prompt and response as the model saw conversations in training (its chat template if any)."""
    if getattr(tokenizer, "chat_template", None):
        msgs = [{"role": "user", "content": prompt}, {"role": "assistant", "content": response}]
        return tokenizer.apply_chat_template(msgs, tokenize=False)
    return f"{prompt}\n{response}"


class RewardModel:
    """A sequence-classification reward model (transformers), batched on CPU or GPU."""

    def __init__(
        self,
        name_or_path: str | None = None,
        *,
        model=None,
        tokenizer=None,
        name: str | None = None,
        device: str = "cpu",
        dtype: str = "float32",
        batch_size: int = 8,
        max_length: int = 1024,
        label: int | None = None,
    ):
        if batch_size < 1:
            raise ValueError(f"batch_size must be >= 1, got {batch_size}")
        if model is None:
            if name_or_path is None:
                raise ValueError("give a model name or local path, or a loaded model and tokenizer")
            from transformers import AutoModelForSequenceClassification, AutoTokenizer

            tokenizer = AutoTokenizer.from_pretrained(name_or_path)
            model = AutoModelForSequenceClassification.from_pretrained(name_or_path, dtype=_torch_dtype(dtype))
        elif tokenizer is None:
            raise ValueError("a loaded reward model needs its tokenizer")
        else:
            model = model.to(_torch_dtype(dtype))
        if tokenizer.pad_token is None:
            tokenizer.pad_token = tokenizer.eos_token
        model.config.pad_token_id = tokenizer.pad_token_id
        n_labels = int(model.config.num_labels)
        if n_labels > 2 and label is None:
            raise ValueError(f"the model has {n_labels} output labels: say which one is the reward (label=...)")
        if label is not None and not (0 <= label < n_labels):
            raise ValueError(f"label {label} out of range for a model with {n_labels} labels")
        self.model = model.to(device).eval()
        self.tokenizer = tokenizer
        self.device = device
        self.batch_size = batch_size
        self.max_length = max_length
        self.label = label
        self.name = name or (str(name_or_path).rstrip("/").split("/")[-1] if name_or_path else type(model).__name__)

    def describe(self) -> dict:
        return {
            "reward": "sequence-classification logit",
            "labels": int(self.model.config.num_labels),
            "label": self.label,
        }

    def rewards(self, prompts, responses, references=None) -> np.ndarray:
        import torch

        _check_pairs(prompts, responses)
        texts = [_render(self.tokenizer, p, r) for p, r in zip(prompts, responses)]
        out = np.empty(len(texts))
        for start in range(0, len(texts), self.batch_size):
            chunk = texts[start : start + self.batch_size]
            enc = self.tokenizer(
                chunk, return_tensors="pt", padding=True, truncation=True, max_length=self.max_length
            ).to(self.device)
            with torch.no_grad():
                logits = self.model(**enc).logits.float()
            if logits.shape[-1] == 1:
                r = logits[:, 0]
            elif logits.shape[-1] == 2 and self.label is None:
                r = logits[:, 1] - logits[:, 0]
            else:
                r = torch.log_softmax(logits, dim=-1)[:, self.label]
            out[start : start + len(chunk)] = r.cpu().numpy()
        return out


class LikelihoodReward:
    """Mean log-probability per response token under a causal LM, given the prompt."""

    def __init__(self, lm=None, tokenizer=None, name: str = "loglik", batch_size: int = 8, max_length: int = 1024):
        if lm is None:
            from accord.adapters.local._models import load_causal_lm

            lm, tokenizer = load_causal_lm("smollm2")
        self.lm, self.tokenizer, self.name = lm, tokenizer, name
        self.batch_size, self.max_length = batch_size, max_length

    def describe(self) -> dict:
        return {"reward": "mean token log-probability of the response given the prompt"}

    def rewards(self, prompts, responses, references=None) -> np.ndarray:
        import torch

        _check_pairs(prompts, responses)
        tok = self.tokenizer
        out = np.full(len(prompts), np.nan)
        for start in range(0, len(prompts), self.batch_size):
            ps, rs = prompts[start : start + self.batch_size], responses[start : start + self.batch_size]
            ctx_ids = [tok(_render_prefix(tok, p), add_special_tokens=False)["input_ids"] for p in ps]
            resp_ids = [tok(r, add_special_tokens=False)["input_ids"] for r in rs]
            seqs = [(c + r)[-self.max_length :] for c, r in zip(ctx_ids, resp_ids)]
            width = max(len(s) for s in seqs)
            pad = tok.pad_token_id if tok.pad_token_id is not None else 0
            ids = torch.tensor([[pad] * (width - len(s)) + s for s in seqs])  # left padding
            mask = torch.tensor([[0] * (width - len(s)) + [1] * len(s) for s in seqs])
            with torch.no_grad():
                logits = self.lm(input_ids=ids, attention_mask=mask).logits.float()
            logp = torch.log_softmax(logits[:, :-1], dim=-1).gather(2, ids[:, 1:, None])[..., 0]
            for k, r in enumerate(resp_ids):
                n = min(len(r), len(seqs[k]) - 1)
                if n > 0:
                    out[start + k] = float(logp[k, -n:].mean())
        return out


def _render_prefix(tokenizer, prompt: str) -> str:
    if getattr(tokenizer, "chat_template", None):
        return tokenizer.apply_chat_template(
            [{"role": "user", "content": prompt}], tokenize=False, add_generation_prompt=True
        )
    return prompt + "\n"


class SimilarityReward:
    """Cosine similarity of the response to the reference answer (sentence embeddings)."""

    def __init__(self, model=None, name: str = "similarity"):
        if model is None:
            from accord.adapters.local._models import load_minilm

            model = load_minilm()
        self.model, self.name = model, name

    def rewards(self, prompts, responses, references=None) -> np.ndarray:
        _check_pairs(prompts, responses)
        if references is None or any(r is None for r in references):
            raise ValueError("similarity rewards need a reference answer for every response")
        emb_r = self.model.encode(list(responses), convert_to_numpy=True, normalize_embeddings=True)
        emb_t = self.model.encode(list(references), convert_to_numpy=True, normalize_embeddings=True)
        return np.sum(emb_r * emb_t, axis=1).astype(np.float64)


class CorrectnessReward:
    """1.0 when the response's final answer equals the reference (:mod:`accord.mathcheck.answers`), else 0.0."""

    def __init__(self, name: str = "correct"):
        self.name = name

    def rewards(self, prompts, responses, references=None) -> np.ndarray:
        _check_pairs(prompts, responses)
        if references is None or any(r is None for r in references):
            raise ValueError("correctness rewards need a reference answer for every response")
        from accord.mathcheck.answers import AnswerGrader

        grader = AnswerGrader()  # a whole response states its answer in a sentence: read it as one
        grader.prepare(list(responses) + list(references))
        return np.array([1.0 if grader.equivalent(r, t) else 0.0 for r, t in zip(responses, references)])


class JudgeReward:
    """A step-loop judge scoring each response as one step after its prompt (a generative judge)."""

    def __init__(self, judge, name: str | None = None):
        self.judge = judge
        self.name = name or judge.name

    def rewards(self, prompts, responses, references=None) -> np.ndarray:
        _check_pairs(prompts, responses)
        out = np.full(len(prompts), np.nan)
        groups: dict[tuple[str, str | None], list[int]] = {}
        for i, p in enumerate(prompts):
            ref = references[i] if references is not None else None
            groups.setdefault((p, ref), []).append(i)
        for (p, ref), idx in groups.items():
            scores = self.judge.score(StepContext(question=p, reference=ref), [responses[i] for i in idx])
            for i, s in zip(idx, scores):
                out[i] = np.nan if s.value is None else s.value
        return out


class RewardJudge:
    """A reward source on a judge panel: raw rewards calibrated to [0, 1]."""

    def __init__(self, source: RewardSource, calibrator: Calibrator | None = None, name: str | None = None):
        self.source = source
        self.calibrator = calibrator if calibrator is not None else Calibrator("sigmoid")
        if not self.calibrator.fitted:
            raise ValueError(f"the {self.calibrator.method} calibration must be fitted before judging (Calibrator.fit)")
        self.name = name or source.name

    def describe(self) -> dict:
        return {"calibration": self.calibrator.as_dict()}

    def score(self, ctx: StepContext, candidates: Sequence[str]) -> list[JudgeScore]:
        prompt = ctx.question + ("\n" + "\n".join(ctx.steps) if ctx.steps else "")
        refs = [ctx.reference] * len(candidates) if ctx.reference is not None else None
        try:
            raw = self.source.rewards([prompt] * len(candidates), list(candidates), refs)
        except ValueError as exc:
            return [JudgeScore.failed(str(exc))] * len(candidates)
        cal = self.calibrator.apply(raw)
        return [
            JudgeScore.failed("reward model gave no finite reward") if np.isnan(v) else JudgeScore(float(v))
            for v in cal
        ]


def reward_rows(sources: Sequence[RewardSource], items: Sequence[dict]) -> list[dict]:
    """Rewards of every source for records {prompt_id, response_id, prompt, response, reference?, label?},
    as rows of the ``accord ensemble`` input format (one field per source)."""
    prompts = [it["prompt"] for it in items]
    responses = [it["response"] for it in items]
    refs = [it.get("reference") for it in items]
    cols = {s.name: s.rewards(prompts, responses, refs if all(r is not None for r in refs) else None) for s in sources}
    rows = []
    for k, it in enumerate(items):
        row = {"prompt_id": it["prompt_id"], "response_id": it["response_id"]}
        row.update({name: (None if np.isnan(v[k]) else float(v[k])) for name, v in cols.items()})
        if "label" in it:
            row["label"] = it["label"]
        rows.append(row)
    return rows
