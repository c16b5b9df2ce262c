"""Two-hop questions over a real small memory: MiniLM, sqlite-vec, the lexical entity parse, Kùzu.

Yesterday a cup went on the tray and the tray was carried; today a mug, a bowl and a spoon
went on it, the spoon came off again, the tray was carried, and a plate went on it after and
came off before the tray was carried again.
The red bowl was used with eggs and a whisk twice, then poured from into a pan.
"""

from __future__ import annotations

import asyncio
import math
from collections.abc import Iterator

import pytest

from edge_assist.answers import multi_hop
from edge_assist.clock import RealClock
from edge_assist.config import Config
from edge_assist.events import Caption
from edge_assist.inference.base import TextEncoder
from edge_assist.memory.graph_hops import GraphHops
from edge_assist.memory.memory import Memory
from edge_assist.retrieval.relations import Relations

YESTERDAY = ["C puts the cup on the tray", "C carries the tray to the table"]
TODAY = [
    "C puts the mug on the tray",  # 0:00-0:10
    "C places the bowl on the tray",
    "C puts the spoon on the tray",
    "C takes the spoon from the tray",
    "C carries the tray to the table",  # 0:40-0:50
    "C mixes the eggs in the red bowl with a whisk",  # 0:50-1:00
    "C beats the eggs in the red bowl with the whisk",
    "C pours the batter from the red bowl into the pan",
    "C puts the plate on the tray",  # 1:20-1:30, after the carry
    "C takes the plate from the tray",
    "C carries the tray to the sink",  # 1:40-1:50, with nothing on it
]
DAY_S = 86_400.0


@pytest.fixture(scope="module")
def memory(tmp_path_factory: pytest.TempPathFactory, text_encoder: TextEncoder) -> Iterator[Memory]:
    wall = [1_000_000.0]
    cfg = Config().replace(
        **{"general.data_dir": str(tmp_path_factory.mktemp("hops")), "memory.entity_extractor": "lexical"}
    )
    with Memory.open(cfg, None, text_encoder, wall=lambda: wall[0]) as mem:
        for sid, texts in (("yesterday", YESTERDAY), ("today", TODAY)):
            for i, text in enumerate(texts):
                mem.store_caption(Caption(10.0 * i + 10, sid, i, 10.0 * i, 10.0 * i + 10, text))
            mem.update_graph()
            wall[0] += DAY_S  # the next session begins a day later
        yield mem


def ask(memory: Memory, question: str, before_t: float, past: bool = True) -> multi_hop.MultiHopAnswer | None:
    relations = Relations(memory, GraphHops(memory.graph))
    return asyncio.run(
        multi_hop.answer(
            relations, RealClock(), question, before_t=before_t, session_id="today", past_sessions=past
        )
    )


@pytest.mark.slow
def test_what_was_on_the_tray_i_carried(memory: Memory) -> None:
    got = ask(memory, "What was on the tray I carried?", before_t=100.0)
    assert got is not None
    # The spoon came off before the carry; the plate went on after it.
    assert got.text == "At 0:40, the tray you carried had the mug and the bowl on it."
    assert (got.moment.session_id, got.moment.clip_index) == ("today", 4)
    assert {m.clip_index for m in got.evidence} == {0, 1, 4}


@pytest.mark.slow
def test_before_todays_carry_the_answer_is_yesterdays(memory: Memory) -> None:
    got = ask(memory, "what was on the tray that I carried", before_t=45.0)  # the carry ends at 50 s
    assert got is not None and got.moment.session_id == "yesterday"
    assert got.text.startswith("Yesterday, the tray you carried had the cup on it")
    assert ask(memory, "what was on the tray that I carried", before_t=45.0, past=False) is None


@pytest.mark.slow
def test_the_latest_act_is_the_one_asked_about(memory: Memory) -> None:
    # The second carry had nothing on the tray: no answer from the first one, the grounded answer decides.
    assert ask(memory, "What was on the tray I carried?", before_t=200.0) is None


@pytest.mark.slow
def test_what_did_i_use_the_red_bowl_with(memory: Memory) -> None:
    got = ask(memory, "What did I use the red bowl with?", before_t=100.0)
    assert got is not None
    # Eggs and whisk share two clips with it; the batter and the pan one each, the latest (names break ties).
    assert got.text == "At 1:00 you used the red bowl with the eggs, the whisk and the batter."
    early = ask(memory, "what did I use with the red bowl", before_t=60.0)  # only the first mixing
    assert early is not None and early.text == "At 0:50 you used the red bowl with the eggs and the whisk."


@pytest.mark.slow
def test_other_questions_and_unknown_things_are_left_to_the_grounded_answer(memory: Memory) -> None:
    assert ask(memory, "What did I do after I carried the tray?", before_t=100.0) is None
    assert ask(memory, "What was on the trolley I pushed?", before_t=100.0) is None
    assert ask(memory, "What was on the tray I juggled?", before_t=100.0) is None  # never done
    assert ask(memory, "What did I use the red bowl with?", before_t=50.0, past=False) is None


@pytest.mark.slow
def test_the_hops_read_nothing_after_now(memory: Memory) -> None:
    hops = GraphHops(memory.graph)
    assert [x.clip_index for x in hops.sightings("tray", "today", before=40.0, n=64)] == [3, 2, 1, 0]
    assert {x.key for x in hops.co_seen("red bowl", "today", before=70.0)} == {"egg", "whisk"}
    assert {x.key for x in hops.related("tray", "today", after=-1.0, before=math.inf)} == {
        "mug",
        "bowl",
        "spoon",
        "table",
        "plate",
        "sink",
    }
    assert hops.sessions_seen("tray", ["today", "yesterday", "tomorrow"]) == {"today", "yesterday"}


@pytest.mark.parametrize(
    ("question", "asked"),
    [
        ("What was on the tray I carried?", ("on", "tray", "on", "carried")),
        ("what was in the box you brought to the table", ("on", "box", "in", "brought")),
        ("What were on top of the red tray?", ("on", "red tray", "on", "")),
        ("What did I use the red bowl with?", ("with", "red bowl", "", "")),
        ("what else did you use together with the whisk", ("with", "whisk", "", "")),
    ],
)
def test_the_question_shapes(question: str, asked: tuple[str, str, str, str]) -> None:
    got = multi_hop.parse(question)
    assert got is not None and (got.kind, got.anchor, got.prep, got.verb) == asked


def test_an_act_is_told_in_any_form_of_its_verb() -> None:
    carried = multi_hop.tells("carried")
    assert carried("C carries the tray") and carried("carrying the tray") and carried("I carry it")
    assert not carried("C puts the mug on the tray")
    assert multi_hop.tells("brought")("C brings the box") and multi_hop.tells("used")("she uses a pan")


@pytest.mark.slow
def test_the_grounded_answerer_asks_the_graph_for_a_two_hop_question(
    memory: Memory, text_encoder: TextEncoder
) -> None:
    """The answer the wearer gets (live, `ask`, offline) comes from the two hops, through retrieval."""
    from typing import cast

    from edge_assist.answers.grounded import GroundedAnswerer
    from edge_assist.inference.base import LLM
    from edge_assist.retrieval.recall import Recall

    cfg = memory.cfg
    answerer = GroundedAnswerer(cfg, cast(LLM, None), text_encoder, Recall(memory), clock=RealClock())
    got = asyncio.run(
        answerer.answer(
            "What was on the tray I carried?", before_t=100.0, session_id="today", past_sessions=True
        )
    )
    assert (
        got.kind == "related" and got.text == "At 0:40, the tray you carried had the mug and the bowl on it."
    )
    assert got.trace["answerer"] == "multi_hop" and got.moment is not None and got.moment.clip_index == 4
