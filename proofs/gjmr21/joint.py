"""Ledger: Gillenwater, Joseph, Muñoz Medina & Ribero, "A Joint Exponential Mechanism
for Differentially Private Top-k Set" (GJMR21).  Statements transcribe the printed
text; ``notes`` record readings, ties and ambiguities.  Evaluators live in
``proofs/_gjmr21_checks.py``, brute-force twins in ``proofs/_gjmr21_brute.py``.
"""

from __future__ import annotations

from fractions import Fraction

from mechanisms.joint.sequence import JointSequence
from mechanisms.joint.sets import Joint, JointLiteral

from proofs.claims import Domain, Obligation, PrivacyClaim, Statement, widened
from proofs.gjmr21 import _checks as C

K123 = ({"k": 1}, {"k": 2}, {"k": 3})
TIES = "ties: u* closed form depends on count values only; Def 5 depends on how TOP-K breaks ties"
LEM6_DOMAIN = Domain(d=5, max_count=2, relation="none", params=({"k": 1}, {"k": 2}, {"k": 3}, {"k": 4}),
                     extra={"random_d": (6, 7, 8), "random": 12, "seed": 0})
LEM6_QUICK = Domain(d=4, max_count=2, relation="none", params=({"k": 1}, {"k": 2}, {"k": 3}),
                    extra={"random_d": (6, 8), "random": 3, "seed": 0})
THM8_PARAMS = ({"k": 2, "eps": 1}, {"k": 1, "eps": 1}, {"k": 3, "eps": Fraction(1, 2)})

CLAIMS = [
    Statement(
        id="GJMR21.Def1", title="Top-k problem and l_inf error", source="GJMR21 §2, Definition 1",
        statement="TOP-K(D) = argmin_{S subset [d]^k} ||S_c - D_c||_inf, D_c the decreasing vector of the top k counts",
        code="mechanisms.joint.sets.u_star (the l_inf error, negated); proofs.gjmr21._brute.topk_sets",
        reason="Implemented; TOP-K is set-valued under ties: topk_sets(ties='any') returns every argmin, ties='index' the "
               "sorted_items rule.",
        notes="'S subset [d]^k' read as 'S a k-subset of [d]'.",
    ),
    Statement(
        id="GJMR21.Assump1", title="Distinct counts", source="GJMR21 §2 (after Definition 1)",
        statement="We also assume that the counts are distinct; a small amount of noise can always be added to achieve this.",
        code="mechanisms.joint (module docstring: ties)", kind="not-checkable", expected="not-checkable",
        reason=("Not a statement about the mechanism. Our histograms have ties: the closed-form utility and JOINT are "
                "well defined without the assumption (they use count values only); Definition 5's utility is not "
                "(it depends on how TOP-K breaks ties: see GJMR21.Lem5#ties). Adding noise would change the "
                "mechanism and its privacy analysis; not done."),
    ),
    Statement(
        id="GJMR21.Def2", title="Neighbours and eps-DP", source="GJMR21 §2, Definition 2",
        statement="D, D' neighbours if D' is D with one data point added or removed; M is eps-DP if P(M(D) in S) <= e^eps "
                  "P(M(D') in S)",
        code="dpverify.checker.neighbours ('add-remove'), dpverify.checker.profile",
        reason="Implemented as the add-remove relation (one user: a 0/1 vector).",
    ),
    Statement(
        id="GJMR21.Def3", title="Exponential mechanism (factor 2)", source="GJMR21 §2, Definition 3",
        statement="P(M(X) = o) ∝ exp(eps u(X, o) / (2 Delta_u)); this mechanism is eps-DP",
        code="mechanisms.joint.Joint, mechanisms.joint.sequence.JointSequence, proofs.gjmr21._brute.em_over_sets",
        reason="Implemented with Delta_u = 1: weights exp(eps u / 2).",
    ),
    Statement(
        id="GJMR21.Def4", title="Dataset distance", source="GJMR21 §3, Definition 4",
        statement="d(D, D') = smallest m with a chain D = D_0, D_1, ..., D_m = D' of neighbours",
        code="proofs.gjmr21._brute.distances_from (BFS over add/remove chains of histograms)",
        reason="Implemented by breadth-first search on histograms (a step moves a non-empty subset of counts by +1 or by -1).",
    ),
    Statement(
        id="GJMR21.Def5", title="Utility u*", source="GJMR21 §3",
        statement="u*(D, S) = -min_{D' : TOP-K(D') = S} d(D, D'), |S| = k",
        code="mechanisms.joint.sets.u_def5 (closed form, both tie readings); proofs.gjmr21._brute.def5_utilities (BFS)",
        reason="Implemented twice; GJMR21.Lem5#def5-formula checks the closed form of u_def5 against the BFS.",
        notes=TIES,
    ),
    Obligation(
        id="GJMR21.Claim3.1", title="Users needed = largest count difference", source="GJMR21 §3 (before Lemma 5)",
        statement="we need exactly as many users as the largest count difference to make S contain the true top-k counts",
        code="mechanisms.joint.sets.u_star vs proofs.gjmr21._brute.def5_utilities", relation="none", expected="violated",
        domain=Domain(d=3, max_count=5, relation="none", params=({"k": 1}, {"k": 2})),
        quick=Domain(d=3, max_count=3, relation="none", params=({"k": 2},)),
        evaluate=C.lem5_closed_vs_def5("any"), instances=lambda dom: C.hist_instances(dom, distinct=True),
        notes="Read as d(D, {D': TOP-K(D')=S}) = max_i (c_i - c_{j_i}); distinct counts (Assumption 1), TOP-K allowing ties in "
              "D'. Witness h=(0,1,2), k=2, S={0,1}: 2 users needed (raise items 0,1 past item 2), largest difference 1.",
    ),
    Obligation(
        id="GJMR21.Lem5", title="Sensitivity 1 and closed form of u*", source="GJMR21 §3, Lemma 5",
        statement="Delta_{u*} = 1 and u*(S, D) = -max_{i in [k]} [c_i - c_{j_i}]",
        code="mechanisms.joint.sets.u_star vs proofs.gjmr21._brute.def5_utilities", relation="none", expected="violated",
        domain=Domain(d=4, max_count=3, relation="none", params=K123),
        quick=Domain(d=3, max_count=3, relation="none", params=({"k": 1}, {"k": 2})),
        evaluate=C.lem5_closed_vs_def5("any"), instances=lambda dom: C.hist_instances(dom, distinct=True),
        notes=("Closed form vs Definition 5 by BFS, distinct counts (Assumption 1), TOP-K(D') allowing ties "
               "(the reading most favourable to the lemma). ERRATUM: the closed form is the l_inf error, not the "
               "dataset distance; the true distance is max(0, c_{t*} - c_{s*}) (first item outside S vs last item "
               "of S): see #def5-formula, #upper-bound. The sensitivity half holds: #sensitivity."),
    ),
    Obligation(
        id="GJMR21.Lem5#sensitivity", title="Closed form has add/remove sensitivity 1 (ties included)",
        source="GJMR21 §3, Lemma 5", statement="|u(h,S) - u(h',S)| <= 1 for neighbours h, h' and every k-set S (closed form)",
        code="mechanisms.joint.sets.u_star", relation="add-remove",
        domain=Domain(d=4, max_count=3, params=K123),
        quick=Domain(d=4, max_count=2, params=({"k": 2},)), evaluate=C.lem5_sensitivity("closed"),
    ),
    Obligation(
        id="GJMR21.Lem5#def5-sensitivity", title="Definition 5 utility has sensitivity 1 (both tie readings)",
        source="GJMR21 §3, Lemma 5", statement="|u*(h,S) - u*(h',S)| <= 1 with u* of Definition 5 (BFS)",
        code="proofs.gjmr21._brute.def5_utilities", relation="add-remove",
        domain=Domain(d=3, max_count=3, params=({"k": 1}, {"k": 2})),
        quick=Domain(d=3, max_count=2, params=({"k": 1},)), evaluate=C.lem5_sensitivity("any"),
        notes="tie reading 'any'; 'index' is covered by tests/mechanisms/test_joint.py.",
    ),
    Obligation(
        id="GJMR21.Lem5#ties", title="Closed form vs Definition 5 with the project's tie rule",
        source="GJMR21 §3, Lemma 5", statement="(probe) u*(S,D) = -max_i [c_i - c_{j_i}] when TOP-K breaks ties by smaller index",
        code="mechanisms.joint.sets.u_star vs proofs.gjmr21._brute.def5_utilities", relation="none", expected="violated",
        probe=True,
        domain=Domain(d=3, max_count=3, relation="none", params=({"k": 1}, {"k": 2})),
        quick=Domain(d=2, max_count=1, relation="none", params=({"k": 1},)),
        evaluate=C.lem5_closed_vs_def5("index"), instances=C.hist_instances,
        notes="Witness h=(0,0), k=1, S={1}: closed form 0, Definition 5 -1 (item 1 must overtake item 0).",
    ),
    Obligation(
        id="GJMR21.Lem5#upper-bound", title="Closed form is an upper bound on Definition 5's utility",
        source="GJMR21 §3, Lemma 5 (corrected)",
        statement="(corrected) -max_i [c_i - c_{j_i}] >= u*(D, S) for every S, ties included",
        code="mechanisms.joint.sets.u_star, proofs.gjmr21._brute.def5_utilities", relation="none", probe=True,
        domain=Domain(d=4, max_count=2, relation="none", params=K123),
        quick=Domain(d=3, max_count=3, relation="none", params=({"k": 1}, {"k": 2})),
        evaluate=C.lem5_upper, instances=C.hist_instances,
    ),
    Obligation(
        id="GJMR21.Lem5#def5-formula", title="Closed form of Definition 5 (derived here)",
        source="GJMR21 §3, Definition 5 (corrected Lemma 5)",
        statement="(derived) u*(h,S) = -max(0, h[t*] - h[s*] + [t* < s*]) ('index') or -max(0, h[t*] - h[s*]) ('any')",
        code="mechanisms.joint.sets.u_def5 vs proofs.gjmr21._brute.def5_utilities", relation="none", probe=True,
        domain=Domain(d=4, max_count=3, relation="none", params=K123),
        quick=Domain(d=3, max_count=3, relation="none", params=({"k": 1}, {"k": 2})),
        evaluate=C.def5_formula, instances=C.hist_instances,
    ),
    Obligation(
        id="GJMR21.Claim3.2", title="O(dk) utility values", source="GJMR21 §3.1",
        statement="there are only O(dk) possible utility values ... each utility value takes the form -(c_{i1} - c_{i2}) for "
                  "some i1 in [k] and some i2 in [d]",
        code="mechanisms.joint.sets.SetTables.gaps", relation="none", evaluate=C.claim3_2, instances=C.hist_instances,
        domain=Domain(d=5, max_count=4, relation="none", params=({"k": 1}, {"k": 2}, {"k": 3}, {"k": 4})),
        quick=Domain(d=4, max_count=3, relation="none", params=({"k": 2},)),
    ),
    Obligation(
        id="GJMR21.Alg1", title="Algorithm 1 as printed samples the EM with utility u*", source="GJMR21 §3.1, Algorithm 1",
        statement="Line 3: sample m = -M_ij with probability ∝ U_ij exp(-eps M_ij / 2); Line 4: a uniform set with utility m",
        code="mechanisms.joint.JointLiteral vs proofs.gjmr21._brute.em_over_sets", relation="none", expected="violated",
        domain=Domain(d=4, max_count=3, relation="none", params=({"k": 2, "eps": 1}, {"k": 3, "eps": 1})),
        quick=Domain(d=3, max_count=2, relation="none", params=({"k": 2, "eps": 1},)),
        evaluate=C.alg1_law(JointLiteral), instances=C.hist_instances,
        notes=("Line 3 samples ENTRIES (i, j); equal values (always: M_ii = 0 for every i) are counted with "
               "multiplicity, so Pr[S] ∝ r_h(m) exp(-eps m/2): the true top-k set is over-weighted k-fold. "
               "Corrected: sample the distinct values (GJMR21.Alg1#corrected)."),
    ),
    Obligation(
        id="GJMR21.Alg1#corrected", title="Corrected Algorithm 1 = EM over k-sets with utility u*",
        source="GJMR21 §3.1, Algorithm 1 (Line 3 over distinct values)",
        statement="(corrected) Pr[Joint(h) = S] = exp(eps u*(h,S)/2) / sum_S' exp(eps u*(h,S')/2)",
        code="mechanisms.joint.Joint vs proofs.gjmr21._brute.em_over_sets", relation="none", probe=True,
        domain=Domain(d=5, max_count=3, relation="none", params=({"k": 2, "eps": 1}, {"k": 3, "eps": Fraction(1, 2)})),
        quick=Domain(d=3, max_count=2, relation="none", params=({"k": 2, "eps": 1},)),
        evaluate=C.alg1_law(Joint), instances=C.hist_instances,
    ),
    Statement(
        id="GJMR21.Def6", title="M-hat and A^{ij}", source="GJMR21 §3.1",
        statement="M-hat: (k+1) x (d-k+1), M left-aligned to remove ⊥s with a row of 1s appended; A^{ij}_{lr} = 1[M-hat_lr < "
                  "M-hat_ij]",
        code="mechanisms.joint.paths.matrix_M_hat, matrix_A(strict=True as printed / strict=False)",
        reason="Implemented literally ('<') and with '<=' (the reading the printed example and Lemma 6 need: GJMR21.Ex1, "
               "GJMR21.Lem6).",
        notes="A^{ij} is indexed by M's (i, j) in the example (A^{34} <-> M_34 = M-hat_32) but by M-hat's in the definition.",
    ),
    Obligation(
        id="GJMR21.Ex1", title="Worked example k=3, d=5 (M, M-hat, A^{34}) with '<=' ", source="GJMR21 §3.1",
        statement="with c3-c4 < c2-c3 and c1-c2: A^{34} = [[1,0,0],[1,0,0],[1,1,0],[1,1,1]]",
        code="mechanisms.joint.paths.matrix_M, matrix_M_hat, matrix_A(strict=False)", relation="none",
        domain=Domain(d=5, max_count=8, relation="none"), quick=Domain(d=5, max_count=6, relation="none"),
        evaluate=C.ex1(strict=False), instances=C.ex1_instances,
        notes="Every strictly decreasing count vector in 0..max_count meeting the printed conditions.",
    ),
    Obligation(
        id="GJMR21.Ex1#as-printed-Def6", title="Worked example with Definition 6's strict '<'", source="GJMR21 §3.1",
        statement="A^{34}_{lr} = 1[M-hat_lr < M-hat_32] equals the printed A^{34}",
        code="mechanisms.joint.paths.matrix_A(strict=True)", relation="none", expected="violated",
        domain=Domain(d=5, max_count=8, relation="none"), quick=Domain(d=5, max_count=6, relation="none"),
        evaluate=C.ex1(strict=True), instances=C.ex1_instances,
        notes="ERRATUM (definition vs example): entry (3,2) is M-hat_32 < M-hat_32 = 0 under '<', printed as 1.",
    ),
    Obligation(
        id="GJMR21.Lem6", title="Path counting (A^{ij} as printed, '<')", source="GJMR21 §3.1, Lemma 6",
        statement="The number of paths in A^{ij} from A_11 to A_{k+1,d-k+1}, going only right and down and avoiding 0s, is the "
                  "number of sequences of decreasing counts with utility at least -M_ij",
        code="mechanisms.joint.paths.count_paths_grid, matrix_A(strict=True)", relation="none", expected="violated",
        domain=LEM6_DOMAIN, quick=LEM6_QUICK, evaluate=C.lemma6(strict=True), instances=C.lemma6_instances,
        notes="With '<' the count is of sets with utility strictly greater than -M_ij (GJMR21.Lem6#strict-meaning).",
    ),
    Obligation(
        id="GJMR21.Lem6#nonstrict", title="Path counting with A^{ij} built with '<='", source="GJMR21 §3.1, Lemma 6",
        statement="(corrected) paths through A^{ij} with 1[M-hat_lr <= M-hat_ij] = #k-sets with utility >= -M-hat_ij",
        code="mechanisms.joint.paths.count_paths_grid, matrix_A(strict=False)", relation="none", probe=True,
        domain=LEM6_DOMAIN, quick=LEM6_QUICK, evaluate=C.lemma6(strict=False), instances=C.lemma6_instances,
        notes="Exhaustive d=5, counts 0..3 (ties included) plus seeded random d = 6, 7, 8; every entry (i, j), i <= k, k <= 4.",
    ),
    Obligation(
        id="GJMR21.Lem6#strict-meaning", title="What the printed '<' counts", source="GJMR21 §3.1, Lemma 6",
        statement="(probe) paths through A^{ij} with '<' = #k-sets with utility > -M-hat_ij",
        code="mechanisms.joint.paths.count_paths_grid", relation="none", probe=True,
        domain=LEM6_DOMAIN, quick=LEM6_QUICK, evaluate=C.lemma6_strict_meaning, instances=C.lemma6_instances,
    ),
    Obligation(
        id="GJMR21.Ex2", title="Path examples", source="GJMR21 §3.1, proof of Lemma 6",
        statement="path M-hat11, M-hat21, M-hat31, M-hat41 <-> item indices (1,2,3); M-hat11, M-hat21, M-hat22, M-hat32, "
                  "M-hat42 <-> (1,3,4)",
        code="proofs.gjmr21._checks.path_positions", relation="none", kind="obligation",
        domain=Domain(d=1, max_count=0, relation="none"), evaluate=C.ex2, instances=C.single,
        notes="Item indices are sorted positions; also checks that the map is a bijection paths <-> k-sets (d=6, k=3).",
    ),
    Obligation(
        id="GJMR21.Lem7", title="P_{A^{ij}} by products of Pascal/Toeplitz blocks", source="GJMR21 §3.1, Lemma 7",
        statement="we can compute P_{A^{ij}} = Q_1 Q_2 ... Q_{O(k)}; Q_j from Pascal's triangle, Toeplitz",
        code="mechanisms.joint.paths.count_paths_lemma7, count_bounded, conv_trunc", relation="none",
        domain=LEM6_DOMAIN, quick=LEM6_QUICK, evaluate=C.lemma7, instances=C.lemma6_instances,
        notes="The count is checked here; the O(k^2 log k) time is GJMR21.Claim3.3 (benchmark). Exact big-integer convolution "
              "(Kronecker substitution) replaces the FFT.",
    ),
    Statement(
        id="GJMR21.Claim3.3", title="Line costs of Algorithm 1", source="GJMR21 §3.1",
        statement="Line 1 O(dk); Line 3 O(dk); Line 2 O(dk^3 log k); Line 4 O(dk) by a similar counting argument",
        code="dpverify.bench.joint.bench_joint_sets", kind="experiment", expected="not-checkable",
        reason="Asymptotic running time: measured, not decided (reports/performance.md, JOINT sections of the full profile; "
               "`dpverify bench`). Our Line 2 costs O(#gaps * k * M(k * bits)) with one big-integer product per Toeplitz block; "
               "Line 4 is a backward-sampling pass of the same DP (O(k^2) big-int operations), not O(dk).",
    ),
    PrivacyClaim(
        id="GJMR21.Thm8", title="JOINT is eps-DP", source="GJMR21 §3.1, Theorem 8",
        statement="JOINT is an eps-DP algorithm for TOP-K that runs in time O(dk^3 log(k))",
        code="mechanisms.joint.Joint", relation="add-remove",
        domain=widened(Domain(d=4, max_count=3, params=THM8_PARAMS)),
        quick=Domain(d=3, max_count=3, params=({"k": 2, "eps": 1},)),
        mechanism=lambda p: Joint(k=p["k"], eps=p["eps"]), points=lambda p: [(p["eps"], 0)],
        notes="The EM with the closed-form utility (what Algorithm 1 computes), sampled over distinct gap values. Runtime: "
              "GJMR21.Thm8#runtime.",
    ),
    PrivacyClaim(
        id="GJMR21.Thm8#literal", title="Algorithm 1 as printed is eps-DP", source="GJMR21 §3.1, Theorem 8 + Algorithm 1",
        statement="JOINT (Algorithm 1 as printed) is an eps-DP algorithm for TOP-K",
        code="mechanisms.joint.JointLiteral", relation="add-remove", expected="violated",
        domain=Domain(d=4, max_count=3, params=THM8_PARAMS), quick=Domain(d=3, max_count=3, params=({"k": 2, "eps": 1},)),
        mechanism=lambda p: JointLiteral(k=p["k"], eps=p["eps"]), points=lambda p: [(p["eps"], 0)],
        notes="Witness (k=2, eps=1): h=(0,0,0,1), h'=(0,1,1,1), S={0,3}: P=0.25577, Q=0.03060, ln P/Q = 2.123 > 1.",
    ),
    Obligation(
        id="GJMR21.Thm8#literal-distinct", title="Algorithm 1 as printed, distinct counts only",
        source="GJMR21 §3.1, Theorem 8 + Assumption 1",
        statement="(probe) Algorithm 1 as printed (entries i <= j <= d-k+i) is eps-DP on histograms with distinct counts",
        code="mechanisms.joint.JointLiteral(reading='positions')", relation="add-remove", expected="violated", probe=True,
        domain=Domain(d=4, max_count=5, params=({"k": 2, "eps": 1},)),
        quick=Domain(d=4, max_count=5, params=({"k": 2, "eps": 1},)),
        evaluate=C.pure_eps_obligation(lambda p: JointLiteral(k=p["k"], eps=p["eps"], reading="positions")),
        instances=C.distinct_pairs,
        notes="Witness (k=2, eps=1): h=(0,2,3,5), h'=(0,3,4,5), S={0,3}: P=0.103464, Q=0.028007, ln P/Q = 1.307 > 1. Only "
              "add/remove pairs with distinct counts on both sides (Assumption 1).",
    ),
    PrivacyClaim(
        id="GJMR21.Thm8#sequence", title="Sequence JOINT (ICML 2022 version) is eps-DP",
        source="GJMR21 (ICML 2022 version); §2 future work",
        statement="(later paper) the joint EM over k-sequences with u = -max_i (c_(i) - c_{s_i}) is eps-DP",
        code="mechanisms.joint.sequence.JointSequence", relation="add-remove", probe=True,
        domain=widened(Domain(d=4, max_count=3, params=({"k": 2, "eps": 1}, {"k": 3, "eps": 1}))),
        quick=Domain(d=3, max_count=3, params=({"k": 2, "eps": 1},)),
        mechanism=lambda p: JointSequence(k=p["k"], eps=p["eps"]), points=lambda p: [(p["eps"], 0)],
    ),
    Statement(
        id="GJMR21.Thm8#runtime", title="JOINT runs in O(dk^3 log k)", source="GJMR21 §3.1, Theorem 8; abstract: O~(dk^3)",
        statement="JOINT ... runs in time O(dk^3 log(k))", code="dpverify.bench.joint.bench_joint_sets",
        kind="experiment", expected="not-checkable",
        reason="Running time is measured (reports/performance.md, JOINT sections; `dpverify bench`), not decided by computation.",
    ),
    Statement(
        id="GJMR21.Exp", title="Experiments (§4)", source="GJMR21 §4",
        statement="JOINT vs PEEL (Gumbel, k/eps) and LAPLACE (2k/eps) on U(0,10d) and MovieLens 100k, k=5, eps in {1, 0.1}; "
                  "JOINT obtains the strongest utility",
        code="mechanisms.joint.Joint, mechanisms.exponential.OneShotGumbel, mechanisms.laplace.LaplaceTopK",
        kind="experiment", expected="not-checkable",
        reason="The figures are missing from the text extraction and MovieLens 100k is not available here (data/ holds the "
               "'latest-small' subset); utility comparisons are empirical and not re-run by this ledger.",
    ),
    Obligation(
        id="GJMR21.Claim5.1", title="Counts reach O(d^k): overflow", source="GJMR21 §5",
        statement="the quantities themselves can be as large as O(d^k), which leads to numerical issues in practical "
                  "implementations",
        code="mechanisms.joint.sets.SetTables, mechanisms.joint.sequence.SequenceTables (Python ints)", relation="none",
        domain=Domain(d=1, max_count=0, relation="none", params=(
            {"d": 1000, "k": 10, "kind": "set"}, {"d": 9066, "k": 100, "kind": "sequence"})),
        quick=Domain(d=1, max_count=0, relation="none", params=({"d": 1000, "k": 10, "kind": "set"},)),
        evaluate=C.claim5_1, instances=C.claim5_1_instances,
        notes="Exact magnitudes: C(1000,10) has 78 bits (> int64); sequence counts at d=9066, k=100 have 1314 bits (> float64's "
              "~2^1024). Python ints make this a non-issue: the 'open numerical problem' is solved exactly.",
    ),
    Statement(
        id="GJMR21.Claim1.1", title="Baselines: O(d) time, ordered output", source="GJMR21 §1",
        statement="These algorithms each admit an efficient implementation in time O(d) and also possess the advantage of "
                  "releasing an ordered sequence (not set) of top-k items",
        code="mechanisms.exponential.OneShotGumbel, PeelingEM; mechanisms.laplace.LaplaceTopK",
        kind="not-checkable", expected="not-checkable",
        reason="Baselines are implemented elsewhere (outputs ordered tuples); O(d) is a running-time statement (one noisy pass "
               "+ top-k selection: O(d + k log k) with argpartition), not checked here.",
    ),
]
