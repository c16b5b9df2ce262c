"""An act a caption says was not done is a "No", unless a moment tells it done."""

from __future__ import annotations

from edge_assist.answers.negated import negated_no
from edge_assist.retrieval.api import Moment

SPRAYED = Moment("s", 1, 110.0, 160.0, "Now I am covering a six - oz. ramekin mug with cooking spray.", 0.5)
UNCOVERED = Moment(
    "s", 3, 237.0, 258.0, "On full power for thirty secs, I'm nuking the ramekin mug uncovered.", 0.5
)
NO_STIR = Moment("s", 4, 300.0, 320.0, "In between, I'm zapping for two minutes, no stirring.", 0.5)


def test_a_caption_that_says_the_act_was_not_done_earns_a_no() -> None:
    got = negated_no("cover the ramekin when i microwaved it", [SPRAYED, UNCOVERED])
    assert got is not None and got[1] is UNCOVERED and got[0].startswith("No: at 3:57")
    # the question's own clause names the act the caption tells ("in the microwave": zapping)
    got = negated_no("stir the eggs while they were in the microwave", [NO_STIR])
    assert got is not None and got[1] is NO_STIR


def test_no_no_when_a_moment_tells_the_act_or_the_caption_is_about_something_else() -> None:
    stirred = Moment("s", 5, 400.0, 420.0, "Stirring the eggs in the mug.", 0.5)
    zapped_again = Moment("s", 6, 430.0, 460.0, "Zapping the mug for thirty more seconds.", 0.5)
    # stirred between two zaps: within the microwaving, whatever the first zap's caption says
    asked = "stir the eggs while they were in the microwave"
    assert negated_no(asked, [NO_STIR, stirred, zapped_again]) is None
    assert negated_no("stir the eggs", [NO_STIR]) is None  # neither the eggs nor the time named
    lidded = Moment("s", 6, 500.0, 520.0, "I covered the ramekin with a plate.", 0.5)
    assert negated_no("cover the ramekin", [UNCOVERED, lidded]) is None


def test_a_caption_of_the_clauses_act_speaks_of_that_stretch_only() -> None:
    beaten = Moment("s", 2, 250.0, 280.0, "I beat the egg.", 0.5)
    whipped_after = Moment("s", 7, 500.0, 520.0, "Now I am whipping the egg.", 0.5)
    for asked in (
        "stir the eggs while they were in the microwave",
        "stir it halfway through microwaving",
        "stir it partway through the microwaving",
        "stir it during the microwaving",
    ):
        got = negated_no(asked, [beaten, NO_STIR, whipped_after])
        assert got is not None and got[1] is NO_STIR, asked
    # with no clause, a moment telling the act anywhere keeps the "No" from being said
    assert negated_no("stir the eggs", [beaten, NO_STIR]) is None


def test_only_the_asked_verb_itself_is_negated() -> None:
    assert negated_no("grease the cup", [UNCOVERED]) is None  # no lid is no word on the grease


def test_an_act_told_with_do_not_is_not_done() -> None:
    oil = Moment(
        "s", 3, 211.0, 244.0, "In a non-stick frying skillet, but don't heat, I'm setting one tbsp oil.", 0.5
    )
    got = negated_no("heat the oil", [oil])
    assert got is not None and got[0].startswith("No: at 3:31"), got
    assert negated_no("pour the oil", [oil]) is None  # only the act said not done
