"""What the mutation-test files share: run one named check of an instruments family against a
model broken on purpose, and return the failure it reports."""

from lab.checks import _run_check


def failure_of(checks, name: str, *fragments: str) -> str:
    """The failure message of check ``name`` of ``checks`` (a family's ``CHECKS``, pairs or a dict),
    which must exist (the check caught the mutation) and contain every one of ``fragments``."""
    out = _run_check(dict(checks)[name])
    assert out.failure, f"{name} did not catch the mutation"
    for fragment in fragments:
        assert fragment in out.failure, out.failure
    return out.failure
