"""The layering the README promises: attention_core never imports streamlit."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path


def test_importing_attention_core_does_not_import_streamlit() -> None:
    code = "import sys, attention_core; print('streamlit' in sys.modules)"
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=Path(__file__).parents[1]
    )
    assert result.stdout.strip() == "False"
