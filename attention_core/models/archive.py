"""A downloaded model (the zip the Train page gives) read back from bytes a user uploads.

The archive is untrusted input. Only the checkpoint's own file names are read, each written under that bare name
into a private temporary folder (a member called ../../x or /etc/x can never escape it), sizes are checked before
anything is unpacked (a small zip can expand to gigabytes), and weights load through safetensors and JSON only,
never pickle. The temporary folder is gone when this returns: the model lives in memory.
"""

from __future__ import annotations

import io
import tempfile
import zipfile
from pathlib import Path, PurePosixPath

from attention_core.models.checkpoint import (
    CONFIG,
    OLD_FORMAT,
    OPTIMIZER,
    TOKENIZER,
    VOCABULARY,
    WEIGHTS,
    CheckpointError,
    load_checkpoint,
)
from attention_core.models.encoder import MaskedLanguageModel
from attention_core.models.trained import TrainedModel
from attention_core.models.vocabulary import Vocabulary
from attention_core.words import N_, Worded

MAX_ARCHIVE_BYTES = 60_000_000  # a base-preset model with its optimizer state zips to about 50 MB
MAX_UNPACKED_BYTES = 200_000_000
NEEDED = (WEIGHTS, CONFIG, VOCABULARY, TOKENIZER)
READ = {WEIGHTS, CONFIG, VOCABULARY, TOKENIZER}  # the optimizer state (and the log) are not needed to look at a model
IGNORED = {OPTIMIZER, "metrics.jsonl"}


def load_model_archive(data: bytes, name: str) -> TrainedModel:
    """The model inside a checkpoint zip, or a CheckpointError that says what is wrong with the file."""
    with tempfile.TemporaryDirectory(prefix="attention-upload-") as folder:
        model, vocabulary, step = unpack_model_archive(data, name, Path(folder))
    return TrainedModel(model, vocabulary, name=PurePosixPath(name).stem, step=step)


def unpack_model_archive(data: bytes, name: str, folder: Path) -> tuple[MaskedLanguageModel, Vocabulary, int]:
    """Write a checkpoint zip's four files into `folder` (private, empty) and load them as a model; on any
    CheckpointError the folder is left empty. The optimizer state is not read: a run that trains the
    model further starts its AdamW moments afresh."""
    by_name = _checked_members(data, name)
    archive = zipfile.ZipFile(io.BytesIO(data))
    try:
        for base, info in by_name.items():
            try:
                content = archive.read(info)
            except (zipfile.BadZipFile, OSError, EOFError, RuntimeError) as error:  # corrupt, encrypted, …
                raise CheckpointError(
                    Worded(
                        N_("{name}: {member} cannot be read ({error})"), name=name, member=info.filename, error=error
                    )
                ) from None
            (folder / base).write_bytes(content)
        return load_checkpoint(folder)  # raises, naming the file, when the four do not make a model
    except CheckpointError:
        for base in by_name:
            (folder / base).unlink(missing_ok=True)
        raise


def _checked_members(data: bytes, name: str) -> dict[str, zipfile.ZipInfo]:
    """The archive's four checkpoint members by bare name, or a CheckpointError before anything is unpacked."""
    if len(data) > MAX_ARCHIVE_BYTES:
        raise CheckpointError(
            Worded(
                N_("{name}: {size:,} bytes is more than the limit of {limit:,}"),
                name=name,
                size=len(data),
                limit=MAX_ARCHIVE_BYTES,
            )
        )
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
        members = [info for info in archive.infolist() if not info.is_dir()]
    except (zipfile.BadZipFile, ValueError) as error:
        raise CheckpointError(Worded(N_("{name}: not a zip file ({error})"), name=name, error=error)) from None
    by_name: dict[str, zipfile.ZipInfo] = {}
    for info in members:
        base = PurePosixPath(info.filename.replace("\\", "/")).name
        if base in READ:
            if base in by_name:
                raise CheckpointError(
                    Worded(N_("{name}: holds two files named {member}; expected one model"), name=name, member=base)
                )
            by_name[base] = info
        elif base not in IGNORED:
            raise CheckpointError(
                Worded(
                    N_("{name}: unexpected file {member}; a model zip holds {needed}"),
                    name=name,
                    member=repr(info.filename),
                    needed=", ".join(NEEDED),
                )
            )
    missing = [needed for needed in NEEDED if needed not in by_name]
    if missing == [TOKENIZER]:
        raise CheckpointError(Worded("{file}: {problem}", file=name, problem=OLD_FORMAT))
    if missing:
        raise CheckpointError(
            Worded(
                N_("{name}: missing {files}; is this a model downloaded from the Train page?"),
                name=name,
                files=", ".join(missing),
            )
        )
    if sum(info.file_size for info in by_name.values()) > MAX_UNPACKED_BYTES:
        raise CheckpointError(
            Worded(N_("{name}: unpacks to more than {limit:,} bytes"), name=name, limit=MAX_UNPACKED_BYTES)
        )
    return by_name
