"""A tenant's `canary:` block: who `akb verify` asks as, and what (docs/operations.md, Verify a deployment)."""

from __future__ import annotations

from pydantic import Field

from schema.common import NonBlank, StrictModel

DEFAULT_CANARY_QUESTION = "What do these knowledge bases cover?"


class Canary(StrictModel):
    """The canary end user and question that `akb verify` sends through each door of the deployed tenant."""

    user_id: NonBlank = Field(
        description="The canary end user's id (the user id document ACLs see, e.g. an e-mail address). The endpoint "
        "and the agent honour it only when the verifying principal is a trusted invoker (user_context: trusted); "
        "give this user read access to the documents the question needs."
    )
    question: NonBlank = Field(
        DEFAULT_CANARY_QUESTION, description="The question; pick one the knowledge bases answer with this user."
    )
