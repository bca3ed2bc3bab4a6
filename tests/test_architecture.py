"""The layering the README promises: attention_core never imports streamlit; the Cloud installs what CI tests."""

from __future__ import annotations

import re
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

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


def test_the_package_declares_what_requirements_txt_pins_for_it() -> None:
    """pyproject.toml's dependencies are the packages' share (attention_core and classroom) of requirements.txt,
    with the same pins (the app adds Streamlit, and Babel for the interface's translations)."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    declared = dict(re.match(r"([A-Za-z0-9_.-]+)(.*)", line).groups() for line in project["dependencies"])
    app = _requirements("requirements.txt")
    assert {name.lower(): spec for name, spec in declared.items()} == {
        k: v for k, v in app.items() if k not in ("streamlit", "babel")
    }


@pytest.mark.slow
def test_the_package_installs_and_its_training_cli_runs_outside_the_repository(tmp_path: Path) -> None:
    """`pip install .` gives attention_core, shipped model included, and `python -m attention_core.training.train`
    from any folder (pip builds the wheel and installs it in one step, without fetching anything: the venv's own
    setuptools)."""
    target = tmp_path / "site"
    pip_install = [sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--no-build-isolation"]
    installed = subprocess.run(
        [*pip_install, "--target", str(target), str(ROOT)],
        capture_output=True,
        text=True,
        cwd=tmp_path,
    )
    assert installed.returncode == 0, installed.stderr
    assert list(target.glob("attention_explainer-*.dist-info")), "not installed as a package"
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    run = lambda *code: subprocess.run(  # noqa: E731
        [sys.executable, *code], capture_output=True, text=True, cwd=outside, env={"PYTHONPATH": str(target)}
    )
    cli = run("-m", "attention_core.training.train", "--help")
    assert cli.returncode == 0 and "--corpus" in cli.stdout, cli.stderr
    shipped = run("-c", "import attention_core as a; print(a.__file__); print(a.load_model().n_layers)")
    assert shipped.returncode == 0 and str(target) in shipped.stdout and shipped.stdout.split()[-1] == "3", (
        shipped.stderr
    )


CPU_TORCH = "--no-deps --index-url https://download.pytorch.org/whl/cpu torch"


def _readme_commands() -> list[str]:
    readme = (ROOT / "README.md").read_text()
    setup = readme[readme.index("## Set-up") : readme.index("## The pages")]
    return re.findall(r"```bash\n(.+?)\n```", setup)


def test_the_readme_installs_the_cpu_torch_first_with_the_pin_requirements_txt_holds() -> None:
    """On a real Linux machine PyPI's torch is the CUDA build (about 2.7 GB): both set-up commands take torch alone
    from PyTorch's CPU index before any requirements file, pinned as requirements.txt pins it, so the requirements
    then find it in place. CI runs the test command exactly as the README writes it."""
    commands = _readme_commands()
    assert len(commands) == 2
    pin = _requirements("requirements.txt")["torch"]
    for command in commands:
        steps = command.split(" && ")
        assert steps[0] == "python3 -m venv .venv"
        torch_step = next(i for i, step in enumerate(steps) if CPU_TORCH in step)
        assert steps[torch_step].endswith(f"torch{pin}")
        assert torch_step < min(i for i, step in enumerate(steps) if " -r requirements" in step)
    assert commands[1] in (ROOT / ".ci" / "run").read_text()


# The floors of attention_core, bottom to top: story (the maths a learner reads, no model) → models → readings
# (what the pages ask of a model) and training → figures. A floor imports only from floors below it.
FLOORS = {"story": 0, "models": 1, "readings": 2, "training": 2, "figures": 3}


def _imported_floors(path: Path) -> set[str]:
    import ast

    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        names = [node.module or ""] if isinstance(node, ast.ImportFrom) else []
        names += [alias.name for alias in node.names] if isinstance(node, ast.Import) else []
        for name in names:
            parts = name.split(".")
            if len(parts) > 1 and parts[0] == "attention_core" and parts[1] in FLOORS:
                found.add(parts[1])
    return found


def test_each_floor_of_attention_core_reads_only_the_floors_below_it() -> None:
    """story/ reads no model (minimal pairs, which take a model, live in readings/); models/ read no reading."""
    upward = []
    for floor, level in FLOORS.items():
        for path in sorted((ROOT / "attention_core" / floor).glob("*.py")):
            for other in _imported_floors(path) - {floor}:
                if FLOORS[other] >= level:
                    upward.append(f"{path.relative_to(ROOT)} imports attention_core.{other}")
    assert upward == []


# Where the project's Python lives: each folder is a package run from the root (`python -m bench.x`), so nothing
# needs to reach a sibling or the root by editing the import path.
PYTHON_HOMES = ("bench", "tools", "tests", "deploy", "ui", "pages", "attention_core", "classroom")


def test_no_file_edits_the_import_path() -> None:
    """bench/, tools/ and deploy/ are packages run with `python -m` from the project's root: none puts a folder on
    sys.path to import a sibling by its bare name (two copies of one module, each with its own state)."""
    edit = re.compile(r"sys\.path\.(insert|append)\b")
    files = [ROOT / "app.py", *(path for home in PYTHON_HOMES for path in sorted((ROOT / home).rglob("*.py")))]
    editing = [
        str(path.relative_to(ROOT))
        for path in files
        if not {".venv", "build"} & set(path.relative_to(ROOT).parts) and edit.search(path.read_text(encoding="utf-8"))
    ]
    assert editing == []
