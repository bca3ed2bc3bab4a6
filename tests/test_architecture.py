"""The layering the README promises: attention_core never imports streamlit; the Cloud installs what CI tests."""

from __future__ import annotations

import re
import subprocess
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).parents[1]


def test_importing_every_attention_core_module_does_not_import_streamlit() -> None:
    code = (
        "import importlib, pkgutil, sys, attention_core\n"
        "for m in pkgutil.walk_packages(attention_core.__path__, 'attention_core.'):\n"
        "    importlib.import_module(m.name)\n"
        "print('streamlit' in sys.modules)"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT)
    assert result.stdout.strip() == "False"


def _requirements(*files: str) -> dict[str, str]:
    pins = {}
    for line in (line for file in files for line in (ROOT / file).read_text().splitlines()):
        line = line.split("#")[0].strip()
        if line:
            name, spec = re.match(r"([A-Za-z0-9_.-]+)(.*)", line).groups()
            pins[name.lower()] = spec.strip()
    return pins


def test_the_cloud_pipfile_lists_what_requirements_txt_lists() -> None:
    """Community Cloud installs from the Pipfile (torch from PyTorch's CPU index): the same packages and pins as
    requirements.txt plus the English model's package (which the README installs with --no-deps)."""
    pipfile = tomllib.loads((ROOT / "Pipfile").read_text())
    packages = {
        name.lower(): spec if isinstance(spec, str) else spec["version"] for name, spec in pipfile["packages"].items()
    }
    assert packages == _requirements("requirements.txt", "requirements-english.txt")
    assert pipfile["packages"]["torch"] == {"version": "==2.13.0", "index": "pytorch-cpu"}
    assert {"name": "pytorch-cpu", "url": "https://download.pytorch.org/whl/cpu", "verify_ssl": True} in pipfile[
        "source"
    ]
