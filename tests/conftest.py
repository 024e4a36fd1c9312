"""Shared test set-up.

Tests live in folders that mirror the layers (``tests/mechanisms``, ``tests/proofs``,
``tests/dpverify/<room>``); ``tests/test_architecture.py`` guards the house itself.  This folder is on
``sys.path`` (pytest's rootdir-relative import mode), so shared helpers live in ``tests/support.py``.
"""
