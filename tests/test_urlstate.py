"""The hand-written query splitter equals urllib.parse's, which the lab avoids importing."""

from urllib.parse import parse_qsl, quote

from hypothesis import given, settings, strategies as st

from lab.urlstate import split_query

PIECES = st.sampled_from(list("ab=&+%;?/ <>\"'éĀ✓😀01fF") + ["%2", "%20", "%zz", "%e2%9c%93", "%ff", "%C3", "\ud800"])


@settings(max_examples=1500, deadline=None)
@given(st.lists(PIECES, max_size=12).map("".join))
def test_split_query_matches_parse_qsl(query):
    assert split_query(query) == parse_qsl(query, keep_blank_values=True)


@settings(max_examples=500, deadline=None)
@given(st.dictionaries(st.text(max_size=8), st.text(max_size=12), max_size=5))
def test_split_query_reads_what_quote_writes(values):
    query = "&".join(f"{quote(k, safe='')}={quote(v, safe='')}" for k, v in values.items())
    assert split_query(query) == parse_qsl(query, keep_blank_values=True)


def test_known_cases():
    assert split_query("acceptance=NaN&lookahead=%3Cscript%3E") == [("acceptance", "NaN"), ("lookahead", "<script>")]
    assert split_query("a+b=c%2Bd&&flag&=x") == [("a b", "c+d"), ("flag", ""), ("", "x")]
    assert split_query("bad=%E2%9C&pct=%") == [("bad", "\ufffd"), ("pct", "%")]
