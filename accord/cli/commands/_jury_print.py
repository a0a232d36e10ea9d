"""How ``accord jury`` prints its report for a person: what decided, what the references were, the
accuracy tables on the rows the jury did not see, and how far its confidence can be trusted."""

from __future__ import annotations


def print_reliability(con, rel: dict) -> None:
    """The reliability table over bins of equal rows: where the confidence can be sorted by."""
    from accord.cli.display import Table

    t = Table(title="reliability (bins of equal rows)", title_justify="left")
    for col in ("confidence range", "rows", "mean confidence", "right"):
        t.add_column(col, justify="left" if col == "confidence range" else "right")
    for b in rel["equal_count"]["table"]:
        t.add_row(f"{b['low']:.2f}–{b['high']:.2f}", str(b["rows"]), f"{b['confidence']:.3f}", f"{b['accuracy']:.3f}")
    con.print(t)


def print_report(doc: dict) -> None:
    from rich.markup import escape

    from accord.cli.display import Table, console

    con = console()
    con.print(
        f"[bold]{doc['problems']}[/] problems, [bold]{len(doc['members'])}[/] members, method {doc['method']}, "
        f"equivalence {doc['equivalence']}; answered {doc['answered']} ({doc['coverage']:.1%}), ties {doc['ties']}"
    )
    if "too_few_rows" in doc:
        con.print(f"[bold yellow]{doc['too_few_rows']}[/]")
    if "labels_file" in doc:
        lf = doc["labels_file"]
        con.print(
            f"{escape(lf['file'])}: {lf['labels']} labels, {lf['new']} new"
            + (f", {lf['already_in_file']} already in the file" if lf["already_in_file"] else "")
        )
    con.print(f"references: {escape(doc['references']['note'])}")
    print_decision(con, doc)
    if "jury" in doc:
        t = Table(title=f"accuracy on {doc['scored_on']} (95% bootstrap CI)", title_justify="left")
        for col in ("who", "accuracy", "CI", "n"):
            t.add_column(col)
        row = lambda name, e: t.add_row(name, _num(e["accuracy"]), _ci(e["ci"]), str(e["n"]))  # noqa: E731
        if doc["answered"]:
            row(f"jury ({doc['method']})", doc["jury"])
            if "jury_answered" in doc:
                row("jury, answered only", doc["jury_answered"])
        else:
            t.add_row(f"jury ({doc['method']})", "answered no row", "", str(doc["jury"]["n"]))
        for m, e in doc["member_accuracy"].items():
            est = doc.get("estimated_accuracy", {}).get(m)
            row(m + (f"  (est. {est['value']:.3f})" if est else ""), e)
        con.print(t)
        vs = doc["vs_best_member"]
        if doc["answered"]:
            ci = f" [{vs['ci'][0]:+.3f}, {vs['ci'][1]:+.3f}] (paired bootstrap)" if vs["ci"] else ""
            con.print(f"jury - best member ({doc['best_member']['name']}): {vs['difference']:+.3f}{ci}")
    conf = doc.get("confidence", {})
    if "confidence_error" in doc:
        e = doc["confidence_error"]
        con.print(
            f"confidence calibrated on {conf['rows']} labels; expected calibration error on {doc['scored_on']}: "
            f"{e['equal_width']:.3f} (10 equal-width bins), {e['equal_count']:.3f} (10 bins of equal rows)"
        )
        print_reliability(con, doc["reliability"])
    elif conf.get("too_few_labels"):
        con.print(f"[yellow]{escape(conf['meaning'])}[/]")
    if "law" in doc:
        law = doc["law"]
        e = law["estimate"]
        con.print(
            f"[bold]law[/] a = {e['a']:.3f} [{e['a_ci'][0]:.3f}, {e['a_ci'][1]:.3f}], rho = {e['rho']:.3f} "
            f"[{e['rho_ci'][0]:.3f}, {e['rho_ci'][1]:.3f}], s = "
            + ", ".join(f"{s:.3f} [{c[0]:.3f}, {c[1]:.3f}]" for s, c in zip(e["s"], e["s_ci"]))
        )
        if "predicted" in law:
            t = Table(title=f"law vs panel (M = {e['M']})", title_justify="left")
            for col in ("quantity", "predicted", "observed"):
                t.add_column(col)
            for key in ("accuracy", "floor", "unanimous_rate", "unanimous_accuracy"):
                obs = law["observed"][key]
                t.add_row(key, f"{law['predicted'][key]:.4f}", "–" if obs is None else f"{obs:.4f}")
            con.print(t)
        f = law["fit"]
        con.print(
            f"fit (bins by members right): chi2 = {f['chi2']:.2f}, df = {f['df']}, p = {f['p_value']:.3g}, "
            f"bootstrap p = {f['p_bootstrap']:.3g}; all wrong {f['all_wrong']}, unanimous wrong {f['unanimous_wrong']} "
            f"(predicted share {f['unanimous_wrong_rate_predicted']:.4f})"
        )
    if "plan" in doc:
        t = Table(title=f"panel plan, budget {doc['plan']['budget']:g}", title_justify="left")
        for col in ("size", "members", "cost", "predicted acc"):
            t.add_column(col)
        for c in doc["plan"]["best_by_size"]:
            mark = " ◀" if c["members"] == doc["plan"]["best"]["members"] else ""
            t.add_row(
                str(c["size"]), ", ".join(c["members"]) + mark, f"{c['cost']:g}", f"{c['predicted_accuracy']:.4f}"
            )
        con.print(t)


def _num(x) -> str:
    return "–" if x is None else f"{x:.3f}"


def _ci(ci) -> str:
    return "–" if not ci else f"[{ci[0]:.3f}, {ci[1]:.3f}]"


def print_decision(con, doc: dict) -> None:
    """What decided: the label-free default and why it fell back, or what the labels taught."""
    from accord.cli.display import Table

    lf = doc.get("label_free")
    if "prior" in doc:
        con.print(
            "decided by the accuracy-weighted vote with the accuracies given by --prior: "
            + ", ".join(f"{m} {a:g}" for m, a in doc["prior"].items())
        )
    if "trust" in doc:
        con.print(
            f"decided by the trusted member {doc['trust']['member']} (the majority on the "
            f"{doc['trust']['majority_rows']} rows it did not answer)"
        )
    if lf:
        e = lf["estimated_best_member"]
        con.print(
            f"label-free: [bold yellow]cannot tell which member is best[/] without labels. The agreement model "
            f"estimates {e} best and the difficulty vote {lf['advantage']:+.3f} ahead of it, but "
            "weak members that share wrong answers agree like accurate ones, so these are not claims."
        )
        for reason in lf["reasons"][1:]:
            con.print(f"  and {reason}")
        if lf.get("label_rows"):
            ids = ", ".join(map(str, lf["label_rows"][:5])) + (", ..." if len(lf["label_rows"]) > 5 else "")
            con.print(
                f"about {lf['labels_needed']} labels would rank the members; the rows worth labelling first: {ids} "
                "(--ask-labels N --ask-out FILE writes them for you to fill in; --labels FILE reads them back)"
            )
    risk = doc.get("risk")
    if risk:
        head = (
            f"[bold]error <= {risk['alpha']:g}[/] with probability >= {1 - risk['delta']:g} ({risk['rule']}; "
            f"tested on {risk['calibration']}): "
        )
        if risk["threshold"] is None:
            con.print(head + f"[bold yellow]abstains on every row[/] (bound {risk['method']}): {risk['reason']}")
        else:
            con.print(
                head + f"answers rows with confidence >= {risk['threshold']:.3f} (bound {risk['method']}), "
                f"coverage {risk['coverage']:.1%}; on the labelled rows {risk['calibration_errors']} errors "
                f"in {risk['calibration_answered']}, upper bound on the error among answered rows {risk['bound']:.3f} "
                "(the smallest error these labels certify at this coverage)"
            )
        if risk.get("unlabeled_rows"):
            real = f", realised error {risk['realised_error']:.3f}" if "realised_error" in risk else ""
            con.print(
                f"answered {risk['answered_unlabeled']} of the {risk['unlabeled_rows']} unlabelled rows "
                f"({risk['coverage_unlabeled']:.1%}){real}"
            )
    few = doc.get("few_label")
    if few:
        t = Table(
            title=f"learned from {few['labeled']} labels (prior strength {few['kappa']:.3g}); largest patterns",
            title_justify="left",
        )
        for col in ("classes", "problems", "labels: right per class", "trust", "model", "P(right)"):
            t.add_column(col)
        shown = few["rules"][:8]
        for r in shown:
            d = r["decision"]
            t.add_row(
                " | ".join(", ".join(b) for b in r["classes"]),
                str(r["problems"]),
                " | ".join(map(str, r["counts"])) + (f" (none right {r['none_counts']})" if r["none_counts"] else ""),
                (", ".join(r["trust"]) or "–") + (" *" if r.get("against_labels") else ""),
                "–" if d is None else f"{r['prior'][d]:.2f}",
                "–" if d is None else f"{r['posterior'][d]:.2f}",
            )
        con.print(t)
        if any(r.get("against_labels") for r in shown):
            con.print(
                "* another class was right on more of this pattern's labels: the model's prior ('model') outweighs "
                "so few labels; P(right) weighs both"
            )
    held = [v for v in doc.get("verdicts", []) if "held_out" in v]
    if held and "unlabeled" not in doc and "scored_on" not in doc:
        con.print(f"{len(held)} labelled rows, each scored as the jury answered without its label")
    un = doc.get("unlabeled")
    if un and un["rows"]:
        t = Table(
            title=f"on the {un['rows']} rows whose reference was not read (95% bootstrap CI)", title_justify="left"
        )
        for col in ("rule", "accuracy", "CI"):
            t.add_column(col)
        rows = [
            (f"jury ({doc['method']})", un["jury"]),
            ("jury, answered only", un.get("jury_answered")),
            (f"best member ({un['best_member']['name']}, by hindsight)", un["best_member"]),
            ("difficulty-class vote (label-free)", un.get("difficulty")),
            (f"best member on the labels ({un['best_member_on_labels']['name']})", un["best_member_on_labels"]),
            ("modal", un["modal"]),
            ("accuracy-weighted (accuracies from the labels)", un["accuracy_weighted"]),
            ("weighted (label-free)", un.get("weighted")),
            (f"label-free default ({un['label_free']['rule']})", un["label_free"]),
        ]
        for name, e in rows:
            if e is None:
                continue
            if e.get("note"):
                t.add_row(name, e["note"], "")
                continue
            t.add_row(name, _num(e["accuracy"]), _ci(e["ci"]))
        con.print(t)
