"""The endpoint's plain validator (request_body.validate_body) and the pydantic model
(request_body_model.QueryBody) give every body the same verdict: both accept it, or both refuse
it naming the same first field. The endpoint uses the former so a cold start builds no pydantic
schema; the model is the contract's other statement of the same rules."""

from __future__ import annotations

import string

from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import ValidationError

from contract.request_body import FIELDS, MAX_TEXT_CHARS, BodyError, validate_body
from contract.request_body_model import QueryBody

OK_MESSAGES = [
    {"role": "user", "content": "a"},
    {"role": "assistant", "content": "b"},
    {"role": "user", "content": "c"},
]
CORPUS = [
    {},
    {"question": "q"},
    {"question": ""},
    {"question": "   "},
    {"question": "\u200b\u2060"},
    {"question": 42},
    {"question": None, "messages": None},
    {"question": "a" * MAX_TEXT_CHARS},
    {"question": "a" * (MAX_TEXT_CHARS + 1)},
    {"messages": []},
    {"messages": OK_MESSAGES},
    {"messages": OK_MESSAGES[:2]},
    {"messages": [{"role": "user", "content": "a"}, {"role": "user", "content": "b"}]},
    {"messages": [{"role": "system", "content": "a"}]},
    {"messages": [{"role": "user"}]},
    {"messages": [{"role": "user", "content": "a", "name": "x"}]},
    {"messages": [{"role": "user", "content": {"text": "a"}}]},
    {"messages": ["hello"]},
    {"messages": "hello"},
    {"messages": [{"role": "user", "content": "\u200b \u200c"}]},
    {"messages": [{"role": "user", "content": "a"}] * 51},
    {"question": "q", "knowledgeBases": []},
    {"question": "q", "knowledgeBases": ["docs", ""]},
    {"question": "q", "knowledgeBases": ["a", "b", "c", "d", "e", "f"]},
    {"question": "q", "knowledgeBases": [1]},
    {"question": "q", "knowledgeBases": "docs"},
    {"question": "q", "generateResponse": "yes"},
    {"question": "q", "generateResponse": 1},
    {"question": "q", "maxAgentIteration": -1},
    {"question": "q", "maxAgentIteration": "2"},
    {"question": "q", "maxAgentIteration": True},
    {"question": "q", "maxAgentIteration": 2.0},
    {"question": "q", "maxResults": 0},
    {"question": "q", "filter": []},
    {"question": "q", "filter": {"equals": {"key": "a", "value": 1}}},
    {"question": "q", "mode": ""},
    {"question": "q", "mode": 3},
    {"question": "q", "userId": ""},
    {"question": "q", "userId": "u" * 257},
    {"question": "q", "cache": "bypass"},
    {"question": "q", "cache": "off"},
    {"question": "q", "nextToken": "a b"},
    {"question": "q", "nextToken": "t" * 2049},
    {"question": "q", "sessionId": "-x"},
    {"question": "q", "sessionId": "s1", "persistence": "none"},
    {"question": "q", "persistence": "always"},
    {"question": "q", "topK": 3},
    {"topK": 3, "question": 42},
    {"question": 42, "maxResults": 0},
    {"caller": "arn:aws:iam::123456789012:role/admin", "question": "q"},
]


def verdict_of_model(body: dict) -> tuple[str, ...] | None:
    try:
        QueryBody.model_validate(body)
    except ValidationError as error:
        first = error.errors()[0]
        return (".".join(str(part) for part in first["loc"]), first["type"] == "extra_forbidden")  # type: ignore[return-value]
    return None


def verdict_of_endpoint(body: dict) -> tuple[str, ...] | None:
    try:
        validate_body(body)
    except BodyError as error:
        return (error.location, error.unknown_field)  # type: ignore[return-value]
    return None


def test_the_two_statements_have_the_same_fields_in_the_same_order():
    assert list(FIELDS) == list(QueryBody.model_fields)


def test_every_body_of_the_corpus_gets_the_same_verdict():
    for body in CORPUS:
        assert verdict_of_endpoint(body) == verdict_of_model(body), body


values = st.recursive(
    st.none() | st.booleans() | st.integers(-3, 60) | st.text(string.printable + "\u200b", max_size=12),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.sampled_from(["role", "content", "x"]), inner),
    max_leaves=6,
)
message = st.fixed_dictionaries(
    {"role": st.sampled_from(["user", "assistant", "system"]), "content": st.text(max_size=5)}
)
field_values = {
    "question": values,
    "messages": st.lists(message | values, max_size=4) | values,
    "knowledgeBases": st.lists(st.text(max_size=3) | values, max_size=6) | values,
    "userId": st.text(max_size=3) | values,
    "nextToken": st.text(max_size=4) | values,
    "sessionId": st.text(alphabet="ab-_ 1", max_size=4) | values,
    "persistence": st.sampled_from(["default", "none", "x"]) | values,
    "cache": st.sampled_from(["bypass", "x"]) | values,
}
bodies = st.dictionaries(st.sampled_from([*FIELDS, "topK"]), values, max_size=4) | st.fixed_dictionaries(
    {}, optional=field_values
)


@settings(max_examples=300, deadline=None)
@given(body=bodies)
def test_generated_bodies_get_the_same_verdict(body):
    assert verdict_of_endpoint(body) == verdict_of_model(body)
