"""Hypothesis properties of ``accord jury`` over generated panels: whatever the panel, the command
exits 0 with a readable document or 2 with one line on stderr, and the Python API answers or
raises ValueError.

Panels: 1 to 12 members, blanks anywhere (whole rows too), ties, one class per row, references on
no / some / every row, duplicate and very long answers; every ``--method``, with and without a
label budget, an abstention threshold and a certified error rate. ``pytest --hypothesis-show-statistics`` prints the
shapes covered (the ``event`` lines).
"""

from __future__ import annotations

import json

import numpy as np
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from accord.cli.main import main
from accord.consensus_core.jury import choose_labels, fit_few_labels, label_free_jury
from accord.consensus_core.jury._vote import MISSING, run_jury
from accord.verify.juries import METHODS, decide_with_risk, panel_classes

SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
CLI_SETTINGS = settings(
    SETTINGS, suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture]
)  # capsys is read out per example
LONG = "12345678901234567890" * 200  # a 4,000-character answer
ANSWERS = ["1", "2", "3", "x + 1", "1+x", "no such n", "", "   ", None, LONG, LONG + "0", "\\frac{1}{2}", "0.5"]


@st.composite
def panels(draw, max_members: int = 12, max_rows: int = 18):
    """(rows, references, shape): answers per row (None / blank = no answer) and a reference or None."""
    m = draw(st.integers(1, max_members))
    n = draw(st.integers(1, max_rows))
    pool = draw(st.lists(st.sampled_from(ANSWERS), min_size=1, max_size=6))  # few distinct answers: duplicates, ties
    rows = []
    for _ in range(n):
        kind = draw(st.sampled_from(["mixed", "mixed", "mixed", "blank", "one class"]))
        if kind == "blank":
            rows.append([draw(st.sampled_from([None, "", "  "])) for _ in range(m)])
        elif kind == "one class":
            rows.append([draw(st.sampled_from(pool))] * m)
        else:
            rows.append([draw(st.sampled_from(pool)) for _ in range(m)])
    refs_on = draw(st.sampled_from(["none", "some", "some", "all"]))
    mask = draw(st.lists(st.booleans(), min_size=n, max_size=n)) if refs_on == "some" else [refs_on == "all"] * n
    if refs_on == "some" and n > 1:
        mask[draw(st.integers(0, n - 1))] = True
    refs = []
    for r, has in zip(rows, mask):
        refs.append(draw(st.sampled_from([a for a in r if a] + ["1", "7", LONG])) if has else None)
    shape = {
        "members": m,
        "rows": "1" if n == 1 else "2-5" if n <= 5 else "6+",
        "references": "all" if all(mask) else "some" if any(mask) else "none",
        "blank rows": sum(all(not (a or "").strip() for a in r) for r in rows) > 0,
        "one-class rows": sum(len({a for a in r}) == 1 and bool((r[0] or "").strip()) for r in rows) > 0,
        "long answers": any(LONG in (a or "") for r in rows for a in r),
    }
    return rows, refs, shape


def _write(tmp_path, rows, refs) -> str:
    path = tmp_path / "panel.jsonl"
    with path.open("w", encoding="utf-8") as f:
        for i, (r, ref) in enumerate(zip(rows, refs)):
            obj = {"id": f"p{i}", "answers": {f"m{j}": a for j, a in enumerate(r)}}
            if ref is not None:
                obj["reference"] = ref
            f.write(json.dumps(obj) + "\n")
    return str(path)


def _record(shape: dict) -> None:
    for key, value in shape.items():
        event(f"{key}: {value}")


def _run(capsys, argv: list[str]) -> tuple[int, str, str]:
    rc = main(argv)
    out, err = capsys.readouterr()
    return rc, out, err


def _check(rc: int, out: str, err: str) -> dict | None:
    assert rc in (0, 2), (rc, err)
    if rc == 2:
        assert err.strip() and len(err.strip().splitlines()) == 1 and "Traceback" not in err, err
        return None
    assert "Traceback" not in err
    return json.loads(out)


@CLI_SETTINGS
@given(
    panel=panels(),
    method=st.sampled_from(METHODS),
    equivalence=st.sampled_from(["auto", "text"]),
    budget=st.one_of(st.none(), st.integers(0, 20), st.just("rows")),
    choice=st.sampled_from([None, "active", "random"]),
    min_agreement=st.sampled_from([0.0, 0.5, 1.0]),
    risk=st.one_of(st.none(), st.sampled_from([0.05, 0.1, 0.3])),
)
def test_any_panel_through_the_cli_answers_or_says_one_line(
    tmp_path_factory, capsys, panel, method, equivalence, budget, choice, min_agreement, risk
):
    rows, refs, shape = panel
    _record(shape)
    event(f"method: {method}")
    event(f"label budget: {'none' if budget is None else 'given'}")
    event(f"risk: {'none' if risk is None else 'given'}")
    path = _write(tmp_path_factory.mktemp("p"), rows, refs)
    argv = [
        "jury",
        path,
        "--json",
        "--n-boot",
        "40",
        "--method",
        method,
        "--equivalence",
        equivalence,
        "--min-agreement",
        str(min_agreement),
    ]
    if budget is not None:
        argv += ["--label-budget", str(len(rows) // 2 if budget == "rows" else budget)]
    if choice is not None:
        argv += ["--label-choice", choice]
    if risk is not None:
        argv += ["--risk", str(risk), "--delta", "0.2"]
    rc, out, err = _run(capsys, argv)
    doc = _check(rc, out, err)
    event(f"exit {rc}")
    if doc is None:
        event("refused: " + err.split("error: ", 1)[-1].split(":")[-1].strip()[:40])
        return
    assert len(doc["verdicts"]) == len(rows)
    for v, r in zip(doc["verdicts"], rows):
        if all(not (a or "").strip() for a in r):  # nobody answered: nothing to choose
            assert v["abstained"] and v["answer"] is None
        elif not v["abstained"]:
            assert v["answer"] in r and v["members"]
        if v["abstained"]:
            assert v["reason"]
    if risk is not None:
        assert doc["risk"]["threshold"] is None or doc["risk"]["bound"] <= risk


@SETTINGS
@given(panel=panels(), seed=st.integers(0, 3), budget=st.integers(0, 20))
def test_any_panel_through_the_python_api(panel, seed, budget):
    rows, refs, shape = panel
    _record(shape)
    blanked = [[a if a is not None and a.strip() else None for a in r] for r in rows]
    res = run_jury(blanked, seed=seed)
    assert len(res.answers) == len(rows)
    for a, r in zip(res.answers, blanked):
        assert a is None if all(x is None for x in r) else a in r
    classes = panel_classes(rows, refs, "text")
    codes, truth = classes.codes, classes.truth
    try:
        lf = label_free_jury(codes, n_boot=2, seed=seed)
    except ValueError:
        event("label-free: ValueError")
    else:
        assert lf.chosen.shape == (len(rows),)
        assert np.all((lf.chosen == MISSING) == np.all(codes == MISSING, axis=1)) or lf.rule == "best-member"
    try:
        few = fit_few_labels(codes, truth, classes.has_reference, seed=seed)
        json.dumps(few.as_dict([f"m{j}" for j in range(codes.shape[1])]))
        chosen = choose_labels(codes, truth, min(budget, len(rows)), "active", seed=seed)
        json.dumps(chosen.as_dict())
    except ValueError:
        event("few-label: ValueError")
    members = [f"m{j}" for j in range(codes.shape[1])]
    try:
        dec = decide_with_risk(
            "auto", classes, members, 0.2, 0.2, seed, 2, min(budget, len(rows)) if classes.has_reference.all() else None
        )
    except ValueError:
        event("risk: ValueError")
    else:
        risk = dec.report["risk"]
        answered = (dec.confidence >= dec.threshold) & (dec.chosen != MISSING)
        assert risk["threshold"] is None or (risk["bound"] <= 0.2 and risk["calibration_answered"] >= 8)
        assert not answered.any() or risk["threshold"] is not None
