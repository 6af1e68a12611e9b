"""The loopback guard's rules, request by request (the browser tests send the same forgeries over HTTP)."""

from __future__ import annotations

import pytest

from client.playground.origin_guard import check_request, same_token

ORIGIN = "http://127.0.0.1:5123"
TOKEN = "s3cr3t-token"


def scope(method: str = "POST", path: str = "/api/query", query: bytes = b"", **headers: str | list[str]) -> dict:
    raw: list[tuple[bytes, bytes]] = []
    for name, value in {"host": "127.0.0.1:5123", **headers}.items():
        for one in value if isinstance(value, list) else [value]:
            raw.append((name.replace("_", "-").encode(), one.encode()))
    return {"type": "http", "method": method, "path": path, "query_string": query, "headers": raw}


def honest(**overrides: str | list[str]) -> dict:
    return scope(**{"origin": ORIGIN, "x_playground_token": TOKEN, **overrides})  # type: ignore[arg-type]


def test_the_page_s_own_requests_pass():
    assert check_request(honest(), ORIGIN, TOKEN) is None
    assert check_request(honest(sec_fetch_site="same-origin"), ORIGIN, TOKEN) is None
    assert check_request(scope("GET", "/", b"token=" + TOKEN.encode()), ORIGIN, TOKEN) is None
    assert check_request(scope("GET", "/static/main.js", sec_fetch_site="same-origin"), ORIGIN, TOKEN) is None


@pytest.mark.parametrize(
    "request_scope, code",
    [
        (honest(host="evil.example:5123"), "forbidden_host"),  # DNS rebinding: our address, their name
        (honest(host="localhost:5123"), "forbidden_host"),
        (honest(host="127.0.0.1:5124"), "forbidden_host"),
        (honest(host=["127.0.0.1:5123", "evil.example"]), "forbidden_host"),  # a second Host
        (scope(x_playground_token=TOKEN), "forbidden_origin"),  # a POST without Origin
        (honest(origin="http://evil.example"), "forbidden_origin"),
        (honest(origin="null"), "forbidden_origin"),  # a sandboxed frame or a data: page
        (honest(origin=[ORIGIN, "http://evil.example"]), "forbidden_origin"),
        (honest(sec_fetch_site="cross-site"), "forbidden_site"),
        (honest(sec_fetch_site="same-site"), "forbidden_site"),
        (honest(x_playground_token="s3cr3t-tokeN"), "bad_token"),
        (honest(x_playground_token=[TOKEN, TOKEN]), "bad_token"),
        (scope("GET", "/api/tenant"), "bad_token"),  # reading is guarded too
        (scope("GET", "/"), "bad_token"),  # the page needs the token in its address
        (scope("GET", "/", b"token=guess"), "bad_token"),
    ],
)
def test_anything_else_is_refused(request_scope, code):
    refusal = check_request(request_scope, ORIGIN, TOKEN)
    assert refusal is not None and (refusal.status, refusal.code) == (403, code)


def test_tokens_compare_whole_values():
    assert same_token(TOKEN, TOKEN)
    assert not same_token(TOKEN[:-1], TOKEN)
    assert not same_token(None, TOKEN)
    assert not same_token("", TOKEN)
