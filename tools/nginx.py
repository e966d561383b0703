#!/usr/bin/env python3
"""Serve a built site with nginx, the way production does, in the foreground and unprivileged.

    python -m tools.nginx --dir dist --port 8000     # what `make serve-nginx` runs; Ctrl-C stops it
    python -m tools.nginx --deploy-conf              # prints deploy/nginx.conf (the committed file)

(from the checkout's root, which `python -m` puts first on sys.path, so this checkout's sitebuild is used).

The config is generated from sitebuild/headers.py (see sitebuild/nginx.py) into a fresh temporary
prefix that also holds the pid file, the logs and nginx's temp dirs, and is removed on exit; nothing
under /etc, /var or /run is read or written, so no root is needed. The nginx binary is
$PROOFROOM_NGINX, else `nginx` on PATH, else /usr/sbin/nginx; Debian's brotli_static module must
be installed (`make nginx` installs both).

Run as root, nginx's master would hand the requests to workers running as `nobody`, which cannot
read a checkout under /root or pytest's private temp dirs. So as root the workers run as the owner
of the served directory (they can read exactly what that owner can): `nobody` only when the owner is
root and the whole path is world-readable, otherwise the owner itself, root included. They listen
on 127.0.0.1 only unless --host says otherwise. As a normal user the `user` directive is left out
(nginx would ignore it) and everything runs as you.
"""

from __future__ import annotations

import ctypes
import grp
import os
import pwd
import re
import shutil
import signal
import socket
import stat
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from sitebuild import nginx as conf
from tools.serve import _Parser, _port  # one command-line style for both servers

INSTALL_HINT = "run `make nginx` (apt-get install nginx libnginx-mod-http-brotli-static)"


class NginxUnavailable(RuntimeError):
    """nginx or its brotli module is missing or will not start; the message is one line."""


def find_nginx() -> str:
    env = os.environ.get("PROOFROOM_NGINX")
    if env:
        if not os.access(env, os.X_OK):
            raise NginxUnavailable(f"PROOFROOM_NGINX={env} is not an executable file")
        return env
    for candidate in (shutil.which("nginx"), "/usr/sbin/nginx"):
        if candidate and os.access(candidate, os.X_OK):
            return candidate
    raise NginxUnavailable(f"nginx is not installed: {INSTALL_HINT}")


def modules_dir(nginx: str) -> str:
    """Where this nginx keeps its dynamic modules (from `nginx -V`), checked for brotli_static."""
    proc = subprocess.run([nginx, "-V"], capture_output=True, text=True, timeout=30)
    found = re.search(r"--modules-path=(\S+)", proc.stderr + proc.stdout)
    directory = found.group(1) if found else "/usr/lib/nginx/modules"
    if not os.path.isfile(os.path.join(directory, conf.BROTLI_MODULE)):
        raise NginxUnavailable(f"nginx has no brotli_static module ({directory}/{conf.BROTLI_MODULE}): "
                               f"{INSTALL_HINT}")
    return directory


def _world_readable(path: Path) -> bool:
    for part in (path, *path.parents):
        mode = part.stat().st_mode
        if not mode & stat.S_IXOTH or (part == path and not mode & stat.S_IROTH):
            return False
    return True


def worker_user(directory: Path) -> tuple[str, str] | None:
    """The `user` directive's (user, group), or None when nginx does not run as root."""
    if os.geteuid() != 0:
        return None
    st = directory.stat()
    if st.st_uid == 0 and _world_readable(directory):
        return ("nobody", grp.getgrgid(pwd.getpwnam("nobody").pw_gid).gr_name)
    return (pwd.getpwuid(st.st_uid).pw_name, grp.getgrgid(st.st_gid).gr_name)


def free_port(host: str) -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind((host, 0))
        return s.getsockname()[1]


try:  # looked up now, not in the forked child, where loading a library is not safe
    _PRCTL = ctypes.CDLL(None, use_errno=True).prctl
except (OSError, AttributeError):
    _PRCTL = None


def _die_with_parent():
    """In the child before exec: SIGTERM nginx's master if the process that started it dies, so
    a killed test run leaves no server behind (Linux; elsewhere a no-op)."""
    if _PRCTL is not None:
        _PRCTL(1, int(signal.SIGTERM))  # PR_SET_PDEATHSIG


class NginxServer:
    """nginx serving `directory` on host:port from a temporary prefix. start() returns once it
    accepts connections; stop() shuts it down and removes the prefix. port=0 picks a free port."""

    def __init__(self, directory, host: str = "127.0.0.1", port: int = 0, log_to_stderr: bool = False,
                 access_log: bool = False):
        self.directory = Path(directory).resolve()
        if not self.directory.is_dir():
            raise FileNotFoundError(f"not a directory: {self.directory}")
        self.host, self.port = host, port
        self.log_to_stderr, self.access_log = log_to_stderr, access_log
        self.process: subprocess.Popen | None = None
        self.prefix: str | None = None

    @property
    def url(self) -> str:
        return f"http://{self.host}:{self.port}/"

    def config(self, modules: str) -> str:
        error_log = "stderr" if self.log_to_stderr else f"{self.prefix}/error.log"

        return conf.standalone_conf(
            str(self.directory), self.host, self.port, self.prefix, modules, error_log,
            access_log=f"{self.prefix}/access.log" if self.access_log else None,
            user=worker_user(self.directory))

    def start(self, timeout: float = 20.0) -> "NginxServer":
        nginx = find_nginx()
        modules = modules_dir(nginx)
        self.prefix = tempfile.mkdtemp(prefix="proofroom-nginx-")
        fixed_port = self.port != 0
        try:
            for _ in range(1 if fixed_port else 5):  # a picked port can be taken before nginx binds it
                if not fixed_port:
                    self.port = free_port(self.host)
                path = Path(self.prefix, "nginx.conf")
                path.write_text(self.config(modules))
                self.process = subprocess.Popen(
                    [nginx, "-p", self.prefix, "-c", str(path), "-e",
                     "stderr" if self.log_to_stderr else f"{self.prefix}/error.log"],
                    stdin=subprocess.DEVNULL, preexec_fn=_die_with_parent)
                error = self._wait_ready(timeout)
                if error is None:
                    return self
                self.process = None
                if "Address already in use" not in error or fixed_port:
                    raise NginxUnavailable(f"nginx did not start on {self.host}:{self.port}: {error}")
            raise NginxUnavailable(f"nginx found no free port on {self.host}")
        except BaseException:
            self.stop()
            raise

    def _wait_ready(self, timeout: float) -> str | None:
        """None once the port answers; otherwise the last line nginx logged."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                return self._last_error() or f"exited with status {self.process.returncode}"
            try:
                with socket.create_connection((self.host, self.port), timeout=0.5):
                    return None
            except OSError:
                time.sleep(0.05)
        self._terminate()
        return f"no answer within {timeout:.0f} s; {self._last_error()}"

    def _last_error(self) -> str:
        try:
            lines = Path(self.prefix, "error.log").read_text().strip().splitlines()
        except OSError:
            return ""
        return lines[-1] if lines else ""

    def _terminate(self) -> None:
        process, self.process = self.process, None
        if process is None or process.poll() is not None:
            return
        process.send_signal(signal.SIGTERM)  # nginx: fast shutdown, the workers go with the master
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()

    def stop(self) -> None:
        self._terminate()
        if self.prefix:
            shutil.rmtree(self.prefix, ignore_errors=True)
            self.prefix = None

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.stop()


def main(argv=None) -> int:
    parser = _Parser(prog="nginx.py", description="Serve a built site with nginx and the production headers.")
    parser.add_argument("--dir", help="directory to serve (e.g. dist)")
    parser.add_argument("--port", type=_port, default=8000, help="TCP port (default 8000)")
    parser.add_argument("--host", default="127.0.0.1", help="bind address (default 127.0.0.1)")
    parser.add_argument("--deploy-conf", action="store_true", help="print deploy/nginx.conf and exit")
    parser.add_argument("--check", action="store_true",
                        help="say whether nginx and its brotli_static module are there (exit 0) or not (1)")
    args = parser.parse_args(argv)
    if args.deploy_conf:
        sys.stdout.write(conf.deploy_conf())
        return 0
    if args.check:
        try:
            binary = find_nginx()
            modules_dir(binary)
        except (NginxUnavailable, OSError, subprocess.SubprocessError) as exc:
            print(f"nginx: {exc}")
            return 1
        print(f"nginx: {binary} with brotli_static")
        return 0
    if not args.dir:
        parser.error("--dir is required (or --deploy-conf)")
    if not os.path.isdir(args.dir):
        parser.error(f"--dir {args.dir!r} is not a directory (run `make build` first?)")

    # SIGTERM (kill, a closing terminal) ends the run like Ctrl-C: nginx stopped, prefix removed.
    def _interrupt(signum, frame):
        raise KeyboardInterrupt
    signal.signal(signal.SIGTERM, _interrupt)
    signal.signal(signal.SIGHUP, _interrupt)

    server = NginxServer(args.dir, args.host, args.port, log_to_stderr=True)
    try:
        server.start()
        user = worker_user(server.directory)
        who = f"; workers run as {user[0]}" if user else ""
        print(f"Serving {args.dir} with nginx at {server.url}  (Ctrl-C to stop{who})", flush=True)
        status = server.process.wait()
        if status != 0:  # 0: stopped by a signal sent to the whole process group (Ctrl-C)
            print(f"nginx.py: error: nginx exited with status {status}", file=sys.stderr)
        return 1 if status else 0
    except NginxUnavailable as exc:
        print(f"nginx.py: error: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 0
    finally:
        server.stop()


if __name__ == "__main__":
    sys.exit(main())
