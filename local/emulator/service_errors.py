"""The service's error vocabulary, shared by validation, faults and the HTTP layer.

The same nine errors exist twice in the service model: as operation errors (shape names such as
`ThrottlingException`, sent before the stream with an HTTP status) and as stream members
(`throttlingException`, sent inside the stream). One table maps between the two.
"""

from __future__ import annotations

from dataclasses import dataclass

# shape name -> (stream member name, HTTP status), as botocore's service model declares them.
ERRORS: dict[str, tuple[str, int]] = {
    "AccessDeniedException": ("accessDeniedException", 403),
    "BadGatewayException": ("badGatewayException", 502),
    "ConflictException": ("conflictException", 409),
    "DependencyFailedException": ("dependencyFailedException", 424),
    "InternalServerException": ("internalServerException", 500),
    "ResourceNotFoundException": ("resourceNotFoundException", 404),
    "ServiceQuotaExceededException": ("serviceQuotaExceededException", 400),
    "ThrottlingException": ("throttlingException", 429),
    "ValidationException": ("validationException", 400),
}
STREAM_EXCEPTIONS: dict[str, str] = {member: shape for shape, (member, _) in ERRORS.items()}


def shape_name(error_type: str) -> str:
    """Accepts either spelling (`throttlingException` or `ThrottlingException`) and returns the shape name."""
    if error_type in ERRORS:
        return error_type
    if error_type in STREAM_EXCEPTIONS:
        return STREAM_EXCEPTIONS[error_type]
    raise ValueError(f"unknown error type {error_type!r}; one of {sorted(ERRORS)} or {sorted(STREAM_EXCEPTIONS)}")


@dataclass(frozen=True)
class ServiceError(Exception):
    """An error the emulated service answers with (never a Python traceback)."""

    code: str  # shape name, e.g. ValidationException
    message: str

    def __post_init__(self) -> None:
        shape_name(self.code)

    @property
    def status(self) -> int:
        return ERRORS[self.code][1]

    @property
    def stream_member(self) -> str:
        return ERRORS[self.code][0]

    def __str__(self) -> str:
        return f"{self.code}: {self.message}"
