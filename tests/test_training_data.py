"""Corpora, vocabulary and masking: the data side of training."""

from __future__ import annotations

from pathlib import Path

import pytest
import torch

from attention_core.models.vocabulary import SPECIALS, Vocabulary, build_vocabulary
from attention_core.training.batches import Lexicon, encode_lines, length_bucketed_batches
from attention_core.training.corpora import CorpusError, load_corpus, split
from attention_core.training.masked_lm import mask_words


def test_quran_split_holds_out_every_tenth_ayah() -> None:
    corpus = load_corpus("quran")
    assert len(corpus.train) + len(corpus.held_out) == 6236
    assert len(corpus.held_out) == 623
    assert corpus.held_out[0] == load_corpus("quran").held_out[0]  # deterministic
    assert "CC-BY-4.0" in corpus.credit
    assert all(line.strip() for line in corpus.train)  # the six ayat without modern spelling fall back


def test_split_rule() -> None:
    train, held_out = split([str(i) for i in range(25)])
    assert held_out == ("9", "19") and "9" not in train and len(train) == 23


@pytest.mark.parametrize(
    ("content", "message"),
    [(b"", "empty"), (b"  \n\n ", "empty"), (b"\xff\xfe\x00a", "binary"), (b"caf\xe9 au lait", "not UTF-8")],
)
def test_bad_corpus_files_name_the_file(tmp_path: Path, content: bytes, message: str) -> None:
    path = tmp_path / "corpus.txt"
    path.write_bytes(content)
    with pytest.raises(CorpusError, match=message) as error:
        load_corpus(str(path))
    assert str(path) in str(error.value)


def test_missing_corpus_file() -> None:
    with pytest.raises(CorpusError, match="no such file"):
        load_corpus("/nowhere/corpus.txt")


def test_text_file_corpus(tmp_path: Path) -> None:
    path = tmp_path / "mine.txt"
    path.write_text("\n".join(f"line {i}" for i in range(20)), encoding="utf-8")
    corpus = load_corpus(str(path))
    assert corpus.held_out == ("line 9", "line 19")


def test_vocabulary_min_count_max_size_and_round_trip() -> None:
    lines = ["a a a b b c", "a b d"]
    vocabulary = build_vocabulary(lines, min_count=2, max_size=10)
    assert vocabulary.words == (*SPECIALS, "a", "b")
    assert build_vocabulary(lines, min_count=1, max_size=6).words == (*SPECIALS, "a", "b")
    assert vocabulary.encode(["b", "zzz"]) == [5, vocabulary.unk_id]
    assert Vocabulary.from_json(vocabulary.to_json(), vocabulary.pieces) == vocabulary
    normalised = build_vocabulary(["أَكَلَ اكل"], min_count=1)
    assert normalised.words[len(SPECIALS) :] == ("اكل",)


def test_masking_invariants() -> None:
    generator = torch.Generator().manual_seed(0)
    ids = torch.randint(4, 1000, (400, 50))
    ids[:, 0] = 3  # [CLS]
    ids[:, 40:] = 0  # [PAD]
    ids[::7, 5] = 1  # [UNK]
    batch = mask_words(ids, rate=0.15, mask_id=2, n_special=4, vocab_size=1000, generator=generator)
    eligible = ids >= 4
    assert not (batch.chosen & ~eligible).any()  # specials are never chosen
    rate = batch.chosen.sum() / eligible.sum()
    assert abs(rate - 0.15) < 0.01
    chosen_inputs = batch.inputs[batch.chosen]
    masked = (chosen_inputs == 2).float().mean()
    kept = (chosen_inputs == ids[batch.chosen]).float().mean()
    assert abs(masked - 0.8) < 0.02 and 0.08 < kept < 0.12  # 10 % kept (plus rare random hits of itself)
    assert torch.equal(batch.inputs[~batch.chosen], ids[~batch.chosen])
    assert torch.equal(batch.targets, ids[batch.chosen])
    again = mask_words(
        ids, rate=0.15, mask_id=2, n_special=4, vocab_size=1000, generator=torch.Generator().manual_seed(0)
    )
    assert torch.equal(again.inputs, batch.inputs)  # seeded


def test_batches_cover_every_sequence_once_per_epoch() -> None:
    vocabulary = build_vocabulary(["a b c d e f g"], min_count=1)
    lexicon = Lexicon(vocabulary)
    sequences = encode_lines([" ".join("abcdefg"[: 1 + i % 7]) for i in range(100)], lexicon, max_len=16)
    seen = [
        row[row != 0].tolist()
        for batch in length_bucketed_batches(sequences, 8, torch.Generator().manual_seed(1))
        for row in batch
    ]
    assert sorted(map(tuple, seen)) == sorted(map(tuple, sequences))
    halves = [
        list(length_bucketed_batches(sequences, 8, torch.Generator().manual_seed(1), rank=r, world_size=2))
        for r in (0, 1)
    ]
    assert len(halves[0]) == len(halves[1])


def test_guessed_words_are_shown_in_their_most_frequent_written_form() -> None:
    """The model looks words up without hamza on the alef, but shows a guess as people wrote it most often."""
    vocabulary = build_vocabulary(["أهله في المدينة", "أهله", "اهله", "إلى المدينة", "الى"], min_count=1)
    assert vocabulary.shown(vocabulary.index["اهله"]) == "أهله"
    assert vocabulary.shown(vocabulary.index["الى"]) == "إلى"
    assert vocabulary.shown(vocabulary.index["المدينة"]) == "المدينة"  # tāʾ marbūṭa kept


def test_a_word_never_seen_is_read_through_its_pieces_and_only_new_characters_are_unknown() -> None:
    lines = ["المدينة الكبيرة", "الكتاب على الطاولة", "درس الطالب", "المكتبة مفتوحة"] * 3
    vocabulary = build_vocabulary(lines, min_count=1, n_pieces=200)
    assert "المدرسة" not in vocabulary.index  # never in training: it cannot be guessed …
    assert vocabulary.is_known("المدرسة")  # … but every one of its pieces was learned
    assert len(vocabulary.pieces.ids("المدرسة")) > 1
    assert not vocabulary.is_known("zorp")  # letters never seen: [UNK]


def test_a_mix_keeps_each_parts_held_out_lines_and_reads_weighted_parts_more_often(tmp_path: Path) -> None:
    from attention_core.training.batches import Lexicon
    from attention_core.training.train import training_sequences

    first, second = tmp_path / "first.txt", tmp_path / "second.txt"
    first.write_text("\n".join(f"alpha {i}" for i in range(20)), encoding="utf-8")
    second.write_text("\n".join(f"beta {i}" for i in range(30)), encoding="utf-8")
    mix = load_corpus(f"{first}*3,{second}")
    assert [p.weight for p in mix.parts] == [3, 1]
    assert mix.parts[0].held_out == ("alpha 9", "alpha 19")  # each part split by its own line numbers
    assert mix.parts[1].held_out == ("beta 9", "beta 19", "beta 29")
    assert set(mix.held_out) == {*mix.parts[0].held_out, *mix.parts[1].held_out}
    assert not set(mix.train) & set(mix.held_out)
    lexicon = Lexicon(build_vocabulary(mix.train, min_count=1))
    sequences = training_sequences(mix, lexicon, max_len=8)
    assert len(sequences) == 3 * 18 + 27  # the first part's training lines three times per epoch
    with pytest.raises(CorpusError, match="weight"):
        load_corpus(f"{first}*0,{second}")


def test_the_built_in_mix_holds_out_every_tenth_line_of_each_text() -> None:
    mix = load_corpus("quran,hadith")
    quran, hadith = mix.parts
    assert (quran.name, hadith.name) == ("quran", "hadith")
    assert len(quran.held_out) == 623 and len(hadith.held_out) == len(hadith.train + hadith.held_out) // 10
