"""Train the masked-language model: the CLI and the UI-agnostic `train(...)` it shares with the app.

    python -m attention_core.training.train --corpus quran --minutes 10 --out checkpoints/quran
    torchrun --nproc_per_node=2 -m attention_core.training.train --corpus quran --minutes 10 --out checkpoints/quran

The trainer knows nothing about the UI: it reports every step to `on_step` (the CLI draws a tqdm bar, the app a
live chart) and stops when `should_stop()` says so. Under torchrun it runs DistributedDataParallel (gloo on CPU,
nccl on CUDA); rank 0 evaluates, logs and saves.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import NoReturn

import torch
import torch.distributed as dist

from attention_core.models.checkpoint import OPTIMIZER, CheckpointError, load_checkpoint, read_tensors, save_checkpoint
from attention_core.models.encoder import EncoderConfig, MaskedLanguageModel, preset
from attention_core.models.vocabulary import Vocabulary
from attention_core.training.baselines import BigramCounts
from attention_core.training.batches import Lexicon, encode_lines, length_bucketed_batches
from attention_core.training.corpora import SHIPPED_MIX, Corpus, CorpusError, load_corpus
from attention_core.training.evaluate import StopRequested, evaluate
from attention_core.training.masked_lm import MaskedBatch, mask_words
from attention_core.training.prepare import OnPrepare, Prepared, prepare


@dataclass(frozen=True)
class TrainSettings:
    steps: int | None = None  # stop after this many steps (None: only the time budget counts)
    minutes: float | None = 10.0  # stop after this many minutes of training (None: only steps count)
    lr: float = 6e-3  # peak learning rate of AdamW, reached after the warm-up, then cosine decay to lr · final_lr
    batch_size: int = 96  # sentences per step (one ayah each for the Qur'an: about 1,200 words)
    max_batch_tokens: int = 6000  # a batch of long windows (hadith) holds fewer sentences: steps cost alike
    warmup: int = 200  # steps of linear warm-up
    final_lr: float = 0.0  # the cosine decay ends at this share of the peak learning rate
    weight_decay: float = 0.1  # small corpora overfit; decay keeps the word vectors modest
    mask_rate: float = 0.15  # share of words chosen for prediction (BERT: 15 %)
    seed: int = 0  # seeds the weights, the batch order and the masks
    eval_every: int = 1000  # steps between held-out evaluations (each costs about 2 s)
    eval_lines: int = 300  # held-out lines scored during training (the full score is attention_core.training.evaluate)
    log_every: int = 50  # steps between metric lines in metrics.jsonl
    save_every_s: float = 120.0  # seconds between checkpoint saves (and one at the end)
    min_count: int = 2  # a word needs this many training occurrences to be one the model can guess
    max_vocab: int = 24_000  # words the model can guess, special tokens included
    n_pieces: int = 16_000  # word pieces learned from the training text (every word is read through them)

    def __post_init__(self) -> None:
        if self.steps is None and self.minutes is None:
            raise ValueError("give a number of steps, a number of minutes, or both")


@dataclass(frozen=True)
class StepReport:
    step: int
    loss: float
    lr: float
    tokens_per_s: float
    elapsed_s: float
    progress: float  # share of the step or time budget used, 0 … 1
    evaluation: dict | None = None  # held-out scores, on evaluation steps


@dataclass(frozen=True)
class Spent:
    """How much of its budget a stopped run had used. Resuming with it goes on with the same budget and the same
    learning-rate schedule; resuming without it ("train longer") starts a new budget, its cosine without warm-up."""

    steps: int = 0
    seconds: float = 0.0


@dataclass
class TrainResult:
    model: MaskedLanguageModel | None  # None when stopped before the first step (while preparing the text)
    vocabulary: Vocabulary | None
    step: int
    history: list[StepReport] = field(default_factory=list)
    prepared: Prepared | None = None  # the encoded text, for the next run on the same corpus and vocabulary
    stopped: bool = False  # should_stop() ended it before its budget was used


def learning_rate(settings: TrainSettings, step: int, progress: float) -> float:
    """Linear warm-up, then cosine decay from lr to lr · final_lr over the budget."""
    if step < settings.warmup:
        return settings.lr * (step + 1) / settings.warmup
    cosine = 0.5 * (1 + math.cos(math.pi * min(progress, 1.0)))
    return settings.lr * (settings.final_lr + (1 - settings.final_lr) * cosine)


def _optimizer(model: MaskedLanguageModel, settings: TrainSettings) -> torch.optim.AdamW:
    # No weight decay on biases, norms and position biases: decay would pull them towards zero for no gain.
    decay = [p for n, p in model.named_parameters() if p.dim() >= 2 and "position_bias" not in n]
    rest = [p for n, p in model.named_parameters() if not (p.dim() >= 2 and "position_bias" not in n)]
    groups = [{"params": decay, "weight_decay": settings.weight_decay}, {"params": rest, "weight_decay": 0.0}]
    scale = model.config.position_bias_lr
    if scale != 1.0:  # a group of its own, its learning rate `scale` times the others' (other models: 2 groups as ever)
        biases = [p for n, p in model.named_parameters() if "position_bias" in n]
        groups[1]["params"] = [p for p in rest if all(p is not b for b in biases)]
        groups.append({"params": biases, "weight_decay": 0.0, "lr_scale": scale})
    return torch.optim.AdamW(groups, lr=settings.lr, betas=(0.9, 0.98), fused=False)


def optimizer_tensors(optimizer: torch.optim.Optimizer) -> dict[str, torch.Tensor]:
    """AdamW's moments as flat named tensors, for safetensors (no pickle)."""
    flat = {}
    for index, state in optimizer.state_dict()["state"].items():
        for name, value in state.items():
            flat[f"{index}.{name}"] = torch.as_tensor(value).clone()
    return flat


def load_optimizer_tensors(optimizer: torch.optim.Optimizer, flat: dict[str, torch.Tensor]) -> None:
    state_dict = optimizer.state_dict()
    state: dict[int, dict[str, torch.Tensor]] = {}
    for key, value in flat.items():
        index, name = key.split(".", 1)
        state.setdefault(int(index), {})[name] = value
    optimizer.load_state_dict({"state": state, "param_groups": state_dict["param_groups"]})


def _distributed() -> tuple[int, int]:
    """(rank, world size); starts the process group when launched by torchrun."""
    world_size = int(os.environ.get("WORLD_SIZE", "1"))
    if world_size > 1 and not dist.is_initialized():
        dist.init_process_group("nccl" if torch.cuda.is_available() else "gloo")
    return (dist.get_rank(), world_size) if world_size > 1 else (0, 1)


def _append_metrics(out: Path | None, record: dict) -> None:
    if out is not None:
        out.mkdir(parents=True, exist_ok=True)
        with open(out / "metrics.jsonl", "a", encoding="utf-8") as handle:
            handle.write(json.dumps(record) + "\n")


def _ranks_agree(model: torch.nn.Module) -> float:
    """Largest difference of any weight between ranks (0.0 when DDP kept them identical)."""
    flat = torch.cat([p.detach().flatten() for p in model.parameters()])
    high, low = flat.clone(), flat.clone()
    dist.all_reduce(high, op=dist.ReduceOp.MAX)
    dist.all_reduce(low, op=dist.ReduceOp.MIN)
    return float((high - low).abs().max())


def _start(
    corpus: Corpus,
    config: EncoderConfig | str,
    settings: TrainSettings,
    out: Path | None,
    resume: bool,
    prepared: Prepared | None,
    on_prepare: OnPrepare | None,
    should_stop: Callable[[], bool] | None,
) -> tuple[MaskedLanguageModel, Prepared, int, dict[str, torch.Tensor] | None]:
    """(model, prepared text, start step, saved optimizer tensors or None). A given `prepared` text is used when
    its vocabulary is the model's; otherwise the text is prepared here (raising StopRequested if stopped)."""
    vocabulary, step, saved = None, 0, None
    if resume:
        if out is None:
            raise CheckpointError("resume needs the checkpoint folder (--out)")
        model, vocabulary, step = load_checkpoint(out)  # raises, touching nothing, if the checkpoint is broken
        saved, optimizer_step = read_tensors(out / OPTIMIZER) if (out / OPTIMIZER).is_file() else (None, -1)
        saved = saved if optimizer_step == step else None
        config = model.config
    base = preset(config) if isinstance(config, str) else config
    if prepared is None or (vocabulary is not None and prepared.vocabulary.words != vocabulary.words):
        prepared = prepare(
            corpus,
            base.max_len,
            vocabulary=vocabulary,
            min_count=settings.min_count,
            max_vocab=settings.max_vocab,
            n_pieces=settings.n_pieces,
            on_prepare=on_prepare,
            should_stop=should_stop,
        )
    if not resume:
        torch.manual_seed(settings.seed)
        model = MaskedLanguageModel.for_vocabulary(base, prepared.vocabulary)
    return model.train(), prepared, step, saved


def training_sequences(corpus: Corpus, lexicon: Lexicon, max_len: int) -> list[list[int]]:
    # The same windows as prepare(...).sequences, for a lexicon the caller already has (benchmarks, tests).
    """Every part's training windows, each part repeated by its weight (one epoch of a mix)."""
    sequences: list[list[int]] = []
    for part in corpus.weighted_parts():
        sequences += encode_lines(part.train, lexicon, max_len) * part.weight
    return sequences


def _progress(settings: TrainSettings, steps_done: int, elapsed_s: float) -> float:
    """Share of the budget used: the larger of the step share and the time share."""
    by_steps = steps_done / settings.steps if settings.steps else 0.0
    by_time = elapsed_s / (60 * settings.minutes) if settings.minutes else 0.0
    return max(by_steps, by_time)


def _agreed(stop: bool, world_size: int) -> bool:
    """Every rank stops at the same step (a rank that stopped alone would leave the others waiting forever)."""
    if world_size == 1:
        return stop
    flag = torch.tensor(float(stop))
    dist.all_reduce(flag, op=dist.ReduceOp.MAX)
    return bool(flag)


def masked_batch(
    ids: torch.Tensor, settings: TrainSettings, vocabulary: Vocabulary, lexicon: Lexicon, generator: torch.Generator
) -> MaskedBatch:
    """One step's input: the words of `ids` masked BERT-style (settings.mask_rate), then each word as its pieces."""
    batch = mask_words(
        ids,
        rate=settings.mask_rate,
        mask_id=vocabulary.mask_id,
        n_special=vocabulary.n_special,
        vocab_size=len(vocabulary),
        generator=generator,
    )
    return replace(batch, inputs=lexicon.pieces_of(batch.inputs))


def _train_step(trained: torch.nn.Module, optimizer: torch.optim.Optimizer, batch: MaskedBatch) -> torch.Tensor:
    """One optimisation step on a masked batch; returns the loss."""
    if batch.targets.numel():
        logits = trained(batch.inputs, predict_at=batch.chosen).logits
        loss = torch.nn.functional.cross_entropy(logits, batch.targets)
    else:  # nothing to predict (a batch of unknown words): a zero loss keeps the ranks' steps in lockstep
        loss = trained(batch.inputs).logits.sum() * 0.0
    optimizer.zero_grad(set_to_none=True)
    loss.backward()
    torch.nn.utils.clip_grad_norm_(trained.parameters(), 1.0)
    optimizer.step()
    return loss.detach()


def train(
    corpus: Corpus,
    config: EncoderConfig | str = "arabic",
    settings: TrainSettings = TrainSettings(),
    *,
    out: str | Path | None = None,
    resume: bool = False,
    spent: Spent | None = None,
    prepared: Prepared | None = None,
    on_prepare: OnPrepare | None = None,
    on_step: Callable[[StepReport], None] | None = None,
    should_stop: Callable[[], bool] | None = None,
    observe: Callable[[int, MaskedLanguageModel, Vocabulary], None] | None = None,
) -> TrainResult:
    """Train on corpus.train, evaluate on corpus.held_out; save to `out` (if given) atomically and periodically.

    `observe(step, model, vocabulary)` sees the model before the first step and after every step (rank 0 only):
    the app takes its snapshots of a probe sentence's attention there. It must leave the model in training mode.
    Resuming with `spent` (what a stopped run had used) goes on with the same budget, clock and schedule; resuming
    without it starts a new budget, its cosine schedule without warm-up. `prepared` skips reading the corpus again;
    `on_prepare(what, share)` reports the reading. `should_stop()` is checked between steps, inside evaluations and
    while the text is read; a stopped run skips its final evaluation (the last one is in the log)."""
    out = Path(out) if out is not None else None
    rank, world_size = _distributed()
    try:
        model, prepared, step, saved_optimizer = _start(
            corpus, config, settings, out, resume, prepared, on_prepare, should_stop if world_size == 1 else None
        )
    except StopRequested:
        return TrainResult(None, None, 0, stopped=True)
    vocabulary, lexicon = prepared.vocabulary, prepared.fork().lexicon
    trained = torch.nn.parallel.DistributedDataParallel(model) if world_size > 1 else model
    optimizer = _optimizer(model, settings)
    if saved_optimizer is not None:
        load_optimizer_tensors(optimizer, saved_optimizer)
    counts = prepared.counts if rank == 0 else None
    batch_order = torch.Generator().manual_seed(settings.seed)  # the same on every rank: ranks take turns
    masks = torch.Generator().manual_seed(settings.seed * 1000 + rank + step)
    result = TrainResult(model, vocabulary, step, prepared=prepared)
    spent_before = spent or Spent()
    first_step, started, last_save, tokens_seen = step, time.monotonic(), time.monotonic(), 0
    if rank == 0:
        if out is not None and not resume:
            save_checkpoint(out, model, vocabulary, step=step)
        begin = {"event": "start", "step": step, "config": asdict(model.config), "settings": asdict(settings)}
        _append_metrics(
            out,
            {
                **begin,
                "world_size": world_size,
                "vocab_size": len(vocabulary),
                "corpus": corpus.name,
                "spent": asdict(spent_before),
            },
        )
    model.train()
    if observe is not None and rank == 0:
        observe(step, model, vocabulary)
    done = False
    while not done:
        for ids in length_bucketed_batches(
            prepared.sequences,
            settings.batch_size,
            batch_order,
            rank=rank,
            world_size=world_size,
            max_tokens=settings.max_batch_tokens,
        ):
            steps_done = spent_before.steps + step - first_step  # of this budget, before this step
            elapsed = spent_before.seconds + time.monotonic() - started
            progress = _progress(settings, steps_done, elapsed)
            stop = should_stop is not None and should_stop()
            result.stopped = _agreed(stop, world_size) and progress < 1.0
            done = result.stopped or _agreed(progress >= 1.0, world_size)
            if done:
                break
            lr = learning_rate(settings, settings.warmup if resume and spent is None else steps_done, progress)
            for group in optimizer.param_groups:
                group["lr"] = lr * group.get("lr_scale", 1.0)
            loss = _train_step(trained, optimizer, masked_batch(ids, settings, vocabulary, lexicon, masks))
            step += 1
            tokens_seen += int((ids != vocabulary.pad_id).sum()) * world_size
            if rank != 0:
                continue
            evaluation = None
            if step % settings.eval_every == 0:
                try:
                    evaluation = evaluate(
                        model,
                        lexicon,
                        corpus,
                        max_lines=settings.eval_lines,
                        counts=counts,
                        should_stop=should_stop if world_size == 1 else None,
                    )
                    clock = spent_before.seconds + time.monotonic() - started  # the budget's clock, as in reports
                    _append_metrics(out, {"event": "eval", "step": step, "elapsed_s": clock, **evaluation})
                except StopRequested:
                    pass  # the step is kept; the next check of should_stop ends the run
                model.train()
            seconds = time.monotonic() - started
            report = StepReport(
                step,
                loss.item(),
                lr,
                tokens_seen / max(seconds, 1e-9),
                spent_before.seconds + seconds,
                min(_progress(settings, steps_done + 1, spent_before.seconds + seconds), 1.0),
                evaluation,
            )
            result.history.append(report)
            if step % settings.log_every == 0:
                _append_metrics(
                    out, {"event": "step", **{k: v for k, v in asdict(report).items() if k != "evaluation"}}
                )
            if on_step is not None:
                on_step(report)
            if observe is not None:
                observe(step, model, vocabulary)
            if out is not None and time.monotonic() - last_save >= settings.save_every_s:
                save_checkpoint(out, model, vocabulary, step=step, optimizer_state=optimizer_tensors(optimizer))
                last_save = time.monotonic()
    result.step = step
    _finish(result, optimizer, corpus, lexicon, settings, out, counts, rank, world_size, started, on_step)
    return result


def _finish(
    result: TrainResult,
    optimizer: torch.optim.Optimizer,
    corpus: Corpus,
    lexicon: Lexicon,
    settings: TrainSettings,
    out: Path | None,
    counts: BigramCounts | None,
    rank: int,
    world_size: int,
    started: float,
    on_step: Callable[[StepReport], None] | None,
) -> None:
    """Check the ranks agree, save the final checkpoint, log the final held-out score."""
    model, vocabulary = result.model, result.vocabulary
    assert model is not None and vocabulary is not None  # set by every run that got past its preparation
    if world_size > 1:
        difference = _ranks_agree(model)
        if rank == 0:
            _append_metrics(
                out, {"event": "ddp_sync", "step": result.step, "world_size": world_size, "max_abs_diff": difference}
            )
    if rank == 0:
        if out is not None:
            save_checkpoint(out, model, vocabulary, step=result.step, optimizer_state=optimizer_tensors(optimizer))
        if result.stopped:  # Stop answers at once: no final score (the last evaluation is in the log)
            _append_metrics(out, {"event": "stopped", "step": result.step, "elapsed_s": time.monotonic() - started})
        else:
            final = evaluate(model, lexicon, corpus, max_lines=settings.eval_lines, counts=counts)
            _append_metrics(
                out, {"event": "end", "step": result.step, "elapsed_s": time.monotonic() - started, **final}
            )
            if on_step is not None and result.history:
                on_step(replace(result.history[-1], evaluation=final, progress=1.0))
    if world_size > 1:
        # Rank 0 saves and evaluates first; the others wait here. The group stays open for the caller: the command
        # closes it as the process ends (_end_process).
        dist.barrier()


def _progress_bar(settings: TrainSettings) -> Callable[[StepReport], None]:
    from tqdm import tqdm

    bar = tqdm(total=1000, unit="‰", bar_format="{l_bar}{bar}| {elapsed}<{remaining} {postfix}")
    best: dict[str, float] = {}

    def on_step(report: StepReport) -> None:
        bar.update(int(report.progress * 1000) - bar.n)
        if report.evaluation:
            best.update(top1=report.evaluation["top1"], bigram=report.evaluation["bigram_top1"])
        bar.set_postfix(
            step=report.step,
            loss=f"{report.loss:.3f}",
            tok_s=f"{report.tokens_per_s:,.0f}",
            **{k: f"{v:.1%}" for k, v in best.items()},
        )
        if report.progress >= 1.0:
            bar.close()

    return on_step


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Train the masked-language model on a corpus.")
    parser.add_argument(
        "--corpus",
        default=SHIPPED_MIX,
        help=f"quran, hadith, a UTF-8 text file (one line each), or a mix: {SHIPPED_MIX} (the default, the shipped "
        "model's) reads the Qurʾān's lines four times per epoch beside the hadith",
    )
    parser.add_argument("--out", required=True, help="checkpoint folder (created; saved into atomically)")
    parser.add_argument("--minutes", type=float, default=None, help="time budget (default 10 when --steps is absent)")
    parser.add_argument("--steps", type=int, default=None, help="step budget")
    parser.add_argument("--preset", default="arabic", help="model size: tiny, small, base, arabic (the shipped one)")
    parser.add_argument("--lr", type=float, default=TrainSettings.lr, help="peak learning rate")
    parser.add_argument("--batch-size", type=int, default=TrainSettings.batch_size, help="sentences per step")
    parser.add_argument("--mask-rate", type=float, default=TrainSettings.mask_rate, help="share of words masked")
    parser.add_argument("--seed", type=int, default=0, help="seed for weights, batch order and masks")
    parser.add_argument("--resume", action="store_true", help="continue the checkpoint in --out")
    parser.add_argument(
        "--eval-every",
        type=int,
        default=TrainSettings.eval_every,
        help="steps between held-out evaluations (they give the learning curve)",
    )
    parser.add_argument(
        "--eval-lines",
        type=int,
        default=TrainSettings.eval_lines,
        help="held-out lines of each corpus scored at each evaluation",
    )
    parser.add_argument("--dropout", type=float, default=None, help="override the preset's dropout")
    parser.add_argument("--threads", type=int, default=None, help="torch threads per process (default: all cores)")
    args = parser.parse_args(argv)
    if args.threads:
        torch.set_num_threads(args.threads)
    minutes = args.minutes if args.minutes is not None or args.steps is not None else 10.0
    settings = TrainSettings(
        steps=args.steps,
        minutes=minutes,
        lr=args.lr,
        batch_size=args.batch_size,
        mask_rate=args.mask_rate,
        seed=args.seed,
        eval_every=args.eval_every,
        eval_lines=args.eval_lines,
    )
    try:
        corpus = load_corpus(args.corpus)
        rank = int(os.environ.get("RANK", "0"))
        config = preset(args.preset, **({"dropout": args.dropout} if args.dropout is not None else {}))
        result = train(
            corpus,
            config,
            settings,
            out=args.out,
            resume=args.resume,
            on_step=_progress_bar(settings) if rank == 0 else None,
        )
    except (CorpusError, CheckpointError, ValueError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    if int(os.environ.get("RANK", "0")) == 0:
        print(f"saved step {result.step} to {args.out}")
    return 0


def _end_process(code: int) -> NoReturn:
    """End the command with `code`. A torchrun worker ends without Python's interpreter shutdown: there torch's
    threads (gloo's, autograd's for DDP's hooks) may still drop Python references while the interpreter is torn
    down, and the process aborts ("terminate called without an active exception", pytorch/pytorch#190489) after its
    work is done and saved: 4 of 21 two-process runs on a busy machine (docs/runs/ddp_exit.txt). Everything is
    written and the ranks have met at the last barrier by then; the group is closed, the output flushed, and the
    process leaves."""
    if dist.is_initialized():
        dist.destroy_process_group()
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(code)
    sys.exit(code)


if __name__ == "__main__":
    _end_process(main())
