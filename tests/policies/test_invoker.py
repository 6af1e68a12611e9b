"""The invoker policy: both actions an AWS_IAM function URL needs, each pinned to the URL route."""

from __future__ import annotations

from policies.invoker import invoker_policy

FUNCTION = "arn:aws:lambda:us-west-2:111122223333:function:akb-dev-acme-endpoint"


def test_invoke_function_url_requires_iam_auth_type():
    statement = invoker_policy(FUNCTION)["Statement"][0]
    assert statement["Action"] == "lambda:InvokeFunctionUrl"
    assert statement["Resource"] == FUNCTION
    assert statement["Condition"] == {"StringEquals": {"lambda:FunctionUrlAuthType": "AWS_IAM"}}


def test_invoke_function_is_allowed_only_via_the_function_url():
    statement = invoker_policy(FUNCTION)["Statement"][1]
    assert statement["Action"] == "lambda:InvokeFunction"
    assert statement["Resource"] == FUNCTION
    assert statement["Condition"] == {"Bool": {"lambda:InvokedViaFunctionUrl": "true"}}


def test_exactly_two_allow_statements_and_no_wildcards():
    policy = invoker_policy(FUNCTION)
    assert [s["Effect"] for s in policy["Statement"]] == ["Allow", "Allow"]
    assert "*" not in str(policy)
