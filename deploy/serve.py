"""Many classes on one machine: N `streamlit run app.py` processes behind nginx, each student kept on one of them.

    python deploy/serve.py --processes 2 --port 8080                    # http://127.0.0.1:8080
    python deploy/serve.py --processes 4 --port 8080 --address 0.0.0.0  # open to the classroom's network
    # several machines: 10.0.0.7 runs two apps on its private address; the machine students open adds them
    python deploy/serve.py --processes 2 --port 8080 --app-address 10.0.0.7            # on 10.0.0.7
    python deploy/serve.py --processes 2 --port 8080 --address 0.0.0.0 --upstream 10.0.0.7:8081 --upstream 10.0.0.7:8082

App process i listens on 127.0.0.1:<app port + i> (--app-address; --app-port, by default --port + 1), started with
this script's own Python from the repository's root, each in its own process group. When every one answers
/_stcore/health, deploy/nginx.conf is filled in (app servers, listen address, run directory) and nginx runs from
the run directory (--run-dir; by default a fresh temporary one, removed at the end), which holds everything nginx
and the apps write: nginx.conf, nginx.pid, error.log, access.log, nginx's temp folders, app-<port>.log (an app's
output) and app-<port>.pid. Then the script supervises: an app that exits is started again (said on stderr) while
nginx sends its students to the others; SIGTERM or Ctrl-C stops nginx and every app. --upstream adds app servers
that run elsewhere (started and watched there). Standard library only: run as a script from any folder (the
tests import it as `deploy.serve`).
"""

from __future__ import annotations

import argparse
import contextlib
import ctypes
import errno
import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TEMPLATE = Path(__file__).with_name("nginx.conf")
PR_SET_PDEATHSIG = 1  # prctl(2)


class ServeError(Exception):
    """A problem the user can fix: main() prints it in one paragraph, without a traceback."""


class Stop(Exception):  # noqa: N818 (not an error: SIGTERM or SIGINT asked everything to stop)
    """Raised by the signal handler, wherever the script is, so that the `finally` in main() stops everything."""


@dataclass
class App:
    address: str
    port: int
    process: subprocess.Popen | None = None
    started: float = 0.0  # time.monotonic() at its last start
    healthy: bool = False
    quick_exits: int = 0  # exits in a row that came soon after a start: the restart waits longer each time
    restart_at: float = 0.0


def find_nginx() -> str | None:
    # Debian installs nginx in /usr/sbin, which is on root's PATH but not on other users'.
    return shutil.which("nginx") or shutil.which("nginx", path="/usr/local/sbin:/usr/sbin:/sbin")


def check_port(address: str, port: int, flag: str) -> None:
    """Fails with a clear message when the port cannot be listened on, before anything has been started."""
    with socket.socket() as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as nginx and uvicorn listen: TIME_WAIT is free
        try:
            probe.bind((address, port))
        except PermissionError:
            raise ServeError(f"port {port} needs root on {address}; pick one above 1023 with {flag}") from None
        except OSError as problem:
            if problem.errno == errno.EADDRINUSE:
                raise ServeError(f"port {port} is in use on {address}; pick another with {flag}") from None
            raise ServeError(f"cannot listen on {address}:{port}: {problem.strerror}") from None


def reachable(address: str) -> str:
    """The address to connect to for one listened on: 0.0.0.0 means every interface, loopback among them."""
    return "127.0.0.1" if address in ("0.0.0.0", "") else address


def answers_health(host: str, port: int, timeout_s: float = 1.0) -> bool:
    try:
        with urllib.request.urlopen(f"http://{host}:{port}/_stcore/health", timeout=timeout_s) as response:
            return response.status == 200
    except OSError:
        return False


def _die_with_parent() -> None:
    """In the child, before exec: the kernel sends it SIGTERM if this script dies without cleaning up (SIGKILL)."""
    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGTERM)


def spawn(command: list[str], log: Path, env: dict[str, str] | None = None) -> subprocess.Popen:
    """A child in a process group of its own (Ctrl-C in the terminal reaches only this script, which stops the
    children in order), its output appended to log."""
    with log.open("ab") as out:
        return subprocess.Popen(
            command,
            cwd=ROOT,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
            preexec_fn=_die_with_parent,
        )


def start_app(app: App, run_dir: Path, env: dict[str, str]) -> None:
    flags = ["--server.headless=true", f"--server.address={app.address}", f"--server.port={app.port}"]
    app.process = spawn(
        [sys.executable, "-m", "streamlit", "run", "app.py", *flags], run_dir / f"app-{app.port}.log", env
    )
    app.started, app.healthy = time.monotonic(), False
    (run_dir / f"app-{app.port}.pid").write_text(f"{app.process.pid}\n")


def tail(path: Path, lines: int = 15) -> str:
    with contextlib.suppress(OSError):
        return "\n".join(path.read_text(errors="replace").splitlines()[-lines:])
    return ""


def wait_until_healthy(apps: list[App], run_dir: Path, timeout_s: float) -> None:
    """All apps start at once (they import torch side by side); returns when every one answers its health check."""
    deadline = time.monotonic() + timeout_s
    while not all(app.healthy for app in apps):
        for app in (app for app in apps if not app.healthy):
            if app.process.poll() is not None:
                log = run_dir / f"app-{app.port}.log"
                raise ServeError(
                    f"the app on port {app.port} exited while starting (code {app.process.returncode});"
                    f" the end of {log}:\n{tail(log)}"
                )
            app.healthy = answers_health(reachable(app.address), app.port)
        if time.monotonic() > deadline:
            late = ", ".join(str(app.port) for app in apps if not app.healthy)
            raise ServeError(f"no answer from the app on port(s) {late} after {timeout_s:g} s (--start-timeout)")
        time.sleep(0.2)


def write_config(run_dir: Path, address: str, port: int, upstreams: list[str]) -> Path:
    # nginx's own variables are written $name, so the template's placeholders are {{name}}.
    filled = {
        "run_dir": str(run_dir),
        "listen": f"{address}:{port}",
        "upstream_servers": "\n".join(f"        server {upstream};" for upstream in upstreams),
    }
    text = TEMPLATE.read_text()
    for name, value in filled.items():
        text = text.replace("{{" + name + "}}", value)
    if "{{" in text:  # a placeholder the template gained and this script does not know
        raise ServeError(f"{TEMPLATE} has a placeholder serve.py does not fill: {text[text.index('{{') :][:40]}")
    config = run_dir / "nginx.conf"
    config.write_text(text)
    return config


def start_nginx(nginx: str, run_dir: Path, config: Path, address: str, port: int) -> subprocess.Popen:
    """nginx in the foreground (daemon off), so that this script is its parent and sees it exit."""
    process = spawn([nginx, "-p", str(run_dir), "-c", str(config), "-g", "daemon off;"], run_dir / "nginx.out")
    host = reachable(address)
    deadline = time.monotonic() + 15
    while not answers_health(host, port):
        if process.poll() is not None or time.monotonic() > deadline:
            raise ServeError(f"nginx did not start: {tail(run_dir / 'nginx.out')} {tail(run_dir / 'error.log')}")
        time.sleep(0.1)
    return process


def supervise(apps: list[App], nginx: subprocess.Popen, run_dir: Path, env: dict[str, str]) -> None:
    """Until a signal: an app that exits is started again, after a pause that grows while it keeps exiting soon
    after starting (a broken install would otherwise restart five times a second)."""
    while True:
        if nginx.poll() is not None:
            raise ServeError(f"nginx exited (code {nginx.returncode}): {tail(run_dir / 'error.log')}")
        now = time.monotonic()
        for app in apps:
            if app.process is None and now >= app.restart_at:
                start_app(app, run_dir, env)
            elif app.process is not None and app.process.poll() is not None:
                app.quick_exits = app.quick_exits + 1 if now - app.started < 60 else 0
                pause = min(30.0, 2.0 ** (app.quick_exits - 1)) if app.quick_exits > 1 else 0.0
                when = f"in {pause:g} s" if pause else "now"
                say(
                    f"the app on port {app.port} exited (code {app.process.returncode}); restarting it {when}"
                    " (nginx sends its students to the other processes meanwhile)"
                )
                app.process, app.restart_at = None, now + pause
            elif app.process is not None and not app.healthy and answers_health(reachable(app.address), app.port, 0.5):
                app.healthy = True
                say(f"the app on port {app.port} answers again")
        time.sleep(0.2)


def stop(processes: list[subprocess.Popen], timeout_s: float = 15) -> None:
    """SIGTERM to every process group at once, SIGKILL to a group still there after timeout_s."""
    for process in processes:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGTERM)  # the group: whatever the child started goes too
    deadline = time.monotonic() + timeout_s
    for process in processes:
        try:
            process.wait(timeout=max(0.1, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(process.pid, signal.SIGKILL)
            process.wait()


def say(message: str) -> None:
    print(f"serve.py: {message}", file=sys.stderr, flush=True)


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--processes", type=int, default=2, help="app processes to start here (0: only --upstream)")
    parser.add_argument("--port", type=int, default=8080, help="the port students open (nginx listens on it)")
    parser.add_argument("--address", default="127.0.0.1", help="where nginx listens; 0.0.0.0 for a class network")
    parser.add_argument(
        "--app-address", default="127.0.0.1", help="where the apps listen: a private address lets another nginx in"
    )
    parser.add_argument("--app-port", type=int, help="port of the first app process, the others follow (--port + 1)")
    parser.add_argument(
        "--upstream",
        action="append",
        default=[],
        metavar="HOST:PORT",
        help="an app server running elsewhere, added to nginx's servers (repeat for several)",
    )
    parser.add_argument("--run-dir", type=Path, help="keep nginx's config, logs and pid files here (default: temp)")
    parser.add_argument("--start-timeout", type=float, default=180, help="seconds the apps get to answer at start")
    args = parser.parse_args(argv)
    if args.processes < 0 or (args.processes == 0 and not args.upstream):
        parser.error("--processes must be at least 1, or 0 with at least one --upstream")
    if any(":" not in upstream for upstream in args.upstream):
        parser.error("--upstream takes HOST:PORT, e.g. 10.0.0.7:8081")
    args.app_port = args.app_port or args.port + 1
    if args.app_port <= args.port < args.app_port + args.processes:
        parser.error(
            f"--port {args.port} falls among the app ports {args.app_port}–{args.app_port + args.processes - 1}"
        )
    return args


def make_run_dir(run_dir: Path | None) -> tuple[Path, bool]:
    """(the run directory, whether it is ours to delete at the end)."""
    if run_dir is not None:
        run_dir = run_dir.resolve()
        run_dir.mkdir(parents=True, exist_ok=True)
        return run_dir, False
    made = Path(tempfile.mkdtemp(prefix="attention-serve-"))
    # Readable by nginx's workers, which run as `nobody` when nginx is started by root.
    made.chmod(0o755)
    return made, True


@dataclass
class Fleet:
    """What this script started, so that the end stops exactly that (restarted apps included)."""

    apps: list[App]
    nginx: subprocess.Popen | None = None

    def processes(self) -> list[subprocess.Popen]:
        started = [self.nginx] + [app.process for app in self.apps]  # nginx first: no new request meets a dying app
        return [process for process in started if process is not None]


def serve(args: argparse.Namespace, run_dir: Path, fleet: Fleet) -> None:
    nginx = find_nginx()
    if nginx is None:
        raise ServeError("nginx is not installed: apt-get install nginx (Debian/Ubuntu), then run this again")
    check_port(args.address, args.port, "--port")
    for app in fleet.apps:
        check_port(app.address, app.port, "--app-port")
    # Streamlit signs its cookies with this secret; its docs ask for one secret shared by all replicas.
    env = {**os.environ}
    env["STREAMLIT_SERVER_COOKIE_SECRET"] = env.get("STREAMLIT_SERVER_COOKIE_SECRET") or secrets.token_hex(32)
    for app in fleet.apps:
        start_app(app, run_dir, env)
    wait_until_healthy(fleet.apps, run_dir, args.start_timeout)
    upstreams = [f"{reachable(app.address)}:{app.port}" for app in fleet.apps] + args.upstream
    config = write_config(run_dir, args.address, args.port, upstreams)
    fleet.nginx = start_nginx(nginx, run_dir, config, args.address, args.port)
    say(
        f"serving http://{args.address}:{args.port}/ with {len(upstreams)} app server(s) behind nginx"
        f" ({', '.join(upstreams)}); run directory {run_dir}; Ctrl-C stops"
    )
    supervise(fleet.apps, fleet.nginx, run_dir, env)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)

    def on_signal(signum: int, _frame: object) -> None:
        raise Stop(signal.Signals(signum).name)

    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)
    fleet = Fleet([App(args.app_address, args.app_port + i) for i in range(args.processes)])
    run_dir, ours = make_run_dir(args.run_dir)
    code = 0
    try:
        serve(args, run_dir, fleet)
    except Stop as signal_name:
        say(f"{signal_name}: stopping nginx and the apps")
    except ServeError as problem:
        say(f"error: {problem}")
        code = 1
    finally:
        for signum in (signal.SIGTERM, signal.SIGINT):  # stopping is not to be interrupted half-way
            signal.signal(signum, signal.SIG_IGN)
        stop(fleet.processes())
        if ours:
            shutil.rmtree(run_dir, ignore_errors=True)
    return code


if __name__ == "__main__":
    sys.exit(main())
