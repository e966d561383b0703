"""nginx configuration generated from the header table (sitebuild/headers.py).

Two outputs share one server block:
- `deploy_conf()`: what `deploy/nginx.conf` holds, an http-context snippet (two maps and a server
  block) for a host's nginx, rooted at a placeholder path. `tests/test_infra_nginx.py` checks that
  the committed file equals this function's output, so the table and the file cannot drift.
- `standalone_conf()`: a complete nginx.conf that runs unprivileged from a temporary prefix, for
  `make serve-nginx` and the tests (`tools/nginx.py` writes and runs it).

Reference: Debian's nginx 1.22 with `libnginx-mod-http-brotli-static` (brotli_static); the stock
`gzip_static` module serves the .gz siblings.
"""

from __future__ import annotations

from . import headers

DEPLOY_ROOT = "/srv/proofroom/dist"
BROTLI_MODULE = "ngx_http_brotli_static_module.so"
CHARSET = "; charset=utf-8"


class ConfigError(ValueError):
    pass


def quote(value: str) -> str:
    """An nginx double-quoted string. '$' would start a variable (nginx has no escape for it in
    these directives), so it is refused rather than mangled."""
    if "$" in value or any(ord(c) < 32 for c in value):
        raise ConfigError(f"cannot put {value!r} into an nginx config ('$' or a control character)")
    return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'


def quote_regex(pattern: str) -> str:
    """A regex as an nginx string, kept readable: map sources take '$' literally, and a backslash
    before anything but a quote or a backslash reaches PCRE unchanged."""
    if '"' in pattern or "\\\\" in pattern or any(ord(c) < 32 for c in pattern):
        raise ConfigError(f"cannot put regex {pattern!r} into an nginx config")
    return f'"{pattern}"'


def _types_block() -> list[str]:
    by_type: dict[str, list[str]] = {}
    for suffix, ctype in headers.MIME_TYPES.items():
        by_type.setdefault(ctype.replace(CHARSET, ""), []).append(suffix.lstrip("."))
    width = max(len(t) for t in by_type)
    return [f"        {t.ljust(width)} {' '.join(exts)};" for t, exts in by_type.items()]


def _charset_types() -> str:
    """The text types that get '; charset=utf-8'; nginx always counts text/html in (and warns when
    it is named)."""
    text = dict.fromkeys(t.replace(CHARSET, "") for t in headers.MIME_TYPES.values() if t.endswith(CHARSET))
    return " ".join(t for t in text if t != "text/html")


def maps() -> list[str]:
    return [
        "# Cache-Control by path (hashed names never change) and by status (errors are not kept).",
        "map $uri $proofroom_path_cache {",
        f"    default {quote(headers.REVALIDATE)};",
        f"    {quote_regex('~' + headers.HASHED_PATH)} {quote(headers.IMMUTABLE)};",
        "}",
        "map $status $proofroom_cache_control {",
        f"    {quote_regex('~^[45]')} {quote(headers.ERROR_CACHE)};",
        "    default $proofroom_path_cache;",
        "}",
    ]


def server_block(root: str, listen: str, server_name: str = "_") -> list[str]:
    hidden = [f"/{name}" for name in headers.HOST_CONFIG_FILES]
    lines = [
        "server {",
        f"    listen {listen};",
        f"    server_name {server_name};",
        f"    root {quote(root)};",
        "    server_tokens off;",
        "    autoindex off;",
        "",
        "    # Content-Type by suffix from this table only, never the host's mime.types.",
        "    types {",
        *_types_block(),
        "    }",
        f"    default_type {headers.DEFAULT_TYPE};",
        "    charset utf-8;",
        f"    charset_types {_charset_types()};",
        "",
        "    # Precompressed siblings written by the build, chosen by Accept-Encoding (brotli first);",
        "    # nothing is compressed on the fly. gzip_vary adds 'Vary: Accept-Encoding' where a sibling",
        "    # exists.",
        "    gzip off;",
        "    gzip_static on;",
        "    brotli_static on;",
        "    gzip_vary on;",
        "",
        "    # On every response, errors included ('always'). No location below has add_header of its",
        "    # own, so they all inherit these.",
        "    add_header Cache-Control $proofroom_cache_control always;",
        *(f"    add_header {name} {quote(value)} always;" for name, value in headers.SECURITY_HEADERS.items()),
        "",
        "    # Files only: no listings, no redirects; a path ending in '/' maps to its index.html.",
        "    location / {",
        "        try_files $uri =404;",
        "    }",
        "    location ~ /$ {",
        f"        try_files ${{uri}}{headers.INDEX} =404;",
        "    }",
        "    # Dotfiles (the build marker) and the static hosts' config are not part of the site.",
        "    location ~ /\\. {",
        "        return 404;",
        "    }",
    ]
    for path in hidden:
        lines += [f"    location = {path} {{", "        return 404;", "    }"]
    return lines + ["}"]


def deploy_conf(root: str = DEPLOY_ROOT) -> str:
    head = [
        "# nginx config for the built site (dist/). GENERATED from sitebuild/headers.py by",
        "# `python -m tools.nginx --deploy-conf > deploy/nginx.conf`; edit the table, not this file.",
        "#",
        "# Install: copy dist/ to " + root + " (or change `root`), put this file in",
        "# /etc/nginx/conf.d/ (it belongs in the http context), then `nginx -t && nginx -s reload`.",
        "# Needs the brotli_static module: on Debian `apt-get install libnginx-mod-http-brotli-static`",
        "# (it loads itself from /etc/nginx/modules-enabled/). Add TLS (listen 443 ssl ...) as usual:",
        "# browsers ask for brotli only over HTTPS (and from localhost).",
        "",
    ]
    return "\n".join(head + maps() + [""] + server_block(root, "80")) + "\n"


def standalone_conf(root: str, host: str, port: int, prefix: str, modules_dir: str,
                    error_log: str, access_log: str | None = None, user: tuple[str, str] | None = None) -> str:
    """A complete nginx.conf: foreground, one worker, every writable path under `prefix`.

    user: the `user` directive, only meaningful when the master runs as root (see tools/nginx.py)."""
    http_paths = [f"    {kind}_temp_path {quote(f'{prefix}/{kind}')};"
                  for kind in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi")]
    lines = [
        "# Generated by tools/nginx.py from sitebuild/headers.py (the same server block as",
        "# deploy/nginx.conf); a temporary file, rewritten on every start.",
        "daemon off;",
        "master_process on;",
        "worker_processes 1;",
        f"pid {quote(prefix + '/nginx.pid')};",
        f"lock_file {quote(prefix + '/nginx.lock')};",
        f"error_log {quote(error_log) if error_log != 'stderr' else 'stderr'} warn;",
        *([f"user {user[0]} {user[1]};"] if user else []),
        f"load_module {quote(modules_dir.rstrip('/') + '/' + BROTLI_MODULE)};",
        "",
        "events {",
        "    worker_connections 256;",
        "}",
        "",
        "http {",
        f"    access_log {quote(access_log) if access_log else 'off'};",
        *http_paths,
        "    sendfile on;",
        "    keepalive_timeout 65;",
        "",
        *("    " + line if line else "" for line in maps() + [""] + server_block(root, f"{host}:{port}")),
        "}",
    ]
    return "\n".join(lines) + "\n"
