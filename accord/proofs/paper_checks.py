"""Claim 11: the VERDICT paper's numerical examples and tables, recomputed (seeds/002 §4, §11, §13,
§15, §16).

Every stated number is recomputed with the library's own functions (``consensus_stats``,
``get_policy``) and, where it is a closed-form quantity, exactly with sympy; a number is correct
when it equals the exact value rounded to the digits the paper prints. A check whose numbers are
all correct is PROVED (CHECKED-NUMERICALLY where eigenvalues come from floating point); a check
with a wrong number is REFUTED and yields an erratum.
"""

from __future__ import annotations

import itertools

import numpy as np
import sympy as sp

from accord.consensus_core import PAPER_LAMBDA, ConsensusSpec, consensus_stats, get_policy
from accord.proofs import symbolic as sym
from accord.proofs.audit import PAPER, Number
from accord.proofs.audit import audit_result as _result
from accord.proofs.audit import stated as _n
from accord.proofs.registry import CHECKED_NUMERICALLY, PROVED, REFUTED, Erratum, Result, register_claim

LAM = PAPER_LAMBDA
LAM_EXACT = (sp.Rational(3, 2), sp.Integer(1), sp.Rational(4, 5))


def _stats(r, lam=LAM):
    """Library statistics for one raw vector (floats) and the exact ones (rationals)."""
    return consensus_stats(np.asarray(r, dtype=float), lam), sym.stats(r, LAM_EXACT if lam == LAM else lam)


def _verdict(r, tau=0.6, eps=0.1) -> bool:
    d = get_policy("verdict", tau=tau, eps=eps).decide(np.asarray([r, r], dtype=float), ConsensusSpec(LAM))
    return bool(d.accepted[0])


def _consistent(lib, exact) -> bool:
    return (
        abs(float(lib.dispersion) - float(exact["dispersion"])) < 1e-12
        and abs(float(lib.mean) - float(exact["mean"])) < 1e-12
    )


# --------------------------------------------------------------------------------------- §4


@register_claim(
    "paper-s4-illustration",
    "§4 numerical illustration: r = (0.9, 0.3, 0.9), λ = (1.5, 1.0, 0.8) gives s* ≈ (0.80, 0.55, 0.77), s̄* ≈ 0.71, "
    "Δ* ≈ 0.11, shifts 0.10 (V) and 0.13 (C), rejected; r = (0.7, 0.7, 0.7) has Δ* = 0 and is accepted.",
    expect=REFUTED,
    group="audit",
    source=f"{PAPER} §4",
)
def s4_illustration() -> Result:
    r = (0.9, 0.3, 0.9)
    lib, ex = _stats(r)
    s = lib.consensus
    nums = [
        _n("§4", "s*_V", "0.80", s[0]),
        _n("§4", "s*_L", 0.55, s[1]),
        _n("§4", "s*_C", 0.77, s[2]),
        _n("§4", "s̄*", 0.71, lib.mean),
        _n("§4", "Δ*", 0.11, lib.dispersion),
        _n("§4", "shift of V", "0.10", r[0] - s[0]),
        _n("§4", "shift of C", 0.13, r[2] - s[2]),
    ]
    flat, _ = _stats((0.7, 0.7, 0.7))
    facts = [
        ("library and exact closed form agree", _consistent(lib, ex)),
        ("(0.9, 0.3, 0.9) is rejected (s̄* > τ, Δ* > ε)", not _verdict(r)),
        ("(0.7, 0.7, 0.7): Δ* = 0 and accepted", abs(float(flat.dispersion)) < 1e-12 and _verdict((0.7, 0.7, 0.7))),
        ("both have raw mean 0.7", abs(float(lib.raw_mean) - 0.7) < 1e-12),
        ("(0.6, 0.6, 0.6) and (0.9, 0.3, 0.6) share the raw mean 0.6", abs(np.mean([0.9, 0.3, 0.6]) - 0.6) < 1e-12),
    ]

    def errata(wrong):
        return [
            Erratum(
                f"§4 numerical illustration: {n.quantity} ≈ {n.stated:g} for r = (0.9, 0.3, 0.9)",
                f"{n.quantity} = {n.value:.4f}, which rounds to {round(n.value, 2):.2f} (a minor slip: {n.stated:g} is "
                f"{n.value:.4f} rounded twice, via {round(n.value, 3):.3f}); every other number of the illustration is "
                "right",
                PAPER,
                "paper-s4-illustration",
            )
            for n in wrong
        ]

    return _result(nums, facts, errata)


@register_claim(
    "paper-s4-proposition1-numbers",
    "§4 Proposition 1 proof: r = (0.9, 0.2, 0.9) and r' = (0.7, 0.6, 0.7) share the mean 2/3, with Δ*(r) ≈ 0.13 "
    "and Δ*(r') ≈ 0.04.",
    expect=REFUTED,
    group="audit",
    source=f"{PAPER} §4 Proposition 1",
)
def s4_proposition1() -> Result:
    a, ea = _stats((0.9, 0.2, 0.9))
    b, eb = _stats((0.7, 0.6, 0.7))
    nums = [
        _n("§4 Prop. 1", "Δ*(0.9, 0.2, 0.9)", 0.13, a.dispersion),
        _n("§4 Prop. 1", "Δ*(0.7, 0.6, 0.7)", 0.04, b.dispersion),
    ]
    facts = [
        ("both raw means are exactly 2/3", ea["raw_mean"] == eb["raw_mean"] == sp.Rational(2, 3)),
        (
            "opposite decisions: (0.9, 0.2, 0.9) rejected, (0.7, 0.6, 0.7) accepted",
            not _verdict((0.9, 0.2, 0.9)) and _verdict((0.7, 0.6, 0.7)),
        ),
    ]

    def errata(wrong):
        return [
            Erratum(
                f"§4 Proposition 1 proof: {n.quantity} ≈ {n.stated:g}",
                f"{n.quantity} = {n.value:.3f} (s* = ({', '.join(f'{x:.3f}' for x in b.consensus)})), as §15.3 and "
                "Table 14 "
                "state; §15.1's note calls a main-text number '.21' a typo, but the main text prints 0.04",
                PAPER,
                "paper-s4-proposition1-numbers",
            )
            for n in wrong
        ]

    return _result(nums, facts, errata)


@register_claim(
    "paper-s11-10-quoted-example",
    "§11.10 quotes the main paper's example r = (0.9, 0.3, 0.9) with s̄* = 0.71 and Δ* = 0.13.",
    expect=REFUTED,
    group="audit",
    source=f"{PAPER} §11.10",
)
def s11_quote() -> Result:
    lib, _ = _stats((0.9, 0.3, 0.9))
    nums = [_n("§11.10", "s̄*(0.9, 0.3, 0.9)", 0.71, lib.mean), _n("§11.10", "Δ*(0.9, 0.3, 0.9)", 0.13, lib.dispersion)]

    def errata(wrong):
        return [
            Erratum(
                f"§11.10: the main paper's example r = (0.9, 0.3, 0.9) yields "
                f"{n.quantity.split('(')[0]} = {n.stated:g}",
                f"{n.quantity} = {n.value:.3f} (≈ 0.11, as §4 itself says); 0.13 is Δ* of the other example, (0.9, "
                "0.2, 0.9)",
                PAPER,
                "paper-s11-10-quoted-example",
            )
            for n in wrong
        ]

    return _result(nums, [], errata)


@register_claim(
    "paper-s11-ranking-equals-mean",
    "§11.3/§11.4: since s̄* equals the raw mean, ranking the accepted candidates by s̄* is identical to the Mean "
    "baseline's ranking (permissive regime, τ ≤ 0.01).",
    expect=REFUTED,
    group="audit",
    source=f"{PAPER} §11.3, §11.4",
)
def s11_ranking() -> Result:
    R = np.array([[[0.5, 0.6, 0.8], [0.8, 0.5, 0.5]]])
    v = get_policy("verdict", tau=1e-4, eps=0.1).decide(R, ConsensusSpec(LAM))
    mean = get_policy("mean").decide(R)
    if not (v.accepted.all() and int(v.chosen[0]) != int(mean.chosen[0])):
        return Result("FAILED", "the counterexample did not separate the rankings")
    ce = {
        "candidates": R[0].tolist(),
        "raw_mean": v.stats.raw_mean[0].tolist(),
        "consensus_mean": v.mean[0].tolist(),
        "dispersion": v.dispersion[0].tolist(),
        "verdict_chooses": int(v.chosen[0]),
        "mean_chooses": int(mean.chosen[0]),
    }
    e = Erratum(
        "§11.3/§11.4: 'since s̄* equals the raw mean by construction, the ranking among accepted candidates is "
        "identical "
        "to what the Mean baseline would produce'",
        "Not for unequal λ: with λ = (1.5, 1.0, 0.8), τ = 1e-4, ε = 0.1 both (0.5, 0.6, 0.8) and (0.8, 0.5, 0.5) are "
        "accepted; Mean picks the first (raw means 0.633 > 0.600) but s̄* picks the second (0.620 > 0.616). A "
        "mean-preserving consensus (policy mean_preserving) is needed for the stated equivalence.",
        PAPER,
        "paper-s11-ranking-equals-mean",
    )
    return Result(REFUTED, "the rankings differ on an accepted pair", [str(ce)], counterexample=ce, errata=[e])


# -------------------------------------------------------------------------------------- §13


@register_claim(
    "paper-s13-2-numbers",
    "§13.2 and Table 13: det A = 7.175 and λ_min(A) = 1.048 for λ = (1.5, 1.0, 0.8) (Gershgorin bound 0.8); over "
    "{0.3, 0.8, 1.0, 1.5, 2.0}³ the minimum determinant is 0.972, the minimum eigenvalue 0.300, the maximum condition "
    "number 6.00, all positive definite; κ ≈ 1500 at λ_i = 10⁻³.",
    expect=CHECKED_NUMERICALLY,
    group="audit",
    source=f"{PAPER} §13.2, Table 13",
)
def s13_2_numbers() -> Result:
    A = sym.system_matrix(LAM_EXACT)
    eig = np.linalg.eigvalsh(np.array(A.tolist(), dtype=float))
    nums = [
        _n("§13.2 Eq. (13)", "det A (exact)", 7.175, A.det()),
        _n("§13.2", "Gershgorin bound min λ", 0.8, min(LAM)),
        _n("§13.2", "λ_min(A)", 1.048, eig.min()),
    ]
    grid = [sp.Rational(x) for x in ("3/10", "4/5", "1", "3/2", "2")]
    dets, mins, conds, pd = [], [], [], True
    for t in itertools.product(grid, repeat=3):
        At = sym.system_matrix(t)
        dets.append(At.det())
        e = np.linalg.eigvalsh(np.array(At.tolist(), dtype=float))
        mins.append(e.min())
        conds.append(e.max() / e.min())
        pd &= bool(e.min() > 0)
    nums += [
        _n("Table 13", "triples tested", 125, len(dets), tol=0),
        _n("Table 13", "minimum determinant (exact)", 0.972, min(dets)),
        _n("Table 13", "minimum eigenvalue", 0.300, min(mins), decimals=3),
        _n("Table 13", "maximum condition number", 6.00, max(conds), decimals=2),
    ]
    tiny = np.linalg.eigvalsh(np.array(sym.system_matrix([sp.Rational(1, 1000)] * 3).tolist(), dtype=float))
    nums.append(_n("§13.2", "κ at λ_i = 10⁻³ ('≈ 1500')", 1500, tiny.max() / tiny.min(), tol=15))
    facts = [
        ("all 125 matrices positive definite", pd),
        (
            "symmetric λ: λ_min(A) = λ (Gershgorin bound tight)",
            all(
                abs(
                    np.linalg.eigvalsh(np.array(sym.system_matrix([sp.Rational(x)] * 3).tolist(), dtype=float)).min()
                    - float(sp.Rational(x))
                )
                < 1e-12
                for x in ("1/100", "1/10", "1", "10")
            ),
        ),
    ]
    return _result(nums, facts, lambda w: [], status_ok=CHECKED_NUMERICALLY)


@register_claim(
    "paper-s13-2-conditioning",
    "§13.2: as any λ_i → 0⁺ the condition number grows as κ ∼ 1.5/min_i λ_i, and the system degenerates when "
    "a λ_i = 0 (a judge with no private evidence).",
    expect=REFUTED,
    group="audit",
    source=f"{PAPER} §13.2",
)
def s13_2_conditioning() -> Result:
    a, b = sp.symbols("alpha beta", positive=True)
    det_one_zero = sp.expand(sym.system_matrix([a, b, 0]).det())
    if not (sp.expand(det_one_zero - (sp.Rational(3, 4) * (a + b) + a * b)) == 0 and det_one_zero.is_positive):
        return Result("FAILED", f"det with λ_C = 0 is {det_one_zero}")
    det_all_zero = sym.system_matrix([0, 0, 0]).det()
    one_small = np.linalg.eigvalsh(
        np.array(sym.system_matrix([sp.Rational(3, 2), 1, sp.Rational(1, 1000)]).tolist(), dtype=float)
    )
    kappa_one = float(one_small.max() / one_small.min())
    lam_ = sp.Symbol("lamda", positive=True)
    kappa_equal = (sp.Rational(3, 2) + lam_) / lam_  # equal λ: eigenvalues λ and λ + 3/2
    ev = [
        f"λ_C = 0, λ_V = α, λ_L = β: det A = {det_one_zero} > 0 — still invertible (irreducibly diagonally dominant)",
        f"all λ_i = 0: det A = {det_all_zero} (A = I − W and W1 = 1: only then singular)",
        f"λ = (1.5, 1.0, 10⁻³): κ = {kappa_one:.3f}, not ≈ 1.5/10⁻³ = 1500",
        f"equal λ: κ = {kappa_equal} exactly — the 1.5/λ growth is the all-small case only",
    ]
    e = Erratum(
        "§13.2: 'As any λ_i → 0⁺, the condition number grows as κ ∼ 1.5/min_i λ_i … True degeneracy occurs only at "
        "λ_i = 0, corresponding to [a judge] with no private evidence'",
        f"A single λ_i → 0 keeps A well conditioned (κ = {kappa_one:.2f} for λ = (1.5, 1.0, 0.001)) and A stays "
        "invertible at λ_i = 0 (det = ¾(α+β) + αβ for m = 3); κ ∼ 1.5/λ and singularity need every λ_i → 0.",
        PAPER,
        "paper-s13-2-conditioning",
    )
    return Result(
        REFUTED,
        f"one λ_i → 0: κ stays {kappa_one:.2f}; singular only when all λ_i = 0",
        ev,
        counterexample={"lambdas": [1.5, 1.0, 0.001], "condition_number": kappa_one},
        errata=[e],
    )


@register_claim(
    "paper-s13-4-numbers",
    "§13.4: with λ = (1.5, 1.0, 0.8) the factor of Eq. (20) is 0.875; §15.2: Σλ_i s*_i = Σλ_i r_i = 2.27 for "
    "r = (0.9, 0.2, 0.9).",
    group="audit",
    source=f"{PAPER} §13.4, §15.2",
)
def s13_4_numbers() -> Result:
    lib, ex = _stats((0.9, 0.2, 0.9))
    nums = [
        _n("§13.4", "(max λ − min λ)/min λ", 0.875, (max(LAM) - min(LAM)) / min(LAM)),
        _n("§15.2", "Σ λ_i s*_i", 2.27, float(np.dot(LAM, lib.consensus))),
        _n("§15.2", "Σ λ_i r_i", 2.27, float(np.dot(LAM, (0.9, 0.2, 0.9)))),
    ]
    # the largest mean shift the consensus allows for r in [0, 1]^3 (s̄* − r̄ is linear in r)
    M = sym.system_matrix(LAM_EXACT).inv() * sp.diag(*LAM_EXACT)
    c = [sum(M.col(j)) / 3 - sp.Rational(1, 3) for j in range(3)]
    worst = max(sum(x for x in c if x > 0), -sum(x for x in c if x < 0))
    ev_note = (
        f"'mean shift empirically below 0.01' is a statement about the benchmarks' scores and is not checkable here; "
        f"over [0, 1]³ the shift can reach {float(worst):.4f} (r = (1, 0, 0))"
    )
    res = _result(
        nums,
        [
            (
                "exact invariant Σλs* = Σλr",
                sp.nsimplify(sum(l * s for l, s in zip(LAM_EXACT, ex["consensus"])) - sp.Rational(227, 100)) == 0,
            )
        ],
        lambda w: [],
        data={"max_possible_mean_shift": float(worst)},
    )
    res.evidence.append(ev_note)
    return res


# -------------------------------------------------------------------------------------- §15


@register_claim(
    "paper-s15-worked-examples",
    "§15.2-§15.4 and Table 14: every intermediate number of the two worked examples (w_i, S, s*, s̄*, residuals, Δ*, "
    "shifts) and Eq. (26) ∂s*_i/∂r_j = 2λ_j w_i w_j/(1 − Σw).",
    group="audit",
    source=f"{PAPER} §15, Table 14",
)
def s15_worked() -> Result:
    nums: list[Number] = []
    w = [1 / (3 + 2 * x) for x in LAM]
    nums += [_n("§15.2 step 2", f"w_{k}", v, wv) for k, v, wv in zip("VLC", ("0.1667", "0.2000", "0.2174"), w)]
    nums.append(_n("§15.2 step 2", "Σ w_i", 0.5841, sum(w)))
    ex = {
        (0.9, 0.2, 0.9): dict(
            b=("1.35", "0.20", "0.72"),
            terms=("0.2250", "0.0400", "0.1565"),
            tsum="0.4215",
            S="2.027",
            s=("0.788", "0.485", "0.754"),
            mean="0.676",
            res=("0.112", "0.190", "0.078"),
            disp="0.127",
            shift="0.009",
            maxshift="0.29",
        ),
        (0.7, 0.6, 0.7): dict(
            b=("1.05", "0.60", "0.56"),
            terms=("0.1750", "0.1200", "0.1217"),
            tsum="0.4167",
            S="2.004",
            s=("0.684", "0.641", "0.679"),
            mean="0.668",
            res=("0.016", "0.027", "0.011"),
            disp="0.018",
            shift="0.001",
            maxshift="0.04",
        ),
    }
    facts = []
    for r, st in ex.items():
        lib, exact = _stats(r)
        tag = f"§15 r = {r}"
        terms = [l * wi * ri for l, wi, ri in zip(LAM, w, r)]
        S = float(sum(exact["consensus"]))
        s = lib.consensus
        nums += [_n(tag, f"b_{k}", v, l * ri) for k, v, l, ri in zip("VLC", st["b"], LAM, r)]
        nums += [_n(tag, f"λ_{k} w_{k} r_{k}", v, t) for k, v, t in zip("VLC", st["terms"], terms)]
        nums.append(_n(tag, "Σ λ_i w_i r_i", st["tsum"], sum(terms)))
        nums.append(_n(tag, "S", st["S"], S))
        nums += [_n(tag, f"s*_{k}", v, x) for k, v, x in zip("VLC", st["s"], s)]
        nums.append(_n(tag, "s̄*", st["mean"], lib.mean))
        nums += [_n(tag, f"|s*_{k} − s̄*|", v, abs(x - float(lib.mean))) for k, v, x in zip("VLC", st["res"], s)]
        nums.append(_n(tag, "Δ*", st["disp"], lib.dispersion))
        nums.append(_n(tag, "s̄* − r̄", st["shift"], float(lib.mean - lib.raw_mean)))
        nums.append(_n(tag, "max |s*_i − r_i|", st["maxshift"], float(np.max(np.abs(s - np.asarray(r))))))
        facts.append((f"{tag}: library = exact closed form", _consistent(lib, exact)))
    a, _ = _stats((0.9, 0.2, 0.9))
    b, _ = _stats((0.7, 0.6, 0.7))
    nums += [
        _n("§15.4", "V shift in r", -0.11, a.consensus[0] - 0.9),
        _n("§15.4", "V shift in r'", -0.02, b.consensus[0] - 0.7),
        _n("§15.4", "C shift in r", -0.15, a.consensus[2] - 0.9),
        _n("§15.4", "C shift in r'", -0.02, b.consensus[2] - 0.7),
        _n(
            "§15.4",
            "L residual ratio ('factor of seven')",
            7,
            abs(a.consensus[1] - a.mean) / abs(b.consensus[1] - b.mean),
            tol=0.5,
        ),
    ]
    facts.append(
        ("Table 14 decisions: REJECT r, ACCEPT r'", not _verdict((0.9, 0.2, 0.9)) and _verdict((0.7, 0.6, 0.7)))
    )
    Mx = sym.system_matrix(LAM_EXACT).inv() * sp.diag(*LAM_EXACT)
    we = [1 / (3 + 2 * x) for x in LAM_EXACT]
    eq26 = all(
        sp.nsimplify(Mx[i, j] - 2 * LAM_EXACT[j] * we[i] * we[j] / (1 - sum(we))) == 0
        for i in range(3)
        for j in range(3)
        if i != j
    )
    facts.append(("Eq. (26): ∂s*_i/∂r_j = 2λ_j w_i w_j/(1 − Σw) for i ≠ j (exact)", eq26))
    return _result(nums, facts, lambda w: [])


# -------------------------------------------------------------------------------------- §16


@register_claim(
    "paper-s16-table15",
    "§16 Table 15: raw means, Δ*, and the weighted-average and VERDICT decisions of the five scenarios; and a "
    "dissent by the contextual judge gives a lower Δ* than the same dissent by the logical judge.",
    group="audit",
    source=f"{PAPER} §16, Table 15",
)
def s16_table() -> Result:
    rows = [
        ((0.90, 0.90, 0.90), 0.90, 0.00, True, True),
        ((0.90, 0.20, 0.90), 0.67, 0.13, True, False),
        ((0.70, 0.60, 0.70), 0.67, 0.02, True, True),
        ((0.95, 0.05, 0.95), 0.65, 0.16, True, False),
        ((0.40, 0.35, 0.45), 0.40, 0.01, False, False),
    ]
    nums, facts = [], []
    for r, mean, disp, wa, verdict in rows:
        lib, _ = _stats(r)
        nums.append(_n("Table 15", f"raw mean {r}", mean, lib.raw_mean, decimals=2))
        nums.append(_n("Table 15", f"Δ* {r}", disp, lib.dispersion, decimals=2))
        facts.append((f"Table 15 {r}: WA {'accept' if wa else 'reject'}", (float(lib.raw_mean) > 0.6) == wa))
        facts.append((f"Table 15 {r}: VERDICT {'accept' if verdict else 'reject'}", _verdict(r) == verdict))
    log_dissent, _ = _stats((0.95, 0.05, 0.95))
    ctx_dissent, _ = _stats((0.95, 0.95, 0.05))
    facts.append(
        (
            f"contextual dissent (0.95, 0.95, 0.05): Δ* = {float(ctx_dissent.dispersion):.3f} < logical dissent "
            f"{float(log_dissent.dispersion):.3f}, same raw variance",
            float(ctx_dissent.dispersion) < float(log_dissent.dispersion)
            and abs(float(ctx_dissent.raw_var) - float(log_dissent.raw_var)) < 1e-12,
        )
    )
    res = _result(nums, facts, lambda w: [])
    if res.status == PROVED:
        res.errata.append(
            Erratum(
                "§16 Setup: 'We consider four canonical score configurations'",
                "Table 15 lists five scenarios (unanimous confidence, cross-modal conflict, modest consensus, extreme "
                "visual "
                "conflict, collective doubt); its numbers are correct.",
                PAPER,
                "paper-s16-table15",
            )
        )
    return res
