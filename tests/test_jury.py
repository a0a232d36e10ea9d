"""The jury vote: answer classes, the seeded tie rule, abstention, and answer equivalence."""

from __future__ import annotations

import numpy as np
import pytest

from accord.consensus_core.jury._vote import MISSING, classify, run_jury, vote_codes
from accord.mathcheck.answers import MATH, AnswerGrader, normalize_text, text_equivalent


def test_modal_class_wins_and_agreement_is_its_share():
    res = run_jury([["42", "42 ", "41", None], ["a", "b", "b", "b"]])
    assert res.answers == ["42", "b"]
    assert res.agreement.tolist() == [pytest.approx(2 / 3), pytest.approx(3 / 4)]
    assert res.vote.answered.tolist() == [3, 4]
    assert not res.vote.tied.any()


def test_ties_are_broken_uniformly_by_the_seed_not_by_list_order():
    codes = np.tile(np.array([[0, 1, 2, 1, 0, 2]]), (3000, 1))  # three classes, two votes each
    v = vote_codes(codes, seed=3)
    assert v.tied.all()
    share = np.bincount(v.chosen, minlength=3) / 3000
    assert np.allclose(share, 1 / 3, atol=0.04)
    again = vote_codes(codes, seed=3)
    assert np.array_equal(v.chosen, again.chosen)
    other = vote_codes(codes, seed=4)
    assert not np.array_equal(v.chosen, other.chosen)


def test_tie_choice_does_not_follow_member_order():
    answers = [["x", "y"]] * 400
    first = np.mean([a == "x" for a in run_jury(answers, seed=0).answers])
    swapped = np.mean([a == "x" for a in run_jury([r[::-1] for r in answers], seed=0).answers])
    assert 0.4 < first < 0.6 and 0.4 < swapped < 0.6


def test_abstain_below_the_agreement_threshold():
    res = run_jury([["1", "1", "1", "2"], ["1", "2", "3", "1"]], min_agreement=0.6)
    assert res.answers == ["1", None]
    assert res.modal[1] == "1"
    assert res.abstained.tolist() == [False, True]


def test_nobody_answered_means_no_answer():
    res = run_jury([[None, None, None]])
    assert res.answers == [None] and res.vote.chosen[0] == MISSING


def test_bad_input_is_named():
    with pytest.raises(ValueError, match="problem 1 has 2 answers, expected 3"):
        run_jury([["a", "b", "c"], ["a", "b"]])
    with pytest.raises(ValueError, match="min_agreement"):
        run_jury([["a", "b"]], min_agreement=1.5)
    with pytest.raises(ValueError, match="string or None"):
        classify(["a", 3])
    with pytest.raises(ValueError, match="shape"):
        vote_codes(np.zeros(4, dtype=int))


def test_math_equivalence_merges_equal_values_and_keeps_words_apart():
    math_equivalent = AnswerGrader(MATH)
    assert math_equivalent("\\boxed{\\frac12}", "0.5")
    assert math_equivalent("1/2", "0.5")
    assert math_equivalent("2\\sqrt{2}", "\\sqrt{8}")
    assert math_equivalent("x = 3", "3")
    assert not math_equivalent("42", "43")
    assert not math_equivalent("hello", "olleh")
    codes = classify(["\\boxed{7}", "7.0", "8", "7"], math_equivalent)
    assert codes.tolist() == [0, 0, 1, 0]


def test_text_normalisation():
    assert normalize_text("  The  Answer. ") == "the answer"
    assert text_equivalent("Paris", "paris!")
    assert not text_equivalent("Paris", "Lyon")


def test_pluggable_equivalence():
    by_first_letter = lambda x, y: x[:1] == y[:1]  # noqa: E731
    res = run_jury([["apple", "avocado", "banana"]], equivalent=by_first_letter)
    assert res.answers == ["apple"] and res.vote.votes[0] == 2
