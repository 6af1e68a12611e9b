"""The user-id rule every door shares (issue 26 item 6): the endpoint's body model applies it too."""

from __future__ import annotations

import pytest

from contract.request_body import MAX_USER_ID_CHARS, BodyError, user_id_problem, validate_body


@pytest.mark.parametrize("user_id", ["dana", "u" * MAX_USER_ID_CHARS, "José Müller", "a.b@example.com"])
def test_ordinary_user_ids_pass(user_id):
    assert user_id_problem(user_id) is None
    assert validate_body({"question": "q", "userId": user_id}).userId == user_id


@pytest.mark.parametrize(
    ("user_id", "words"),
    [
        ("", "1 to 256 characters"),
        ("u" * (MAX_USER_ID_CHARS + 1), "got 257"),
        ("dana\r\nX-Admin: 1", "U+000D"),
        ("da\u200bna", "U+200B"),
        ("\u202eanad", "U+202E"),
        ("dana\ud800", "U+D800"),
        ("dana\u2028", "U+2028"),
    ],
)
def test_the_endpoint_refuses_what_the_rule_refuses(user_id, words):
    assert words in (user_id_problem(user_id) or "")
    with pytest.raises(BodyError) as raised:
        validate_body({"question": "q", "userId": user_id})
    assert raised.value.location == "userId" and words in raised.value.message


@pytest.mark.parametrize(("field", "value"), [("sessionId", "s1\n"), ("nextToken", "token\n")])
def test_a_pattern_field_with_a_trailing_newline_is_refused(field, value):
    """`$` matches before a final newline; the body's patterns must match the whole value."""
    with pytest.raises(BodyError) as raised:
        validate_body({"question": "q", field: value})
    assert raised.value.location == field
