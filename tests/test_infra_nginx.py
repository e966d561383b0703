"""nginx: the committed deploy config is the generated one and nginx accepts it; `tools/nginx.py`
(what `make serve-nginx` runs) starts, serves, and leaves nothing behind on Ctrl-C; a machine
without nginx gets a one-line reason. The headers nginx sends are in tests/test_infra_headers.py.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

import pytest

from sitebuild import nginx as conf
from tools import nginx as runner

ROOT = Path(__file__).resolve().parent.parent


def test_committed_deploy_conf_is_the_generated_one():
    committed = (ROOT / "deploy" / "nginx.conf").read_text()
    assert committed == conf.deploy_conf(), "deploy/nginx.conf is stale: run `make nginx-conf`"


def test_deploy_conf_passes_nginx_t(tmp_path, built_site):
    """The committed file as a host would use it: included in the http block of a main config."""
    try:
        nginx = runner.find_nginx()
        modules = runner.modules_dir(nginx)
    except runner.NginxUnavailable as exc:
        pytest.fail(f"nginx unavailable: {exc}", pytrace=False)
    site_conf = (ROOT / "deploy" / "nginx.conf").read_text().replace(
        f'root "{conf.DEPLOY_ROOT}";', f"root {conf.quote(str(built_site))};").replace(
        "listen 80;", "listen 127.0.0.1:1;")  # never bound: -t only parses and checks
    (tmp_path / "site.conf").write_text(site_conf)
    (tmp_path / "nginx.conf").write_text(
        f'pid "{tmp_path}/nginx.pid";\n'
        f'load_module "{modules}/{conf.BROTLI_MODULE}";\n'
        "events {}\n"
        f'http {{ access_log off; client_body_temp_path "{tmp_path}/body"; include "{tmp_path}/site.conf"; }}\n')
    proc = subprocess.run([nginx, "-t", "-q", "-p", str(tmp_path), "-c", str(tmp_path / "nginx.conf"),
                           "-e", str(tmp_path / "error.log")], capture_output=True, text=True, timeout=60)
    log = (tmp_path / "error.log").read_text() if (tmp_path / "error.log").exists() else ""
    assert proc.returncode == 0, proc.stderr + log
    assert "[warn]" not in proc.stderr + log and "[emerg]" not in proc.stderr + log


def test_generated_conf_quotes_what_it_must():
    assert conf.quote('/srv/a "b"') == '"/srv/a \\"b\\""'
    with pytest.raises(conf.ConfigError):
        conf.quote("/srv/$site")


def _wait_for_line(proc, fragment, timeout=30.0) -> str:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        line = proc.stdout.readline()
        if fragment in line:
            return line
        if not line and proc.poll() is not None:
            break
    raise AssertionError(f"never printed {fragment!r}; stderr: {proc.stderr.read()}")


def test_cli_serves_and_ctrl_c_leaves_nothing_running(built_site):
    """`make serve-nginx`'s command: a terminal's Ctrl-C reaches the whole foreground process group."""
    try:
        runner.find_nginx()
    except runner.NginxUnavailable as exc:
        pytest.fail(f"nginx unavailable: {exc}", pytrace=False)
    port = runner.free_port("127.0.0.1")
    proc = subprocess.Popen([sys.executable, "-m", "tools.nginx", "--dir", str(built_site),
                             "--port", str(port)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=True, cwd=ROOT)
    try:
        line = _wait_for_line(proc, "Serving")
        assert f"http://127.0.0.1:{port}/" in line
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=30) as resp:
            assert resp.status == 200 and resp.headers["Server"] == "nginx"
            prefix = next(Path(p) for p in Path(tempfile.gettempdir()).glob("proofroom-nginx-*")
                          if (p / "nginx.conf").is_file() and f":{port};" in (p / "nginx.conf").read_text())
        os.killpg(proc.pid, signal.SIGINT)
        assert proc.wait(timeout=30) == 0, proc.stderr.read()
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:  # the workers leave right after the master
            try:
                os.killpg(proc.pid, 0)
            except ProcessLookupError:
                break
            time.sleep(0.05)
        else:
            raise AssertionError("processes of the nginx run are still alive after Ctrl-C")
        assert not prefix.exists(), "the temporary prefix was left behind"
        with pytest.raises(OSError):
            urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=5)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()


@pytest.mark.parametrize("args, fragment", [
    (["--dir", ".", "--port", "abc"], "port must be a number"),
    (["--dir", "/nonexistent/proofroom"], "not a directory"),
    (["--port", "8000"], "--dir is required"),
])
def test_cli_errors_are_one_line(args, fragment):
    proc = subprocess.run([sys.executable, "-m", "tools.nginx", *args],
                          capture_output=True, text=True, timeout=30, cwd=ROOT)
    assert proc.returncode == 2 and fragment in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1 and "Traceback" not in proc.stderr


def test_missing_nginx_is_one_line(tmp_path):
    env = {**os.environ, "PROOFROOM_NGINX": str(tmp_path / "no-nginx")}
    check = subprocess.run([sys.executable, "-m", "tools.nginx", "--check"],
                           capture_output=True, text=True, timeout=30, env=env, cwd=ROOT)
    assert check.returncode == 1 and len(check.stdout.strip().splitlines()) == 1
    assert "PROOFROOM_NGINX" in check.stdout
    serve = subprocess.run([sys.executable, "-m", "tools.nginx", "--dir", str(tmp_path)],
                           capture_output=True, text=True, timeout=30, env=env, cwd=ROOT)
    assert serve.returncode == 1 and len(serve.stderr.strip().splitlines()) == 1
    assert "Traceback" not in serve.stderr


def test_worker_user(tmp_path, monkeypatch):
    """As root the workers run as the served directory's owner (nobody for a world-readable
    root-owned tree); otherwise no `user` directive at all."""
    monkeypatch.setattr(os, "geteuid", lambda: 1000)
    assert runner.worker_user(tmp_path) is None
    monkeypatch.setattr(os, "geteuid", lambda: 0)
    user = runner.worker_user(tmp_path)
    if tmp_path.stat().st_uid == 0 and runner._world_readable(tmp_path):
        assert user[0] == "nobody"
    else:
        import pwd
        assert user[0] == pwd.getpwuid(tmp_path.stat().st_uid).pw_name
