"""``bf16_inference``: bf16 copies of the frozen linear weights give the numbers autocast gives
from the fp32 ones, bit for bit, and the fp32 weights are back afterwards (tiny random model,
real peft)."""

from __future__ import annotations

import pytest
import torch
from peft import LoraConfig, get_peft_model

from evaluator.generate import bf16_inference
from tests.conftest import make_model

LORA = LoraConfig(
    r=4, lora_alpha=8, lora_dropout=0.0, target_modules="all-linear", task_type="CAUSAL_LM"
)


@pytest.fixture()
def lora_model(tiny_tokenizer):
    model = get_peft_model(make_model(tiny_tokenizer), LORA)
    generator = torch.Generator().manual_seed(3)
    for name, param in model.named_parameters():
        if "lora_B" in name:  # peft starts B at zero: make the adapter change the output
            param.data = torch.randn(param.shape, generator=generator) * 0.05
    return model


def _frozen_linears(model) -> list[torch.nn.Linear]:
    head = model.get_output_embeddings()
    return [
        m
        for m in model.modules()
        if isinstance(m, torch.nn.Linear) and not m.weight.requires_grad and m is not head
    ]


def _logits(model, ids, copies: bool) -> torch.Tensor:
    precision = bf16_inference(model) if copies else torch.autocast("cpu", dtype=torch.bfloat16)
    with torch.no_grad(), precision:
        return model(input_ids=ids).logits


def test_the_copies_change_no_number(lora_model, tiny_tokenizer):
    ids = torch.randint(3, len(tiny_tokenizer), (3, 12), generator=torch.Generator().manual_seed(0))
    assert torch.equal(_logits(lora_model, ids, copies=False), _logits(lora_model, ids, True))
    # and bf16 is not fp32: the comparison could fail
    with torch.no_grad():
        assert not torch.equal(lora_model(input_ids=ids).logits, _logits(lora_model, ids, True))


def test_inside_frozen_weights_are_bf16_and_the_fp32_ones_come_back(lora_model):
    linears = _frozen_linears(lora_model)
    assert len(linears) == 14  # 2 layers x (4 attention + 3 MLP projections), LoRA's bases
    before = [m.weight.data_ptr() for m in linears]
    with bf16_inference(lora_model):
        assert torch.is_autocast_enabled("cpu")
        assert {m.weight.dtype for m in linears} == {torch.bfloat16}
        # what trains, the tied head and embedding, and the norms stay as they are
        assert all(p.dtype == torch.float32 for p in lora_model.parameters() if p.requires_grad)
        assert lora_model.get_output_embeddings().weight.dtype == torch.float32
        norms = [p for n, p in lora_model.named_parameters() if "norm" in n]
        assert norms and {p.dtype for p in norms} == {torch.float32}
    assert not torch.is_autocast_enabled("cpu")
    assert {m.weight.dtype for m in linears} == {torch.float32}
    assert [m.weight.data_ptr() for m in linears] == before  # the very tensors, not copies


def test_the_fp32_weights_come_back_after_an_error(lora_model):
    linears = _frozen_linears(lora_model)
    with pytest.raises(RuntimeError, match="boom"), bf16_inference(lora_model):
        raise RuntimeError("boom")
    assert {m.weight.dtype for m in linears} == {torch.float32}


def test_a_full_fine_tune_gets_autocast_only(tiny_tokenizer):
    model = make_model(tiny_tokenizer)  # every weight trains: nothing to copy
    with bf16_inference(model):
        assert {p.dtype for p in model.parameters()} == {torch.float32}
        assert torch.is_autocast_enabled("cpu")
