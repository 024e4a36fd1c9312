"""Partition selection as deployed: the acceptance table -- strategy x L x eps x delta -- of python-dp's
strategies (PipelineDP builds the same objects), each checked exactly from the library's own keep probabilities
(``dpverify.auditor.partition_libs``), beside the exact model of the same strategy (``proofs.dvgm22``) and a
black-box bound from ``should_keep``; ``table`` computes ``reports/data/partition_selection.json``, rendered by
``dpverify.report.partition_selection``.
"""
