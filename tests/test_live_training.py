"""Training in the background as the Train page drives it: start, stop, resume, snapshots, download, limits."""

from __future__ import annotations

import io
import zipfile

import pytest
import torch

from attention_core.checkpoint import CheckpointError, load_checkpoint
from attention_core.corpora import CorpusError, own_corpus
from attention_core.live_training import _RUN_SLOTS, LIMITS, RunLimitError, TrainingRun, bounded, default_probe
from attention_core.text import tokenize
from attention_core.train import TrainSettings

LINES = [f"the {animal} saw the {thing} near the river" for animal in ("cat", "dog", "bird", "fox", "cow")
         for thing in ("tree", "house", "boat", "bridge", "field", "stone")]  # fmt: skip


@pytest.fixture
def corpus():
    return own_corpus("animals", LINES)


def test_a_run_publishes_losses_snapshots_and_a_usable_model(corpus) -> None:
    run = TrainingRun(corpus, "tiny", tokenize("the cat saw the boat"))
    run.start(TrainSettings(steps=40, minutes=None))
    run.wait(60)
    progress = run.progress()
    assert progress.status == "finished", progress.error
    assert [r.step for r in progress.reports][-1] == 40
    assert progress.evaluations and 0.0 <= progress.evaluations[-1][1]["top1"] <= 1.0
    # Snapshots: the untrained model first, the final weights last, each a (layers, heads, n, n) softmax.
    assert progress.snapshots[0].step == 0 and progress.snapshots[-1].step == 40
    assert progress.probe_labels == ("[CLS]", "the", "cat", "saw", "the", "boat")
    for snapshot in progress.snapshots:
        assert snapshot.weights.shape == (1, 2, 6, 6)
        torch.testing.assert_close(snapshot.weights.sum(-1), torch.ones(1, 2, 6))
    assert not torch.equal(progress.snapshots[0].weights, progress.snapshots[-1].weights)  # attention moved
    mine = run.model()
    assert mine is not None and mine.step == 40
    assert mine.fill_mask("the cat saw the [MASK] near the river")[0][0] in {"tree", "house", "boat", "bridge",
                                                                            "field", "stone", "the"}  # fmt: skip


def test_stop_then_resume_goes_on_from_the_saved_step(corpus) -> None:
    run = TrainingRun(corpus, "tiny", default_probe(corpus))
    run.start(TrainSettings(steps=5_000, minutes=None))
    while not run.progress().reports:
        run.wait(0.05)
    run.stop()
    run.wait(60)
    stopped = run.progress()
    assert stopped.status == "stopped"
    stopped_at = stopped.reports[-1].step
    assert 0 < stopped_at < 5_000
    _, _, saved_step = load_checkpoint(run.folder)
    assert saved_step == stopped_at  # the stop saved the weights it stopped with
    run.start(TrainSettings(steps=20, minutes=None))
    run.wait(60)
    resumed = run.progress()
    assert resumed.status == "finished", resumed.error
    assert resumed.reports[-1].step == stopped_at + 20
    assert [s.step for s in resumed.snapshots] == sorted({s.step for s in resumed.snapshots})  # one per step


def test_the_download_is_a_zip_of_a_loadable_checkpoint(corpus, tmp_path) -> None:
    run = TrainingRun(corpus, "tiny", default_probe(corpus))
    with pytest.raises(CheckpointError, match="nothing trained"):
        run.checkpoint_zip()
    run.start(TrainSettings(steps=10, minutes=None))
    run.wait(60)
    with zipfile.ZipFile(io.BytesIO(run.checkpoint_zip())) as archive:
        names = archive.namelist()
        archive.extractall(tmp_path)
    assert "my-attention-model/model.safetensors" in names
    assert not any(name.endswith((".pt", ".pkl", ".bin")) for name in names)  # no pickle inside
    _, vocabulary, step = load_checkpoint(tmp_path / "my-attention-model")
    assert step == 10 and "river" in vocabulary.index


def test_too_small_a_text_is_refused_with_a_reason() -> None:
    with pytest.raises(CorpusError, match="at least 20"):
        TrainingRun(own_corpus("three lines", ["a b", "c d", "e f"]), "tiny", tokenize("a b"))


def test_budgets_are_cut_to_the_limits_with_a_notice() -> None:
    settings, notices = bounded(TrainSettings(minutes=600.0, steps=10**9))
    assert settings.minutes == LIMITS.max_minutes and settings.steps == LIMITS.max_steps
    assert len(notices) == 2
    assert bounded(TrainSettings(minutes=1.0, steps=100)) == (TrainSettings(minutes=1.0, steps=100), [])


def test_the_server_wide_limit_refuses_another_run(corpus) -> None:
    taken = [_RUN_SLOTS.acquire(blocking=False) for _ in range(LIMITS.max_runs_at_once)]
    try:
        assert all(taken)
        run = TrainingRun(corpus, "tiny", default_probe(corpus))
        with pytest.raises(RunLimitError, match="already going"):
            run.start(TrainSettings(steps=10, minutes=None))
        assert run.progress().status == "ready"
    finally:
        for _ in taken:
            _RUN_SLOTS.release()


def test_live_evaluations_score_about_the_same_number_of_words_whatever_the_corpus() -> None:
    from attention_core.corpora import load_corpus
    from attention_core.live_training import live_eval_lines

    assert live_eval_lines(load_corpus("quran")) == 150  # short āyāt: the cap
    hadith = live_eval_lines(load_corpus("hadith"))  # long records: fewer of them, or each evaluation takes minutes
    assert 10 <= hadith < 60
    assert live_eval_lines(load_corpus("quran*4,hadith")) == hadith  # a mix follows its longest part
