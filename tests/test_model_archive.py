"""Loading a model zip a user uploads: every broken or hostile file gets a clear CheckpointError, nothing leaks."""

from __future__ import annotations

import io
import json
import tempfile
import zipfile
from pathlib import Path

import pytest
import torch

from attention_core.models.archive import load_model_archive
from attention_core.models.checkpoint import CheckpointError
from attention_core.models.trained import SHIPPED, load_model

FILES = {
    name: (SHIPPED / name).read_bytes()
    for name in ("model.safetensors", "config.json", "vocabulary.json", "tokenizer.json")
}
VOCABULARY_SIZE = json.loads(FILES["config.json"])["vocab_size"]


def zipped(files: dict[str, bytes]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, content in files.items():
            archive.writestr(name, content)
    return buffer.getvalue()


def with_config(**changes: object) -> dict[str, bytes]:
    config = json.loads(FILES["config.json"]) | changes
    return {**FILES, "config.json": json.dumps(config).encode()}


def test_a_downloaded_model_loads_back_with_the_same_weights() -> None:
    loaded = load_model_archive(zipped({f"my-attention-model/{k}": v for k, v in FILES.items()}), "mine.zip")
    shipped = load_model()
    for (name, a), b in zip(loaded.model.state_dict().items(), shipped.model.state_dict().values(), strict=True):
        assert torch.equal(a, b), name
    assert loaded.fill_mask("بسم الله الرحمن [MASK]") == shipped.fill_mask("بسم الله الرحمن [MASK]")
    assert loaded.name == "mine"


BROKEN = {
    "not a zip at all": (b"PK\x03\x04 this is not really a zip", "not a zip file"),
    "a truncated zip": (zipped(FILES)[:5000], "not a zip file"),
    "no vocabulary": (zipped({k: v for k, v in FILES.items() if k != "vocabulary.json"}), "missing vocabulary.json"),
    "corrupted weights": (zipped({**FILES, "model.safetensors": FILES["model.safetensors"][:4000]}), "corrupted"),
    "weights of the wrong shapes": (zipped(with_config(d_model=64, d_ff=256)), "do not fit the config"),
    "a config asking for a giant model": (zipped(with_config(d_model=1_000_000)), "d_model must be"),
    "a config with text for a number": (zipped(with_config(n_layers="2")), "n_layers must be"),
    "a config that is not an object": (zipped({**FILES, "config.json": b"[1, 2]"}), "JSON object"),
    "a vocabulary of another size": (zipped(with_config(vocab_size=100)), f"vocabulary has {VOCABULARY_SIZE} words"),
    "a word-level model from before": (
        zipped({k: v for k, v in FILES.items() if k != "tokenizer.json"}),
        "earlier version of the app",
    ),
    "a broken tokenizer": (zipped({**FILES, "tokenizer.json": b"{not json"}), "not a valid word-piece tokenizer"),
    "a pickle instead of safetensors": (zipped({**FILES, "model.pt": b"\x80\x04K\x01."}), "unexpected file 'model.pt'"),
    "a script": (zipped({**FILES, "run_me.py": b"import os"}), "unexpected file 'run_me.py'"),
    "two weight files": (zipped({**FILES, "copy/model.safetensors": FILES["model.safetensors"]}), "two files"),
}


@pytest.mark.parametrize("case", list(BROKEN))
def test_a_broken_or_hostile_archive_is_refused_with_a_reason(case: str) -> None:
    data, message = BROKEN[case]
    with pytest.raises(CheckpointError, match=message):
        load_model_archive(data, "upload.zip")


def test_a_zip_bomb_is_refused_before_it_is_unpacked() -> None:
    bomb = zipped({**FILES, "vocabulary.json": b"0" * 250_000_000})  # 250 MB of zeros deflate to about 250 kB
    assert len(bomb) < len(zipped(FILES)) + 1_000_000
    with pytest.raises(CheckpointError, match="unpacks to more than"):
        load_model_archive(bomb, "bomb.zip")


def test_member_paths_never_write_outside_a_private_temporary_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = tmp_path / "escaped"
    hostile = {f"../../../../{target}/{name}": content for name, content in FILES.items()}
    private = tmp_path / "temporary"  # the archive's temporary folder goes here, away from other processes' files
    private.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(private))
    loaded = load_model_archive(zipped(hostile), "slip.zip")  # read under the bare names: a valid model
    assert loaded.step > 0
    assert not target.exists()
    assert list(private.iterdir()) == []  # and the temporary folder is gone again
