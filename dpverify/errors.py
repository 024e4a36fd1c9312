"""The exception tree of dpverify (defined in ``mechanisms.errors``, re-exported here).

Every class subclasses the matching built-in as well as :class:`DPVerifyError`.
"""

from mechanisms.errors import (
    AdapterError,
    BudgetExceeded,
    DomainTooLarge,
    DPVerifyError,
    InvalidHistogram,
    InvalidParameter,
    InvalidParameterType,
    NotAPrivateRelease,
    UnknownName,
    UserCodeError,
)

__all__ = [
    "DPVerifyError",
    "InvalidParameter",
    "InvalidParameterType",
    "InvalidHistogram",
    "UnknownName",
    "DomainTooLarge",
    "BudgetExceeded",
    "NotAPrivateRelease",
    "AdapterError",
    "UserCodeError",
]
