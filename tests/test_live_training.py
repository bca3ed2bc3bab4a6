"""Training in the background as the Train page drives it: start, stop, resume, snapshots, download, limits."""

from __future__ import annotations

import dataclasses
import io
import zipfile

import pytest
import torch

from attention_core.models.checkpoint import CheckpointError, load_checkpoint
from attention_core.story.text import tokenize
from attention_core.training.corpora import CorpusError, own_corpus
from attention_core.training.live import (
    _RUN_SLOTS,
    LIMITS,
    RunLimitError,
    TrainingRun,
    bounded,
    default_probe,
    download_stem,
)
from attention_core.training.train import TrainSettings

LINES = [
    f"the {animal} saw the {thing} near the river"
    for animal in ("cat", "dog", "bird", "fox", "cow")
    for thing in ("tree", "house", "boat", "bridge", "field", "stone")
]


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
    assert mine.fill_mask("the cat saw the [MASK] near the river")[0][0] in {
        "tree",
        "house",
        "boat",
        "bridge",
        "field",
        "stone",
        "the",
    }


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
    run.train_longer(TrainSettings(steps=20, minutes=None))
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
    from attention_core.training.corpora import load_corpus
    from attention_core.training.live import live_eval_lines

    assert live_eval_lines(load_corpus("quran")) == 150  # short āyāt: the cap
    hadith = live_eval_lines(load_corpus("hadith"))  # long records: fewer of them, or each evaluation takes minutes
    assert 10 <= hadith < 60
    assert live_eval_lines(load_corpus("quran*4,hadith")) == hadith  # a mix follows its longest part


def stopped_early(run: TrainingRun, settings: TrainSettings) -> int:
    """Start, stop at the first step report, and return the step it stopped at."""
    run.start(settings)
    while not run.progress().reports:
        run.wait(0.01)
    run.stop()
    run.wait(60)
    assert run.progress().status == "stopped", run.progress().error
    return run.progress().reports[-1].step


def test_a_stop_shows_where_it_stopped_and_resume_goes_on_with_the_same_budget_and_schedule(corpus) -> None:
    run = TrainingRun(corpus, "tiny", default_probe(corpus))
    stopped_at = stopped_early(run, TrainSettings(steps=300, minutes=None))
    stopped = run.progress()
    assert stopped.reports[-1].progress == pytest.approx(stopped_at / 300)  # not a full bar
    assert stopped.can_resume and not stopped.can_train_longer
    run.resume()
    run.wait(60)
    done = run.progress()
    assert done.status == "finished", done.error
    assert done.reports[-1].step == 300  # the same 300-step budget, not 300 more
    elapsed = [r.elapsed_s for r in done.reports]
    assert elapsed == sorted(elapsed)  # the clock goes on; it does not restart at 0
    after = done.reports[len(stopped.reports)]
    assert after.step == stopped_at + 1
    assert after.lr == pytest.approx(TrainSettings.lr * (stopped_at + 1) / TrainSettings.warmup)  # still warming up
    assert not done.can_resume and done.can_train_longer
    with pytest.raises(ValueError, match="no stopped run"):
        run.resume()
    run.train_longer(TrainSettings(steps=10, minutes=None))  # a finished run goes on only when asked, for a new budget
    run.wait(60)
    assert run.progress().reports[-1].step == 310


@pytest.mark.alone  # it asserts a time: the other worker waits (tests/conftest.machine_share)
def test_stop_while_the_text_is_prepared_ends_the_run_within_two_seconds() -> None:
    import time

    big = own_corpus("many lines", [f"line {i} of a long text with many words {i % 97}" for i in range(200_000)])
    run = TrainingRun(big, "tiny", tokenize("a long text"))
    run.start(TrainSettings(steps=10, minutes=None))
    while run.progress().preparing is None:
        run.wait(0.01)
    what, share = run.progress().preparing
    assert what == "learning word pieces" and 0.0 <= share < 1.0
    asked = time.monotonic()
    run.stop()
    assert run.progress().stopping
    run.wait(10)
    assert time.monotonic() - asked < 2.0
    progress = run.progress()
    assert progress.status == "stopped" and not progress.reports and not progress.can_resume
    assert not run.has_checkpoint


def test_an_evaluation_stops_when_asked(corpus) -> None:
    from attention_core.models.encoder import MaskedLanguageModel, preset
    from attention_core.models.vocabulary import build_vocabulary
    from attention_core.training.batches import Lexicon
    from attention_core.training.evaluate import StopRequested, evaluate

    vocabulary = build_vocabulary(corpus.train, 1, 100, 50)
    model = MaskedLanguageModel.for_vocabulary(preset("tiny"), vocabulary)
    with pytest.raises(StopRequested):
        evaluate(model, Lexicon(vocabulary), corpus, should_stop=lambda: True)


def test_download_names_say_what_the_user_chose() -> None:
    assert download_stem("tiny", "pasted text") == "attention-tiny-on-pasted-text"
    assert download_stem("arabic", "quran*4,hadith") == "attention-arabic-on-quran-4-hadith"
    assert download_stem("my old model", "قصائد.txt") == "attention-my-old-model-on-قصائد-txt"


def test_a_downloaded_model_is_trained_further_on_another_text(corpus) -> None:
    first = TrainingRun(corpus, "tiny", default_probe(corpus))
    first.start(TrainSettings(steps=10, minutes=None))
    first.wait(60)
    other = own_corpus("boats", [line.replace("saw", "rowed") for line in LINES])
    run = TrainingRun.from_archive(first.checkpoint_zip(), "my model.zip", other, tokenize("the cat rowed"))
    assert run.model_label == "my model" and run.has_checkpoint
    run.start(TrainSettings(steps=15, minutes=None))
    run.wait(60)
    progress = run.progress()
    assert progress.status == "finished", progress.error
    assert progress.reports[0].step == 11 and progress.reports[-1].step == 25  # it goes on from the model's step
    assert progress.reports[0].lr == pytest.approx(TrainSettings.lr, rel=1e-3)  # a new budget: no warm-up
    assert run.download_stem == "attention-my-model-on-boats"


@pytest.mark.parametrize("data", [b"not a zip", b""])
def test_a_bad_model_file_is_refused_and_nothing_is_kept(corpus, data: bytes) -> None:
    with pytest.raises(CheckpointError, match="not a zip"):
        TrainingRun.from_archive(data, "x.zip", corpus, default_probe(corpus))


def test_only_built_in_corpora_are_prepared_once_for_the_whole_server(corpus) -> None:
    from attention_core.training.corpora import load_corpus
    from attention_core.training.live import _SHARED

    quran = load_corpus("quran")
    assert _SHARED.shareable(quran) and _SHARED.shareable(load_corpus("quran*4,hadith"))
    assert not _SHARED.shareable(corpus) and not _SHARED.shareable(own_corpus("quran", list(quran.train)))
    first = TrainingRun(quran, "tiny", default_probe(quran))
    first.start(TrainSettings(steps=1, minutes=None))
    first.wait(120)
    second = TrainingRun(quran, "tiny", default_probe(quran))  # another user's run reads the shared preparation
    second.start(TrainSettings(steps=1, minutes=None))
    second.wait(120)
    assert second._prepared is None and _SHARED.get(quran, 256) is first._prepared
    assert second.progress().status == "finished", second.progress().error
    mine = TrainingRun(corpus, "tiny", default_probe(corpus))
    mine.start(TrainSettings(steps=1, minutes=None))
    mine.wait(60)
    assert _SHARED.get(corpus, 256) is None  # a user's own text stays in that user's run


def first_adam_step(preset_name: str, corpus) -> tuple[torch.Tensor, torch.Tensor, float]:
    """(position bias before, after one training step, that step's learning rate) of a preset's first layer."""
    from attention_core.models.encoder import MaskedLanguageModel, preset
    from attention_core.training.train import train

    before: list[torch.Tensor] = []

    def observe(step: int, model: MaskedLanguageModel, vocabulary) -> None:
        if step == 0:
            before.append(model.blocks[0].position_bias.bias.detach().clone())

    settings = TrainSettings(steps=1, minutes=None, eval_lines=5)
    result = train(corpus, preset(preset_name), settings, observe=observe)
    assert result.model is not None
    return before[0], result.model.blocks[0].position_bias.bias.detach(), result.history[0].lr


@pytest.mark.parametrize(("preset_name", "scale"), [("live", 50.0), ("arabic", 1.0)])
def test_the_live_demo_position_bias_learns_50_times_faster_and_the_shipped_recipe_as_before(
    corpus, preset_name: str, scale: float
) -> None:
    """AdamW's first step moves every weight with a gradient by its learning rate exactly (m / √v = ±1), so the
    largest move of the position bias is that step's rate times the bias's multiple."""
    before, after, lr = first_adam_step(preset_name, corpus)
    assert lr == pytest.approx(TrainSettings.lr / TrainSettings.warmup)
    assert float((after - before).abs().max()) == pytest.approx(lr * scale, rel=0.02)  # float32 near 3: ±1 ulp


def test_the_live_demo_starts_with_nothing_built_in_and_the_shipped_recipe_on_the_neighbours() -> None:
    from attention_core.models.encoder import MaskedLanguageModel, preset
    from attention_core.models.position_bias import local_prior
    from attention_core.models.vocabulary import build_vocabulary

    vocabulary = build_vocabulary(LINES, 1, 100, 50)
    live = MaskedLanguageModel.for_vocabulary(preset("live"), vocabulary)
    shipped = MaskedLanguageModel.for_vocabulary(preset("arabic"), vocabulary)
    for block in live.blocks:
        assert torch.equal(block.position_bias.bias, torch.zeros(4, 17))  # no head prefers any distance
    torch.testing.assert_close(shipped.blocks[0].position_bias.bias.detach(), local_prior(4, 8))
    assert (preset("live").n_layers, preset("live").n_heads, preset("live").d_model) == (3, 4, 128)  # shipped size


def test_a_live_demo_checkpoint_keeps_its_recipe_and_a_bad_one_is_refused(corpus, tmp_path) -> None:
    from attention_core.models.checkpoint import config_problem

    run = TrainingRun(corpus, "live", default_probe(corpus))
    run.start(TrainSettings(steps=2, minutes=None))
    run.wait(60)
    with zipfile.ZipFile(io.BytesIO(run.checkpoint_zip())) as archive:
        archive.extractall(tmp_path)
    model, _, _ = load_checkpoint(tmp_path / "my-attention-model")
    assert model.config.position_bias_lr == 50.0 and not model.config.local_init
    saved = dataclasses.asdict(model.config)
    assert config_problem(saved) is None and config_problem(saved | {"position_bias_lr": 1}) is None
    for bad in ("fast", 0, -1.0, float("nan"), 1e9, True, None):
        assert "position_bias_lr" in str(config_problem(saved | {"position_bias_lr": bad})), bad


@pytest.mark.slow
def test_the_default_live_run_on_the_quran_turns_broad_heads_into_neighbour_heads() -> None:
    """The Train page's default run, shortened to 150 steps (about 20 s here): every head is broad at step 0, and
    at step 150 several have changed role and read the previous or the next word. Seeded, one torch thread: the
    same weights at every step on every run (the snapshots' steps depend on the clock; the last is step 150)."""
    from attention_core.models.head_roles import head_roles
    from attention_core.training.corpora import load_corpus
    from attention_core.training.emergence import role_changes
    from attention_core.training.live import DEMO_PRESET

    quran = load_corpus("quran")
    run = TrainingRun(quran, DEMO_PRESET, default_probe(quran))
    run.start(TrainSettings(steps=150, minutes=None))
    run.wait(300)
    progress = run.progress()
    assert progress.status == "finished", progress.error
    special = [label == "[CLS]" for label in progress.probe_labels]
    roles = [head_roles(snapshot.weights, special) for snapshot in progress.snapshots]
    assert {role for layer in roles[0].roles for role in layer} == {"broad"}  # nothing built in at step 0
    assert progress.snapshots[-1].step == 150
    end = [role for layer in roles[-1].roles for role in layer]
    neighbours = sum(role in ("previous word", "next word") for role in end)
    assert neighbours >= 2, end  # 4 here (1 previous word, 3 next word); 6 after the page's 2 minutes
    changes = role_changes([s.step for s in progress.snapshots], roles)
    assert len(changes) >= 4 and all(0 < change.step <= 150 for change in changes)  # 9 here
