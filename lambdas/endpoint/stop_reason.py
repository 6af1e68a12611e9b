"""Tells `complete` from `iteration_limit`: enough evidence is not the same as an exhausted budget.

AgenticRetrieveStream has no documented field that says why the planner stopped (ledger:
"stop signal", UNVERIFIED), so the endpoint reads it off the trace it relays. Each Planning step
that ends (SUCCEEDED) either issues retrieve actions (it wants more evidence) or issues none (it
judged the evidence sufficient). The run stopped at the limit when it used every allowed iteration
(Planning steps >= maxAgentIteration) and its last plan still asked for more; anything else is
`complete`. A mode without a planner (retrieve) is always `complete`, and so is a request that
allowed no iteration at all (maxAgentIteration 0: the caller asked for speculative retrieval only).
"""

from __future__ import annotations

from dataclasses import dataclass

from contract.enums import StopReason
from contract.events import Event, TraceEvent

PLANNING_STEP = "Planning"


@dataclass
class StopReasonObserver:
    """Fed every event of one request, in order; `reason()` once the stream ended normally."""

    max_agent_iteration: int
    plans: int = 0
    last_plan_searched: bool = False

    def observe(self, event: Event) -> None:
        if isinstance(event, TraceEvent) and event.step == PLANNING_STEP and event.status == "SUCCEEDED":
            self.plans += 1
            self.last_plan_searched = bool(event.subQueries)

    def reason(self, mode_taken: str) -> StopReason:
        if mode_taken != "agentic" or self.max_agent_iteration <= 0:
            return "complete"
        if self.plans >= self.max_agent_iteration and self.last_plan_searched:
            return "iteration_limit"
        return "complete"
