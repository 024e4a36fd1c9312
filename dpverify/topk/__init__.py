"""``dpverify topk``: the mechanisms over user-level event data (:mod:`~dpverify.topk.release`, DuckDB input),
with pay-what-you-get sessions persisted in SQLite (:mod:`~dpverify.topk.session`)."""
