"""bench/script_runs.py reads the app server's messages as Streamlit's own protocol writes them: a run that drew all it
had (a script's, a fragment's) counts, one stopped early for a rerun and every other message do not."""

from __future__ import annotations

import pytest
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

from bench.script_runs import finished_run


def _finished(status: int) -> bytes:
    message = ForwardMsg()
    message.script_finished = status
    message.metadata.delta_path[:] = [0]
    return message.SerializeToString()


@pytest.mark.parametrize(
    ("status", "counted"),
    [
        (ForwardMsg.FINISHED_SUCCESSFULLY, True),
        (ForwardMsg.FINISHED_FRAGMENT_RUN_SUCCESSFULLY, True),
        (ForwardMsg.FINISHED_EARLY_FOR_RERUN, False),
        (ForwardMsg.FINISHED_WITH_COMPILE_ERROR, False),
    ],
)
def test_a_run_counts_only_when_it_drew_all_it_had(status: int, counted: bool) -> None:
    assert finished_run(_finished(status)) is counted


def test_other_messages_and_other_frames_are_not_runs() -> None:
    status = ForwardMsg()
    status.session_status_changed.script_is_running = False
    delta = ForwardMsg()
    delta.delta.new_element.markdown.body = "x" * 2_000  # a drawn element: larger than any run's end
    assert not finished_run(status.SerializeToString())
    assert not finished_run(delta.SerializeToString())
    assert not finished_run('{"not": "protobuf"}')  # a text frame
    assert not finished_run(b"\xff\xfe\x00")  # bytes that are no ForwardMsg
