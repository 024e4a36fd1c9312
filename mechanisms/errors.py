"""The one exception tree of dpverify.

Every error a user can cause derives from :class:`DPVerifyError` *and* from the
matching built-in, so ``except ValueError`` keeps working for callers that do
not know dpverify.  Messages name the parameter and its value, in the form
``eps=-1 must be > 0``.

The tree lives in the lowest layer (``mechanisms``) so that every layer can
raise it; ``dpverify.errors`` re-exports it unchanged.

A privacy violation found by the checker is *not* an exception: it is a
result value (see ``dpverify.checker.core``).
"""

from __future__ import annotations

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


class DPVerifyError(Exception):
    """Base class of every error dpverify raises on purpose."""


class InvalidParameter(DPVerifyError, ValueError):
    """A parameter has the right type but a value outside its allowed range."""


class InvalidParameterType(DPVerifyError, TypeError):
    """A parameter has a type dpverify cannot accept (e.g. a float count)."""


class InvalidHistogram(InvalidParameter):
    """A histogram is empty, negative, non-integer, or of the wrong length."""


class UnknownName(DPVerifyError, KeyError):
    """A claim id, mechanism name or relation name that is not registered."""

    def __str__(self) -> str:  # KeyError would quote the message
        return str(self.args[0]) if self.args else ""


class DomainTooLarge(DPVerifyError, ValueError):
    """A requested exhaustive domain exceeds the stated cost budget."""


class BudgetExceeded(DPVerifyError, RuntimeError):
    """A privacy-budget object was asked for more than it can pay for."""


class NotAPrivateRelease(BudgetExceeded):
    """The budget ledger was asked to charge a run that is not a private release (seeded, float sampler)."""


class AdapterError(DPVerifyError, ValueError):
    """A black-box target's output cannot be mapped to a mechanism outcome."""


class UserCodeError(DPVerifyError, RuntimeError):
    """A researcher's own code failed: a file loaded with ``--load`` / ``DPVERIFY_LOAD``, or a mechanism,
    claim or lemma function registered with ``dpverify.byo``.  The message is one line naming the file,
    the line and the exception (and, for a function, the instance it was called on)."""
