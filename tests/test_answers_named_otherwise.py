"""Questions whose thing the clip that answers names otherwise, asked over real memory: by "it"
after the clip before named it, by another name of its vessel, or by an appliance's verb; and a
thing the question means but does not say ("salt the eggs" means the salt)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from edge_assist.answers.answer_record import times_in
from edge_assist.evaluation.qa_scoring import said_yes
from edge_assist.inference.base import LLM, TextEncoder
from edge_assist.runtime.assistant import EgoMemoAssistant
from tests.assistant_memory import clip_level_assistant, stream_captions

SESSION = "named-otherwise"
# Captions of CaptainCook4D recordings 12_16, 16_1 and 27_9 (paraphrased variant), in one stream.
STREAM = [
    (2.5, "I rinsed a tomato."),
    (18.1, "Now I am handling gently dry it with a paper / tea towel."),
    (28.2, "I sliced one tomato in about half a inch thick slices."),
    (425.0, "In the basin, I'm opening one egg."),
    (488.2, "Now I am tipping in one tbsp milk to the basin."),
    (523.1, "To the basin, I'm tossing in a third of a teaspoon salt."),
    (564.4, "In the dish, I'm whisking the egg mix."),
    (595.1, "Now I am warming two tablespoon cooking oil in a heavy-bottomed or nonstick skillet."),
    (641.4, "I tossed in a third of a teaspoon salt to the skillet."),
    (668.0, "I tossed in diced onions to the skillet."),
    (700.1, "Now I am frying the onions on moderate heat till they are soft plus translucent."),
    (740.0, "In tiny bits, I'm dicing a quarter red bell pepper."),
    (797.4, "In the microwave-safe dish, I'm laying the diced pepper."),
    (831.2, "For two minutes, I'm microwaving the dish, covered."),
    (980.4, "Slowly, I'm emptying the whisked eggs in the pan."),
]
# Recording 9_19: the egg beaten in the mug, then the mug swirled with all it holds.
SWIRLED = "swirled-mug"
IN_THE_MUG = [
    (13.3, "In a big cup, I softened one tbsp of softened butter in the microwave for around thirty secs."),
    (324.2, "In the mug, I'm beating one egg with a fork until well blended."),
    (455.8, "To the cup, I'm tipping in a quarter tsp vanilla extract."),
    (530.2, "I swirled the cup."),
]


@pytest.fixture(scope="module")
def assistant(
    tmp_path_factory: pytest.TempPathFactory, llm: LLM, text_encoder: TextEncoder
) -> Iterator[EgoMemoAssistant]:
    captions = [*stream_captions(SESSION, STREAM), *stream_captions(SWIRLED, IN_THE_MUG)]
    with clip_level_assistant(
        tmp_path_factory.mktemp("named-otherwise"), "named-otherwise", llm, text_encoder, captions
    ) as a:
        yield a


@pytest.mark.slow
@pytest.mark.parametrize(
    ("question", "t0"),
    [
        ("did I dry the tomato off?", 18.1),  # "dry it", right after the tomato was rinsed
        ("when did I dry the tomato?", 18.1),
        ("When did I salt the eggs in the bowl?", 523.1),  # the salt, into the basin
        ("Was the bowl covered in the microwave?", 831.2),  # the dish, microwaving
    ],
)
async def test_a_thing_named_otherwise_is_found_at_its_time(
    assistant: EgoMemoAssistant, question: str, t0: float
) -> None:
    ans = await assistant.answer(question, session_id=SESSION)
    if question.lower().startswith(("did", "was")):
        assert said_yes(ans.text), ans.text
    assert any(abs(t - t0) <= 20 for t in times_in(ans.text)), ans.text


@pytest.mark.slow
async def test_a_caption_that_tells_the_act_on_the_thing_comes_before_one_read_with_its_vessel(
    assistant: EgoMemoAssistant,
) -> None:
    # "I swirled the cup" is read with the egg, butter and vanilla it held; the beating names the egg
    ans = await assistant.answer("when did I beat the egg?", session_id=SWIRLED)
    assert any(abs(t - 324.2) <= 20 for t in times_in(ans.text)), ans.text
