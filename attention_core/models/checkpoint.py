"""Checkpoints: a folder with model.safetensors (weights), config.json, vocabulary.json (the words the model can
guess) and tokenizer.json (the word pieces it reads words by, a Hugging Face `tokenizers` file). No pickle.

Every file is written to a temporary name and then renamed over the old one (os.replace is atomic on POSIX), so
a run killed at any moment leaves either the previous file or the new one, never half of one. The config and the
vocabulary never change during a run; only the weights do, and they are one file. The optimizer's state, needed
to resume, is a second safetensors file written before the weights; both carry the step they belong to.
"""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Callable
from dataclasses import asdict, fields
from pathlib import Path

import torch
from safetensors import SafetensorError
from safetensors.torch import load_file, save_file

from attention_core.models.encoder import EncoderConfig, MaskedLanguageModel
from attention_core.models.piece_tokenizer import Pieces
from attention_core.models.vocabulary import Vocabulary
from attention_core.words import N_, Worded

WEIGHTS, CONFIG, VOCABULARY, OPTIMIZER = "model.safetensors", "config.json", "vocabulary.json", "optimizer.safetensors"
TOKENIZER = "tokenizer.json"
OLD_FORMAT = Worded(
    N_(
        "was made by an earlier version of the app (one vector per whole word, no tokenizer.json), which this "
        "version cannot read: train it again (Train page, or python -m attention_core.training.train)"
    )
)


class CheckpointError(ValueError):
    """A checkpoint that cannot be used; the message says which file and why."""


def _atomic_write(path: Path, write: Callable[[str], object]) -> None:
    """Write through a temporary file and a rename. A full disk or a read-only folder becomes a CheckpointError
    that says so; the file that was there before is untouched either way."""
    try:
        _write_then_rename(path, write)
    except OSError as error:
        reason = error.strerror or str(error)
        raise CheckpointError(
            Worded(
                N_("{path}: could not be saved ({reason}); the previous checkpoint is unchanged"),
                path=path,
                reason=reason,
            )
        ) from None


def _write_then_rename(path: Path, write: Callable[[str], object]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    os.close(handle)
    try:
        write(temporary)
        with open(temporary, "rb") as f:
            os.fsync(f.fileno())
        os.chmod(temporary, 0o644)  # mkstemp makes files private; a checkpoint is meant to be shared
        os.replace(temporary, path)
    finally:
        if os.path.exists(temporary):
            os.remove(temporary)


def _write_text(path: Path, text: str) -> None:
    _atomic_write(path, lambda temporary: Path(temporary).write_text(text, encoding="utf-8"))


def save_checkpoint(
    folder: str | Path,
    model: MaskedLanguageModel,
    vocabulary: Vocabulary,
    *,
    step: int,
    optimizer_state: dict[str, torch.Tensor] | None = None,
) -> None:
    folder = Path(folder)
    _write_text(folder / CONFIG, json.dumps(asdict(model.config), indent=2))
    _write_text(folder / VOCABULARY, vocabulary.to_json())
    _write_text(folder / TOKENIZER, vocabulary.pieces.to_json())
    metadata = {"step": str(step)}
    if optimizer_state is not None:
        _atomic_write(folder / OPTIMIZER, lambda t: save_file(optimizer_state, t, metadata=metadata))
    weights = {k: v.detach().clone().contiguous() for k, v in model.state_dict().items()}
    _atomic_write(folder / WEIGHTS, lambda temporary: save_file(weights, temporary, metadata=metadata))


def read_config(folder: Path) -> EncoderConfig:
    try:
        data = json.loads((folder / CONFIG).read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise CheckpointError(Worded(N_("{file}: missing {name}"), file=folder, name=CONFIG)) from None
    except (json.JSONDecodeError, UnicodeDecodeError) as error:
        raise CheckpointError(
            Worded(N_("{file}: not valid JSON ({error})"), file=folder / CONFIG, error=error)
        ) from None
    if not isinstance(data, dict):
        raise CheckpointError(Worded(N_("{file}: expected a JSON object of settings"), file=folder / CONFIG))
    known = {f.name for f in fields(EncoderConfig)}
    unknown = set(data) - known
    if unknown:
        raise CheckpointError(
            Worded(
                N_("{file}: unknown settings {names}; made by a newer version?"),
                file=folder / CONFIG,
                names=sorted(unknown),
            )
        )
    if "n_pieces" not in data:
        raise CheckpointError(Worded("{file}: {problem}", file=folder, problem=OLD_FORMAT))
    problem = config_problem(data)
    if problem:
        raise CheckpointError(Worded("{file}: {problem}", file=folder / CONFIG, problem=problem))
    return EncoderConfig(**data)


# Settings a checkpoint may ask for. A file from anywhere (an upload) must not make the server build a model that
# fills its memory: these bounds are far above every preset and far below a gigabyte of weights.
_BOUNDS = {
    "vocab_size": (5, 100_000),
    "n_pieces": (5, 100_000),
    "d_model": (2, 1024),
    "n_heads": (1, 64),
    "n_layers": (1, 24),
    "d_ff": (1, 8192),
    "max_len": (2, 4096),
    "pad_id": (0, 0),
    "max_distance": (1, 512),
}


def config_problem(data: dict) -> Worded | None:
    """What is wrong with a config's values (types, bounds, heads dividing the width), or None."""
    for name, (low, high) in _BOUNDS.items():
        value = data.get(name, getattr(EncoderConfig, name))
        if type(value) is not int or not low <= value <= high:
            return Worded(
                N_("{name} must be a whole number from {low} to {high}, not {value}"),
                name=name,
                low=low,
                high=high,
                value=repr(value),
            )
    for name in ("dropout", "attention_dropout"):
        value = data.get(name, getattr(EncoderConfig, name))
        if value is not None and (type(value) not in (int, float) or not 0.0 <= value < 1.0):
            return Worded(N_("{name} must be a number from 0 to 1, not {value}"), name=name, value=repr(value))
    scale = data.get("position_bias_lr", EncoderConfig.position_bias_lr)
    if type(scale) not in (int, float) or not 0.0 < scale <= 1000.0:
        return Worded(
            N_("{name} must be a number above 0, at most 1000, not {value}"), name="position_bias_lr", value=repr(scale)
        )
    for name in ("sinusoidal", "position_bias", "local_init"):
        if type(data.get(name, getattr(EncoderConfig, name))) is not bool:
            return Worded(N_("{name} must be true or false"), name=name)
    d_model, n_heads = data.get("d_model", EncoderConfig.d_model), data.get("n_heads", EncoderConfig.n_heads)
    if d_model % n_heads:
        return Worded(
            N_("d_model ({d_model}) must be divisible by n_heads ({n_heads})"), d_model=d_model, n_heads=n_heads
        )
    return None


def read_pieces(folder: Path) -> Pieces:
    try:
        return Pieces.from_json((folder / TOKENIZER).read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise CheckpointError(
            Worded(N_("{file}: missing {name}; {problem}"), file=folder, name=TOKENIZER, problem=OLD_FORMAT)
        ) from None
    except Exception as error:  # the tokenizers library raises its own Exception subclasses for a bad file
        raise CheckpointError(
            Worded(N_("{file}: not a valid word-piece tokenizer ({error})"), file=folder / TOKENIZER, error=error)
        ) from None


def read_vocabulary(folder: Path) -> Vocabulary:
    pieces = read_pieces(folder)
    try:
        return Vocabulary.from_json((folder / VOCABULARY).read_text(encoding="utf-8"), pieces)
    except FileNotFoundError:
        raise CheckpointError(Worded(N_("{file}: missing {name}"), file=folder, name=VOCABULARY)) from None
    except (ValueError, KeyError, TypeError) as error:
        raise CheckpointError(
            Worded(N_("{file}: not a valid vocabulary ({error})"), file=folder / VOCABULARY, error=error)
        ) from None


def read_tensors(path: Path) -> tuple[dict[str, torch.Tensor], int]:
    """The tensors of a safetensors file and the step it was saved at."""
    if not path.is_file():
        raise CheckpointError(Worded(N_("{file}: missing {name}"), file=path.parent, name=path.name))
    try:
        tensors = load_file(path)
        with open(path, "rb") as handle:
            header_size = int.from_bytes(handle.read(8), "little")
            header = json.loads(handle.read(header_size))
    except (SafetensorError, OSError, ValueError) as error:
        raise CheckpointError(
            Worded(N_("{file}: unreadable, truncated or corrupted ({error})"), file=path, error=error)
        ) from None
    return tensors, int(header.get("__metadata__", {}).get("step", 0))


def load_checkpoint(folder: str | Path) -> tuple[MaskedLanguageModel, Vocabulary, int]:
    """(model in eval mode, vocabulary, step) or a CheckpointError naming the problem."""
    folder = Path(folder)
    if not folder.is_dir():
        raise CheckpointError(Worded(N_("{file}: no such checkpoint folder"), file=folder))
    config, vocabulary = read_config(folder), read_vocabulary(folder)
    if len(vocabulary) != config.vocab_size:
        raise CheckpointError(
            Worded(
                N_("{file}: vocabulary has {words} words but the config expects {expected}"),
                file=folder,
                words=len(vocabulary),
                expected=config.vocab_size,
            )
        )
    if len(vocabulary.pieces) != config.n_pieces:
        raise CheckpointError(
            Worded(
                N_("{file}: {name} has {pieces} pieces but the config expects {expected}"),
                file=folder,
                name=TOKENIZER,
                pieces=len(vocabulary.pieces),
                expected=config.n_pieces,
            )
        )
    weights, step = read_tensors(folder / WEIGHTS)
    model = MaskedLanguageModel(config, vocabulary.output_pieces())
    expected = {k: v.shape for k, v in model.state_dict().items()}
    found = {k: v.shape for k, v in weights.items()}
    if expected != found:
        wrong = sorted(k for k in expected.keys() | found.keys() if expected.get(k) != found.get(k))
        raise CheckpointError(
            Worded(
                N_("{file}: weights do not fit the config (first mismatches: {names})"),
                file=folder / WEIGHTS,
                names=wrong[:3],
            )
        )
    model.load_state_dict({k: v.float() for k, v in weights.items()})  # stored in float32 or a smaller float
    return model.eval(), vocabulary, step
