"""`CodeReward` inside TRL 1.16's asynchronous GRPO trainer, which computes rewards apart from
the training process.

TRL 1.16 ships this as ``trl.experimental.async_grpo.AsyncGRPOTrainer``: its
``AsyncRolloutWorker`` spawns a child process (``multiprocessing`` spawn context) running
``_AsyncRolloutLoop``, which asks a vLLM server for completions over HTTP, awaits or threads
each reward function on every finished group, and queues the scored samples back to the
trainer. The reward functions are pickled into that child.

The test runs the guide's TRL snippet as is, for one optimizer step on a tiny model, with the real
trainer, the real rollout worker and its real spawned child. What a CPU machine cannot run is
replaced, and only that: generation is served by a small HTTP server speaking the part of
vLLM's OpenAI API the child uses (``/v1/completions`` with ``return_token_ids``; it scores the
scripted completions' log-probabilities with the same tiny model); TRL's check that vLLM is
installed is answered yes for it (the child never imports vLLM, it only speaks HTTP); weight
sync to vLLM is TRL's injectable ``weight_transfer``, here a no-op (the way TRL's docstring
gives to turn it off); the FlashAttention-3 kernel the trainer's
tree attention fetches from the Hub (GPU only) is replaced by the same varlen causal attention
in plain torch; and the peak-FLOPs lookup, which asks CUDA for the device name, says unknown.
"""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import psutil
import pytest
import torch

from evaluator import CodeReward
from tests.frameworks.readme import readme_snippet

SUM_TESTS = [{"input": "1 2\n", "output": "3\n"}, {"input": "5 7\n", "output": "12\n"}]
DOUBLE_TESTS = [{"input": "3\n", "output": "6\n"}, {"input": "10\n", "output": "20\n"}]
PROBLEMS = {
    "sum": (SUM_TESTS, "print(sum(map(int, input().split())))"),
    "double": (DOUBLE_TESTS, "print(int(input()) * 2)"),
}
# Each problem's completions, served in turn: a group of 4 gets one of each.
SCRIPT = {
    name: [
        f"```python\n{right}\n```",
        "```python\nprint(0)\n```",
        "```python\nwhile True:\n    pass\n```",
        "I cannot solve this.",
    ]
    for name, (_, right) in PROBLEMS.items()
}


# --- the stand-in for `vllm serve`: OpenAI /v1/completions over token ids ---------------------


class CompletionServer:
    """Serves scripted completions for the problem named in the prompt, with the tiny model's
    log-probabilities of them (what vLLM returns for ``logprobs=0, return_token_ids=True``)."""

    def __init__(self, model_dir, tokenizer):
        from transformers import AutoModelForCausalLM

        self.tokenizer = tokenizer
        self.model = AutoModelForCausalLM.from_pretrained(model_dir).eval()
        self.lock = threading.Lock()
        self.served: dict[str, int] = {name: 0 for name in SCRIPT}
        self.requests = 0
        server = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):  # noqa: N802 - http.server's name
                payload = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                if self.path != "/v1/completions":
                    self.send_error(404)
                    return
                body = json.dumps(server.complete(payload)).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args):
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()

    def complete(self, payload):
        prompt_ids = payload["prompt"]
        prompt = self.tokenizer.decode(prompt_ids)
        name = next(name for name in SCRIPT if f"[{name}]" in prompt)
        with self.lock:
            text = SCRIPT[name][self.served[name] % len(SCRIPT[name])]
            self.served[name] += 1
            self.requests += 1
        ids = self.tokenizer.encode(text, add_special_tokens=False)
        ids = (ids + [self.tokenizer.eos_token_id])[: payload["max_tokens"]]
        with self.lock, torch.no_grad():
            logits = self.model(torch.tensor([prompt_ids + ids])).logits[0]
            logps = torch.log_softmax(logits[len(prompt_ids) - 1 : -1].float(), dim=-1)
            chosen = logps.gather(1, torch.tensor(ids)[:, None])[:, 0].tolist()
        return {"choices": [{"token_ids": ids, "logprobs": {"token_logprobs": chosen}}]}

    def close(self):
        self.httpd.shutdown()
        self.httpd.server_close()


# --- what a CPU machine cannot run ------------------------------------------------------------


class NoWeightSync:
    """TRL's ``WeightTransferProtocol`` as a no-op: the stand-in server has nothing to update."""

    def init_weight_transfer(self):
        pass

    def pause(self):
        pass

    def send_weights(self, iterator):
        for _ in iterator:
            pass

    def resume(self):
        pass

    def destroy(self):
        pass


class VarlenAttention:
    """``flash_attn_varlen_func`` (causal, aligned at the bottom right as FlashAttention does
    when a segment's queries are fewer than its keys) in plain torch, for CPU."""

    @staticmethod
    def flash_attn_varlen_func(q, k, v, cu_q, cu_k, max_q, max_k, softmax_scale=None, **kwargs):
        assert kwargs.get("causal", True) and tuple(kwargs.get("window_size", (-1, -1))) == (-1, -1)
        groups = q.shape[1] // k.shape[1]
        pieces = []
        for index in range(len(cu_q) - 1):
            qs = q[cu_q[index] : cu_q[index + 1]].transpose(0, 1)
            ks = k[cu_k[index] : cu_k[index + 1]].repeat_interleave(groups, dim=1).transpose(0, 1)
            vs = v[cu_k[index] : cu_k[index + 1]].repeat_interleave(groups, dim=1).transpose(0, 1)
            mask = torch.ones(qs.shape[1], ks.shape[1], dtype=torch.bool)
            mask = mask.tril(diagonal=ks.shape[1] - qs.shape[1])
            out = torch.nn.functional.scaled_dot_product_attention(
                qs, ks, vs, attn_mask=mask, scale=softmax_scale
            )
            pieces.append(out.transpose(0, 1))
        return torch.cat(pieces)


class RecordingQueue:
    """The trainer's end of the rollout queue: hands samples over as TRL's queue does and
    records each one, and, at the first, the rollout process, the sandbox servers under it and
    the temp dirs they made."""

    def __init__(self, queue, worker, tmp_dir):
        self.queue, self.worker, self.tmp_dir = queue, worker, tmp_dir
        self.samples = []
        self.child = None
        self.servers: list[psutil.Process] = []
        self.server_dirs: list[str] = []

    def get(self, *args, **kwargs):
        sample = self.queue.get(*args, **kwargs)
        if self.child is None:
            self.child = self.worker._process
            below = psutil.Process(self.child.pid).children(recursive=True)
            # fork servers and their fork templates (same command line)
            self.servers = [p for p in below if "evaluator.sandbox.server" in _cmdline(p)]
            self.server_dirs = sorted(p.name for p in self.tmp_dir.glob("mcsbx-*"))
        self.samples.append(sample)
        return sample

    def qsize(self):
        return self.queue.qsize()


def _cmdline(process: psutil.Process) -> str:
    try:
        return " ".join(process.cmdline())
    except psutil.Error:
        return ""


@pytest.fixture
def cpu_async_grpo(monkeypatch, tmp_path):
    """TRL's async GRPO module with the substitutions of the module docstring; its trainer
    also records what the rollout queue hands over. Yields the module, the trainers built, and
    the temp dir the rollout process makes its sandbox dirs in."""
    import trl.experimental.async_grpo as async_grpo
    from trl.experimental.async_grpo import async_grpo_trainer, async_rollout_worker, packing

    monkeypatch.setattr(async_rollout_worker, "is_vllm_available", lambda: True)
    monkeypatch.setattr(packing, "_flash_attn", lambda: VarlenAttention)
    monkeypatch.setattr(async_grpo_trainer, "get_peak_flops_per_device", lambda *a, **k: None)
    child_tmp = tmp_path / "rollout-tmp"
    child_tmp.mkdir()
    monkeypatch.setenv("TMPDIR", str(child_tmp))  # inherited by the spawned rollout process
    built = []

    class Trainer(async_grpo.AsyncGRPOTrainer):
        def __init__(self, *args, **kwargs):
            kwargs.setdefault("weight_transfer", NoWeightSync())
            super().__init__(*args, **kwargs)
            built.append(self)

        def train(self, *args, **kwargs):
            self.rollout_queue = self.recorder = RecordingQueue(
                self.rollout_queue, self.rollout_worker, child_tmp
            )
            return super().train(*args, **kwargs)

    monkeypatch.setattr(async_grpo, "AsyncGRPOTrainer", Trainer)
    return async_grpo, built, child_tmp


def test_code_reward_in_trls_async_grpo_trainer(cpu_async_grpo, tiny_model_dir, pool, tmp_path):
    """One optimizer step of AsyncGRPOTrainer, the guide's snippet with CodeReward: the reward is
    pickled into TRL's spawned rollout process and starts its pool there (never in the
    trainer's), gives each completion the score an in-process CodeReward gives it, and stops
    with the trainer: the rollout process exits on its own, its sandbox servers are gone and
    their temp dirs removed."""
    from datasets import Dataset
    from transformers import AutoTokenizer
    from trl.chat_template_utils import qwen2_5_chat_template

    async_grpo, built, child_tmp = cpu_async_grpo
    tokenizer = AutoTokenizer.from_pretrained(tiny_model_dir)
    # a template TRL can parse responses of (the tiny tokenizer has Qwen's special tokens)
    tokenizer.chat_template = qwen2_5_chat_template
    dataset = Dataset.from_list(
        [
            {
                "prompt": [{"role": "user", "content": f"[{name}] Solve it in Python."}],
                "tests": json.dumps(tests),
                "time_limit": 1.0,
            }
            for name, (tests, _) in PROBLEMS.items()
        ]
    )
    server = CompletionServer(tiny_model_dir, tokenizer)
    args = async_grpo.AsyncGRPOConfig(
        output_dir=str(tmp_path / "out"),
        use_cpu=True,
        bf16=False,
        gradient_checkpointing=False,
        learning_rate=1e-2,
        per_device_train_batch_size=4,
        gradient_accumulation_steps=2,  # one step: 8 samples, two groups of 4
        num_generations=4,
        max_completion_length=64,
        max_steps=1,
        token_budget=0,
        max_inflight_tasks=4,  # one group at a time per problem: each gets the whole script
        queue_maxsize=8,
        vllm_server_base_url=server.url,
        report_to="none",
        save_strategy="no",
        seed=0,
    )
    before = {name: p.detach().clone() for name, p in _model_params(tiny_model_dir)}
    namespace = {"model_path": str(tiny_model_dir), "args": args, "dataset": dataset}
    namespace["tokenizer"] = tokenizer
    try:
        exec(
            compile(readme_snippet("# TRL: AsyncGRPOTrainer"), "docs/rl-frameworks.md", "exec"),
            namespace,
        )
    finally:
        server.close()
    (trainer,) = built
    recorder = trainer.recorder
    (reward,) = trainer.rollout_worker._loop_kwargs["reward_funcs"]

    # one real optimizer step changed the policy
    assert trainer.state.global_step == 1
    after = dict(trainer.model.named_parameters())
    assert any(not torch.equal(before[name], after[name].detach()) for name in before)

    # the reward went pickled to a spawned process and its pool started there, not here
    assert trainer.rollout_worker._mp_ctx.get_start_method() == "spawn"
    assert isinstance(reward, CodeReward) and reward._grader is None
    assert recorder.child is not None and recorder.child.pid != psutil.Process().pid
    assert recorder.servers, "no sandbox server under TRL's rollout process"
    assert recorder.server_dirs, "no sandbox temp dir made by the rollout process"

    # every sample handed to the trainer was scored as an in-process CodeReward scores it
    consumed = recorder.samples
    assert len(consumed) >= 8  # the step's 8 (the dataloader may have fetched ahead)
    by_name = {f"[{name}]": tests for name, (tests, _) in PROBLEMS.items()}
    verdicts = set()
    with CodeReward(pool=pool) as local:
        for sample in consumed:
            tests = next(t for key, t in by_name.items() if key in sample.prompt[-1]["content"])
            expected = local([sample.prompt], [sample.completion], tests=[tests], time_limit=[1.0])
            assert sample.metrics["rewards/code_reward"] == expected[0], sample.completion
            verdicts.update(local.last_verdicts)
    assert verdicts == {"AC", "WA", "TLE", "NO_CODE"}  # the scripted groups, looping one included
    assert {s.metrics["rewards/code_reward"] for s in consumed} == {0.0, 1.0}

    # it stopped with the trainer: the rollout process exited on its own (0, not terminated),
    # its servers are gone and their temp dirs removed (the reward closed its pool at exit)
    assert trainer.rollout_worker._process is None
    assert recorder.child.exitcode == 0
    _, alive = psutil.wait_procs(recorder.servers, timeout=30)
    assert not alive, [p.pid for p in alive]
    assert sorted(p.name for p in child_tmp.glob("mcsbx-*")) == []


def _model_params(model_dir):
    from transformers import AutoModelForCausalLM

    return list(AutoModelForCausalLM.from_pretrained(model_dir).named_parameters())
