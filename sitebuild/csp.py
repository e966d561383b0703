"""The one Content-Security-Policy string, shared by tools/serve.py (header) and the templates (meta).

'wasm-unsafe-eval' is the only relaxation: Pyodide compiles its .wasm with WebAssembly.instantiate,
which CSP gates behind it; no 'unsafe-eval' and no 'unsafe-inline' are needed.
frame-ancestors is ignored when delivered in a <meta> tag; the server header carries it.
"""

CONTENT_SECURITY_POLICY = (
    "default-src 'self'; "
    "script-src 'self' 'wasm-unsafe-eval'; "
    "worker-src 'self'; "
    "connect-src 'self'; "
    "style-src 'self'; "
    "img-src 'self' data:; "
    "font-src 'self'; "
    "object-src 'none'; "
    "base-uri 'none'; "
    "form-action 'self'; "
    "frame-ancestors 'none'"
)

# The same policy for <meta http-equiv> tags: browsers ignore frame-ancestors there and log a console
# error saying so, which would trip every "no console errors" check. Derived, so there is still
# exactly one policy.
META_CONTENT_SECURITY_POLICY = "; ".join(
    d for d in CONTENT_SECURITY_POLICY.split("; ") if not d.startswith("frame-ancestors")
)
