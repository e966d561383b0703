"""The `page` fixture's warm profile (tests/conftest.py WarmProfile) shares a browser's caches between
tests, never their state: a page made after another on the same origin finds no storage of its, has the
viewport and colour scheme it asked for, and records only its own requests; a page with another context
option, or own_context=True, gets a context of its own. On a missing page of the site's origin: no
Pyodide boot, so this costs no more than two page loads."""

from __future__ import annotations


def test_a_warm_page_shares_the_cache_not_the_state(page):
    first = page()
    missing = first.base_url + "no-such-page"
    first.goto(missing)
    first.evaluate("() => { localStorage.setItem('left', '1'); sessionStorage.setItem('left', '1'); }")
    second = page(viewport={"width": 390, "height": 800}, color_scheme="dark")
    assert second.context is first.context  # one warm profile
    second.goto(missing + "?second")
    assert second.evaluate("() => [localStorage.getItem('left'), sessionStorage.getItem('left')]") == [None, None]
    assert second.evaluate("() => [innerWidth, matchMedia('(prefers-color-scheme: dark)').matches]") == [390, True]
    assert first.evaluate("() => [innerWidth, matchMedia('(prefers-color-scheme: light)').matches]") == [1280, True]
    assert (first.requests, second.requests) == ([missing], [missing + "?second"])
    assert page(own_context=True).context is not first.context
    assert page(java_script_enabled=False).context is not first.context
