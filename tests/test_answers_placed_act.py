"""A yes/no question that places its act against another ("while the onions fried", "before the
eggs went in"), asked over real memory: an act that never happened happened at no time, so its
"No" is earned as a plain question's is; an act that may have happened never gets one."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from edge_assist.evaluation.qa_scoring import said_no
from edge_assist.inference.base import LLM, TextEncoder
from edge_assist.runtime.assistant import EgoMemoAssistant
from tests.assistant_memory import clip_level_assistant, stream_captions

SESSION = "placed-act"
# Captions of CaptainCook4D recording 16_1 (paraphrased variant), from its first egg on.
STREAM = [
    (5.0, "In the basin, I'm opening one egg."),
    (68.2, "Now I am tipping in one tbsp milk to the basin."),
    (103.1, "To the basin, I'm tossing in a third of a teaspoon salt."),
    (144.4, "In the dish, I'm whisking the egg mix."),
    (175.1, "Now I am warming two tablespoon cooking oil in a heavy-bottomed or nonstick skillet."),
    (248.0, "I tossed in diced onions to the skillet."),
    (280.1, "Now I am frying the onions on moderate heat till they are soft plus translucent."),
    (560.4, "Slowly, I'm emptying the whisked eggs in the pan."),
]


@pytest.fixture(scope="module")
def assistant(
    tmp_path_factory: pytest.TempPathFactory, llm: LLM, text_encoder: TextEncoder
) -> Iterator[EgoMemoAssistant]:
    captions = stream_captions(SESSION, STREAM)
    with clip_level_assistant(tmp_path_factory.mktemp("placed"), "placed", llm, text_encoder, captions) as a:
        yield a


@pytest.mark.slow
@pytest.mark.parametrize(
    "question",
    [
        "did I add basil while the onions were frying?",  # no basil anywhere in memory
        "did I add basil before the eggs went in the pan?",
        "did I put cheese in after the onions?",
    ],
)
async def test_an_act_on_a_thing_never_seen_is_a_no_wherever_it_is_placed(
    assistant: EgoMemoAssistant, question: str
) -> None:
    ans = await assistant.answer(question, session_id=SESSION, before_t=600.0)
    assert said_no(ans.text), ans.text
    thing = "basil" if "basil" in question else "cheese"
    assert "didn't see you" in ans.text and thing in ans.text, ans.text


@pytest.mark.slow
@pytest.mark.parametrize(
    "question",
    [
        "did I add salt while the onions were frying?",  # salt went in, into the basin: not shown absent
        "did I add milk before the eggs went in the pan?",
        "did I stir while the onions were frying?",  # no thing: nothing is shown absent
    ],
)
async def test_a_thing_memory_shows_or_an_act_placed_first_earns_no_no(
    assistant: EgoMemoAssistant, question: str
) -> None:
    ans = await assistant.answer(question, session_id=SESSION, before_t=600.0)
    assert not said_no(ans.text), ans.text
