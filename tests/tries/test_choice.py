"""Which answer a trial keeps: the majority, unless a check fails on it; ties by checks that show
the values, then turns; stop once two agree; agreement counts only between independent tries."""

from __future__ import annotations

import itertools

from hillclimber.grades import DONE, Grade, grade, grade_from
from hillclimber.tries.choice import TryRecord, choose, groups_of, settled
from hillclimber.verify.verifier import Evaluation


def tried(
    index: int, answer: str, *, passed: bool | None = True, values: int = 0, turns: int = 5
) -> TryRecord:
    return TryRecord(
        index=index,
        seed=index,
        temperature=0.5,
        answer=answer,
        checks_passed=passed,
        value_passing=values,
        turns=turns,
    )


def test_the_majority_is_kept() -> None:
    record = choose(
        [tried(1, "a"), tried(2, "b"), tried(3, "b", turns=9)],
        planned=3,
        stop="agreement",
        independent=True,
    )
    assert record.groups == [[2, 3], [1]]
    assert record.chosen == 2 and record.agreed
    assert "2 of 3 tries left the same answer" in record.why


def test_a_failing_check_outranks_numbers() -> None:
    record = choose(
        [tried(1, "a", passed=False), tried(2, "a", passed=False), tried(3, "b")],
        planned=3,
        stop="agreement",
        independent=True,
    )
    assert record.chosen == 3 and not record.agreed


def test_ties_go_to_more_value_checks_passing_then_fewer_turns() -> None:
    by_values = choose(
        [tried(1, "a", values=0), tried(2, "b", values=2)],
        planned=2,
        stop="all",
        independent=True,
    )
    assert by_values.chosen == 2 and not by_values.agreed
    by_turns = choose(
        [tried(1, "a", turns=8), tried(2, "b", turns=3)], planned=2, stop="all", independent=True
    )
    assert by_turns.chosen == 2


def test_within_the_kept_group_the_try_with_fewest_turns_is_kept() -> None:
    record = choose(
        [tried(1, "a", turns=9), tried(2, "a", turns=4)], planned=3, stop="all", independent=True
    )
    assert record.chosen == 2 and record.groups == [[1, 2]]


def test_tries_that_left_nothing_never_agree() -> None:
    tries = [tried(1, "", passed=None), tried(2, "", passed=None)]
    assert [len(g) for g in groups_of(tries)] == [1, 1]
    assert not settled(tries)
    assert not choose(tries, planned=2, stop="agreement", independent=True).agreed


def test_two_agreeing_without_a_failing_check_settle_it() -> None:
    assert not settled([tried(1, "a")])
    assert not settled([tried(1, "a"), tried(2, "b")])
    assert settled([tried(1, "a"), tried(2, "b"), tried(3, "a")])
    assert not settled([tried(1, "a", passed=False), tried(2, "a", passed=False)])
    assert settled([tried(1, "a", passed=None), tried(2, "a", passed=None)])  # no checks


def test_agreement_of_a_back_end_that_does_not_sample_counts_for_nothing() -> None:
    record = choose([tried(1, "a"), tried(2, "a")], planned=3, stop="agreement", independent=False)
    assert not record.agreed and "not independent" in record.why


def test_agreement_on_lines_of_the_instruction_counts_for_nothing() -> None:
    """Two tries that both wrote the instruction's example out (the 1.5B's two tries on a
    findings file: `working_method: both` as the example showed it, and wrong) could not have
    differed: the kept answer is the same, but not agreed, and the third try is not needed."""
    copied = [tried(1, "a").model_copy(update={"copied": True}) for _ in range(2)]
    copied[1] = copied[1].model_copy(update={"index": 2, "seed": 2})
    record = choose(copied, planned=3, stop="agreement", independent=True)
    assert record.groups == [[1, 2]] and not record.agreed and not record.disputed
    assert "lines of the instruction" in record.why
    assert settled(copied)  # a third try would not change the choice
    # the same values in another layout (minified JSON): one of the two copied, so both did
    one_copied = [copied[0], copied[1].model_copy(update={"copied": False})]
    assert not choose(one_copied, planned=3, stop="agreement", independent=True).agreed


def evaluation(passed: bool, strength: str = "value") -> Evaluation:
    return Evaluation(passed=passed, passing=1, total=1, strength=strength)  # type: ignore[arg-type]


def test_grades() -> None:
    assert grade(evaluation(False), agreed=True) is Grade.FAILED
    assert grade(evaluation(True, "weak"), agreed=True) is Grade.AGREED
    assert grade(None, agreed=True) is Grade.AGREED
    assert grade(evaluation(True)) is Grade.VERIFIED
    assert grade(evaluation(True, "form")) is Grade.PLAUSIBLE
    assert grade(None) is Grade.UNCHECKED


def test_an_answer_no_other_try_left_again_is_disputed() -> None:
    """Three different answers: the kept one is disputed; tries that left nothing do not
    dispute it, and a back end that does not sample disputes nothing."""
    three = [tried(1, "a"), tried(2, "b"), tried(3, "c")]
    assert choose(three, planned=3, stop="agreement", independent=True).disputed
    assert not choose(three, planned=3, stop="agreement", independent=False).disputed
    alone = [tried(1, "a"), tried(2, ""), tried(3, "")]
    assert not choose(alone, planned=3, stop="agreement", independent=True).disputed
    agreed = choose([tried(1, "a"), tried(2, "b"), tried(3, "a")], planned=3, stop="agreement",
                    independent=True)  # fmt: skip
    assert agreed.agreed and not agreed.disputed


def test_a_disputed_answer_is_done_only_on_a_check_that_shows_the_values() -> None:
    assert grade(evaluation(True, "form"), disputed=True) is Grade.DISPUTED
    assert grade(evaluation(True, "weak"), disputed=True) is Grade.DISPUTED
    assert grade(evaluation(True), disputed=True) is Grade.VERIFIED
    assert grade(evaluation(False), disputed=True) is Grade.FAILED
    assert Grade.DISPUTED not in DONE


def test_a_grade_from_the_facts_is_the_grade_of_the_evaluation() -> None:
    """What a try's record holds (passed, a value check passing) grades as its evaluation
    does: `benchmarks/reanswer.py` grades from the record, a trial from the evaluation."""
    for passed, strength, agreed, disputed in itertools.product(
        (True, False), ("weak", "form", "value"), (True, False), (True, False)
    ):
        facts = grade_from(
            passed=passed, conclusive=passed and strength == "value", agreed=agreed,
            disputed=disputed,
        )  # fmt: skip
        assert facts is grade(evaluation(passed, strength), agreed=agreed, disputed=disputed)
    assert grade_from(passed=None, conclusive=False, agreed=False, disputed=True) is grade(
        None, disputed=True
    )
