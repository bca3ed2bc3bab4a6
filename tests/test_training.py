"""Training, checkpoints and evaluation, with tiny models so the suite stays fast."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
from dataclasses import replace
from pathlib import Path

import pytest
import torch

from attention_core.models import checkpoint as checkpoint_module
from attention_core.models.checkpoint import CheckpointError, load_checkpoint, save_checkpoint
from attention_core.models.encoder import MaskedLanguageModel, preset
from attention_core.models.trained import load_model
from attention_core.models.vocabulary import build_vocabulary
from attention_core.training.corpora import Corpus
from attention_core.training.evaluate import main as evaluate_main
from attention_core.training.train import TrainSettings, train

ROOT = Path(__file__).parents[1]
LINES = [f"the {a} sat on the {b}" for a in ("cat", "dog", "bird") for b in ("mat", "rug", "log")] * 4
TINY = replace(preset("tiny"), dropout=0.0, n_layers=2, position_bias=True, max_len=16)


def tiny_corpus() -> Corpus:
    return Corpus("tiny", tuple(LINES), tuple(LINES[:9]), "test sentences")


def quick_settings(**overrides: object) -> TrainSettings:
    defaults = {
        "steps": 300,
        "minutes": None,
        "lr": 1e-2,
        "batch_size": 16,
        "warmup": 20,
        "weight_decay": 0.0,
        "mask_rate": 0.3,
        "min_count": 1,
        "eval_every": 100,
        "eval_lines": 9,
        "log_every": 50,
    }
    return TrainSettings(**{**defaults, **overrides})


@pytest.fixture(scope="module")
def trained(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list]:
    out = tmp_path_factory.mktemp("run") / "checkpoint"
    reports: list = []
    train(tiny_corpus(), TINY, quick_settings(), out=out, on_step=reports.append)
    return out, reports


def test_tiny_model_overfits_a_tiny_corpus(trained: tuple[Path, list]) -> None:
    out, reports = trained
    assert reports[0].loss > 2.0 and reports[-1].loss < 0.7
    final = reports[-1].evaluation
    assert final["top5"] > 0.95 and final["top1"] > final["unigram_top1"]
    model = load_model(out)
    word, probability = model.fill_mask("the cat sat on [MASK] mat")[0]
    assert word == "the" and probability > 0.5


def test_metrics_are_json_lines_beside_the_checkpoint(trained: tuple[Path, list]) -> None:
    out, _ = trained
    records = [json.loads(line) for line in (out / "metrics.jsonl").read_text().splitlines()]
    events = [r["event"] for r in records]
    assert events[0] == "start" and events[-1] == "end" and events.count("eval") == 3
    steps = [r for r in records if r["event"] == "step"]
    assert [r["step"] for r in steps] == [50, 100, 150, 200, 250, 300]
    assert all(r["tokens_per_s"] > 0 for r in steps)
    assert steps[0]["lr"] < steps[1]["lr"] or steps[1]["lr"] > steps[-1]["lr"]  # warm-up, then decay


def test_checkpoint_round_trip_gives_identical_outputs(tmp_path: Path) -> None:
    vocabulary = build_vocabulary(LINES, min_count=1)
    model = MaskedLanguageModel.for_vocabulary(TINY, vocabulary).eval()
    save_checkpoint(tmp_path, model, vocabulary, step=7)
    loaded, loaded_vocabulary, step = load_checkpoint(tmp_path)
    ids = torch.tensor([[3, 4, 5, 6, 7]])
    assert step == 7 and loaded_vocabulary == vocabulary
    assert torch.equal(model(ids, need_weights=True).weights[1], loaded(ids, need_weights=True).weights[1])
    assert torch.equal(model(ids).logits, loaded(ids).logits)
    files = ["config.json", "model.safetensors", "tokenizer.json", "vocabulary.json"]
    assert sorted(p.name for p in tmp_path.iterdir()) == files


def test_save_interrupted_mid_write_keeps_the_previous_checkpoint(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    vocabulary = build_vocabulary(LINES, min_count=1)
    model = MaskedLanguageModel.for_vocabulary(TINY, vocabulary).eval()
    save_checkpoint(tmp_path, model, vocabulary, step=1)
    before = (tmp_path / "model.safetensors").read_bytes()

    def dies_half_way(tensors: dict, filename: str, metadata: dict | None = None) -> None:
        Path(filename).write_bytes(b"\x10\x00\x00\x00half a header")
        raise OSError("No space left on device")

    monkeypatch.setattr(checkpoint_module, "save_file", dies_half_way)
    with torch.no_grad():
        model.embedding.weight.add_(1.0)
    with pytest.raises(CheckpointError, match=r"could not be saved .*No space.*previous checkpoint is unchanged"):
        save_checkpoint(tmp_path, model, vocabulary, step=2)
    assert (tmp_path / "model.safetensors").read_bytes() == before
    assert load_checkpoint(tmp_path)[2] == 1
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(".tmp")]  # no litter


@pytest.mark.slow
def test_a_saving_process_killed_at_any_moment_leaves_a_loadable_checkpoint(tmp_path: Path) -> None:
    saver = (
        "import sys, torch; from dataclasses import replace\n"
        "from attention_core.models.checkpoint import save_checkpoint\n"
        "from attention_core.models.encoder import MaskedLanguageModel, preset\n"
        "from attention_core.models.vocabulary import build_vocabulary\n"
        "v = build_vocabulary([' '.join(f'w{i}' for i in range(3000))], min_count=1, max_size=4000)\n"
        "m = MaskedLanguageModel.for_vocabulary(preset('small'), v)\n"
        "step = 0\n"
        "while True:\n"
        "    step += 1; save_checkpoint(sys.argv[1], m, v, step=step); print(step, flush=True)\n"
    )
    for delay in (0.05, 0.3, 0.7):
        process = subprocess.Popen([sys.executable, "-c", saver, str(tmp_path)], cwd=ROOT, stdout=subprocess.PIPE)
        assert process.stdout.readline()  # a first checkpoint exists; now kill it while it saves the next ones
        time.sleep(delay)
        os.kill(process.pid, signal.SIGKILL)
        process.wait()
        model, _, step = load_checkpoint(tmp_path)
        assert step >= 1 and model.config.d_model == 128


def test_broken_checkpoints_give_clear_errors(tmp_path: Path, trained: tuple[Path, list]) -> None:
    out, _ = trained
    with pytest.raises(CheckpointError, match="no such checkpoint"):
        load_checkpoint(tmp_path / "missing")
    broken = tmp_path / "broken"
    broken.mkdir()
    for name in ("config.json", "vocabulary.json", "tokenizer.json"):
        (broken / name).write_bytes((out / name).read_bytes())
    (broken / "model.safetensors").write_bytes((out / "model.safetensors").read_bytes()[:300])
    with pytest.raises(CheckpointError, match="truncated or corrupted"):
        load_checkpoint(broken)
    (broken / "model.safetensors").write_bytes((out / "model.safetensors").read_bytes())
    config = json.loads((out / "config.json").read_text())
    (broken / "config.json").write_text(json.dumps({**config, "d_model": 64, "d_ff": 64}))
    with pytest.raises(CheckpointError, match="do not fit the config"):
        load_checkpoint(broken)
    (broken / "vocabulary.json").unlink()
    with pytest.raises(CheckpointError, match=r"missing vocabulary\.json"):
        load_checkpoint(broken)


def test_resume_refuses_a_broken_checkpoint_and_leaves_it_untouched(tmp_path: Path, trained: tuple[Path, list]) -> None:
    out, _ = trained
    for path in out.iterdir():
        (tmp_path / path.name).write_bytes(path.read_bytes())
    (tmp_path / "model.safetensors").write_bytes(b"garbage")
    before = {p.name: p.read_bytes() for p in tmp_path.iterdir()}
    with pytest.raises(CheckpointError):
        train(tiny_corpus(), TINY, quick_settings(steps=5), out=tmp_path, resume=True)
    assert {p.name: p.read_bytes() for p in tmp_path.iterdir()} == before


def test_resume_continues_from_the_saved_step(tmp_path: Path, trained: tuple[Path, list]) -> None:
    out, _ = trained
    for path in out.iterdir():
        (tmp_path / path.name).write_bytes(path.read_bytes())
    result = train(tiny_corpus(), TINY, quick_settings(steps=20), out=tmp_path, resume=True)
    assert result.step == 320 and load_checkpoint(tmp_path)[2] == 320


def test_evaluate_prints_the_documented_keys(trained: tuple[Path, list], tmp_path: Path, capsys) -> None:
    out, _ = trained
    corpus_file = tmp_path / "corpus.txt"
    corpus_file.write_text("\n".join(LINES), encoding="utf-8")
    assert evaluate_main(["--checkpoint", str(out), "--corpus", str(corpus_file)]) == 0
    result = json.loads(capsys.readouterr().out)
    keys = {"top1", "top5", "n_masked", "unigram_top1", "unigram_top5", "bigram_top1", "bigram_top5"}
    assert keys <= result.keys() and result["n_masked"] == 3 * 6  # held-out lines 9, 19, 29 of 36, six words each
    assert evaluate_main(["--checkpoint", str(tmp_path / "nothing"), "--corpus", str(corpus_file)]) == 2
    assert "no such checkpoint folder" in capsys.readouterr().err


@pytest.mark.slow
def test_two_process_ddp_ends_with_identical_weights(tmp_path: Path) -> None:
    corpus_file = tmp_path / "corpus.txt"
    corpus_file.write_text("\n".join(LINES * 3), encoding="utf-8")
    out = tmp_path / "ddp"
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    command = [
        sys.executable,
        "-m",
        "torch.distributed.run",
        "--nproc_per_node=2",
        f"--master_port={port}",
        "-m",
        "attention_core.training.train",
        "--corpus",
        str(corpus_file),
        "--out",
        str(out),
        "--steps",
        "6",
        "--preset",
        "tiny",
        "--batch-size",
        "4",
        "--threads",
        "1",
    ]
    run = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr[-2000:]
    records = [json.loads(line) for line in (out / "metrics.jsonl").read_text().splitlines()]
    sync = next(r for r in records if r["event"] == "ddp_sync")
    assert sync["world_size"] == 2 and sync["step"] == 6
    assert sync["max_abs_diff"] == 0.0
    assert load_checkpoint(out)[2] == 6


def test_train_cli_names_a_bad_corpus_file(tmp_path: Path, capsys) -> None:
    from attention_core.training.train import main as train_main

    binary = tmp_path / "data.bin"
    binary.write_bytes(b"\x00\x01\x02")
    assert train_main(["--corpus", str(binary), "--out", str(tmp_path / "out"), "--steps", "1"]) == 2
    assert str(binary) in capsys.readouterr().err and not (tmp_path / "out").exists()
    assert train_main(["--corpus", str(tmp_path / "missing.txt"), "--out", str(tmp_path / "out"), "--steps", "1"]) == 2
    assert "no such file" in capsys.readouterr().err


def test_a_word_level_checkpoint_from_before_is_refused_with_what_to_do(
    tmp_path: Path, trained: tuple[Path, list]
) -> None:
    """A checkpoint of the earlier word-level format (no tokenizer.json, no n_pieces) says it must be retrained."""
    out, _ = trained
    old = tmp_path / "old"
    old.mkdir()
    config = json.loads((out / "config.json").read_text())
    del config["n_pieces"]
    (old / "config.json").write_text(json.dumps(config))
    for name in ("vocabulary.json", "model.safetensors"):
        (old / name).write_bytes((out / name).read_bytes())
    with pytest.raises(CheckpointError, match=r"earlier version of the app .*train it again"):
        load_checkpoint(old)
    config["n_pieces"] = json.loads((out / "config.json").read_text())["n_pieces"]
    (old / "config.json").write_text(json.dumps(config))
    with pytest.raises(CheckpointError, match=r"missing tokenizer\.json.*train it again"):
        load_checkpoint(old)


def test_a_mixed_corpus_is_scored_on_each_part(tmp_path: Path) -> None:
    from attention_core.training.corpora import mix_corpora

    english = Corpus("english", tuple(LINES), tuple(LINES[:9]), "test sentences")
    numbers = Corpus(
        "numbers", tuple(f"one two {w} four" for w in ("three", "five") * 12), ("one two three four",) * 3, "counting"
    )
    reports: list = []
    train(mix_corpora([english, numbers]), TINY, quick_settings(steps=60, eval_every=1000), on_step=reports.append)
    final = reports[-1].evaluation
    assert set(final["parts"]) == {"english", "numbers"}
    assert final["parts"]["numbers"]["n_masked"] == 3 * 4 and final["parts"]["english"]["n_masked"] == 9 * 6
    assert final["n_masked"] == 3 * 4 + 9 * 6  # the pooled score counts both parts' masks


def test_a_held_out_word_first_met_after_counting_is_not_taken_for_the_sentence_end() -> None:
    from attention_core.training.baselines import BigramCounts

    counts = BigramCounts([[3, 4, 5], [3, 4, 6]], n_ids=7, n_special=4)
    assert counts.context(counts.end) is None and counts.context(5) == 5  # id 7 = a new word, not the end
    before_end = counts.bigram_scores(4, counts.end)  # "w then the sentence ends": 5 and 6 end sentences
    before_new_word = counts.bigram_scores(4, counts.context(7))  # a word never counted: no right-hand evidence
    assert before_end[5] > before_end[4] and torch.allclose(before_new_word, counts.bigram_scores(4, None))
