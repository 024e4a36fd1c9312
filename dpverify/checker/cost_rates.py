"""Seconds per work unit (:mod:`dpverify.checker.cost`), calibrated -- not measured at run time.

Generated from ``dpverify check ID`` (no flags, one process) on the default domain of every privacy claim of the
ledger, 2026-11-27, on the 2-core development machine while other jobs shared it (load 5-8: the rates are
about 2-4 times an idle machine's, so estimates err long); rate = the check's own seconds (``instances
checked ... in S s``) / the work units :func:`dpverify.checker.cost.work` counts for that domain.  A claim
not listed takes its mechanism family's slowest rate; a family not listed, the slowest of all.
"""

from __future__ import annotations

__all__ = ["CLAIM_SECONDS_PER_UNIT", "FAMILY_SECONDS_PER_UNIT"]

#: per ledger claim id
CLAIM_SECONDS_PER_UNIT: dict[str, float] = {
    'BS16.Prop1.4#laplace-rnm': 8.43e-05,
    'BS16.Prop1.4#laplace-rnm-dp': 0.000103,
    'BS16.Prop1.4#peel-pf': 2.4e-05,
    'BS16.Prop1.4#pf': 5.03e-05,
    'BS16.Prop1.4#pf-tight': 3.07e-05,
    'CR21.BR#em': 4.6e-05,
    'CR21.BR#joint': 0.000106,
    'CR21.BR#topk-2k-eps': 6.01e-05,
    'CR21.BR#topk-k-eps': 9.3e-05,
    'CR21.BR-zCDP#em': 2.23e-05,
    'CR21.BR-zCDP#em-linf': 4.5e-05,
    'CR21.BR-zCDP#em-linf-monotone-dropped': 0.000559,
    'CR21.BR-zCDP#joint': 5.82e-05,
    'CR21.BR-zCDP#laplace-rnm': 0.00179,
    'CR21.BR-zCDP#limit-dom': 0.000233,
    'CR21.BR-zCDP#topk': 0.00125,
    'CR21.RDP#em': 0.00103,
    'CWGM20.AlgA.4#privacy': 6.58e-05,
    'CWGM20.AlgA.5#privacy': 4.88e-05,
    'CWGM20.Claim2.1': 8.85e-06,
    'CWGM20.ClaimA.2': 3.71e-05,
    'CWGM20.Lem2.4': 2.28e-05,
    'CWGM20.Lem2.4#general': 1.46e-05,
    'CWGM20.Thm2.7': 1.48e-05,
    'CWGM20.Thm2.7#linf': 0.000184,
    'CWGM20.Thm2.8': 1.17e-05,
    'CWGM20.Thm2.8#monotone': 3.04e-05,
    'CWGM20.Thm2.8#mutant-no-threshold-noise': 9.66e-05,
    'CWGM20.Thm3.2': 5.2e-05,
    'CWGM20.Thm3.2#em': 4.79e-05,
    'CWGM20.Thm3.2#mutant-gap-to-bottom': 0.000242,
    'CWGM20.Thm3.2#mutant-zero-threshold': 0.000278,
    'DR19.Cor4.1': 1.4e-05,
    'DR19.Cor4.1#monotone': 5.66e-06,
    'DR19.Cor5.1': 4.17e-05,
    'DR19.Cor5.1#linf': 8.44e-05,
    'DR19.CorF.1': 5.4e-05,
    'DR19.Fn1#privacy': 3.52e-05,
    'DR19.Lem3.1': 1.8e-05,
    'DR19.Lem3.2': 0.00039,
    'DR19.Lem4.1': 6.33e-06,
    'DR19.Lem4.1#general': 1.51e-05,
    'DR19.Lem4.1#monotone-dropped': 0.00045,
    'DR19.Lem6.1#corrected': 0.00111,
    'DR19.Lem6.1#corrected-Delta2': 0.000295,
    'DR19.Lem6.1#linf-delta': 0.000235,
    'DR19.LemF.4#corrected': 0.000235,
    'DR19.LemF.4#corrected-fraction': 0.000463,
    'DR19.Thm1': 1.44e-05,
    'DR19.Thm1#delta-restricted': 9.27e-05,
    'DR19.Thm1#delta-restricted-2': 5.65e-05,
    'DR19.Thm1#delta-threshold-unrestricted': 0.000122,
    'DR19.Thm1#linf': 0.000389,
    'DR19.Thm1#neurips': 2.8e-05,
    'DR19.Thm5#corrected': 0.000226,
    'DR19.Thm5#corrected-advanced': 0.000237,
}

#: per mechanism family (the package of the claim's mechanism): the slowest claim of the family
FAMILY_SECONDS_PER_UNIT: dict[str, float] = {
    'mechanisms.exponential': 0.00125,
    'mechanisms.joint': 0.000106,
    'mechanisms.laplace': 0.00179,
    'mechanisms.limited_domain': 0.00111,
    'mechanisms.stability': 0.000278,
    'user': 1.8e-05,
}
