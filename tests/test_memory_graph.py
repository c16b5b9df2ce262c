"""The entity graph on the real Kùzu: resolution, idempotent MERGE, one-hop, causality."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from edge_assist.config import Config
from edge_assist.inference.base import LLM, TextEncoder
from edge_assist.inference.loader import load_llm
from edge_assist.inference.remote import RemoteLLM
from edge_assist.memory.entities import entity_key, extract, resolve
from edge_assist.memory.graph import EntityGraph
from edge_assist.memory.lexical import extract_lexical
from tests.conftest import closed_after
from tests.fakes import ChatServer
from tests.test_memory_streams import SHORT, memory_config, stream


@pytest.mark.parametrize(
    ("names", "key"),
    [
        (["the knife", "a knife", "knives", "Knife", "THE KNIVES!"], "knife"),
        (["tomatoes", "a tomato", "the Tomatoes"], "tomato"),
        (["the fridge", "Refrigerator", "fridges"], "refrigerator"),
        (["dental floss", "the dental floss"], "dental floss"),
        (["some berries", "berry"], "berry"),
        (["a glass", "glasses"], "glass"),
        (["English muffins", "the english muffin"], "english muffin"),
    ],
)
def test_one_real_thing_is_one_key(names: list[str], key: str) -> None:
    assert {entity_key(n) for n in names} == {key}


def test_hallucinated_names_are_dropped() -> None:
    raw = {
        "entities": [{"name": "knives", "kind": "tool"}, {"name": "nut butter", "kind": "food"}],
        "relations": [
            {"subject": "the knife", "relation": "Cuts!", "object": "a tomato"},
            {"subject": "knife", "relation": "scoops", "object": "nut butter"},
        ],
    }
    ex = resolve(raw, "I cut the tomatoes with a knife")
    assert [e[0] for e in ex.entities] == ["knife", "tomato"]
    assert ex.relations == (("knife", "cuts", "tomato"),)


def _graph(tmp_path: Path) -> EntityGraph:
    g, created = EntityGraph.open(tmp_path / "g.kuzu")
    assert created
    return g


def test_merge_is_idempotent_and_one_hop_is_causal(tmp_path: Path) -> None:
    g = _graph(tmp_path)
    s = "kitchen"
    c1 = resolve(
        {
            "entities": [{"name": "the knife", "kind": "tool"}, {"name": "tomatoes", "kind": "food"}],
            "relations": [{"subject": "knife", "relation": "cuts", "object": "tomatoes"}],
        },
        "I slice the tomatoes with the knife",
    )
    c2 = resolve(
        {
            "entities": [{"name": "a knife", "kind": "tool"}, {"name": "cutting board", "kind": "object"}],
            "relations": [{"subject": "knife", "relation": "lies on", "object": "cutting board"}],
        },
        "a knife lies on the cutting board",
    )
    c3 = resolve(
        {
            "entities": [{"name": "knives", "kind": "tool"}, {"name": "sink", "kind": "place"}],
            "relations": [{"subject": "knives", "relation": "washed in", "object": "sink"}],
        },
        "knives are washed in the sink",
    )
    for _ in range(2):  # applying twice (a replay after a kill) must change nothing
        g.apply(s, 0, 0.0, 10.0, c1)
        g.apply(s, 1, 10.0, 20.0, c2)
        g.apply(s, 2, 20.0, 30.0, c3)
    assert g.counts() == {"entities": 4, "clips": 3, "seen_in": 6, "relations": 3}
    [hit] = g.neighbourhood(["Knives"], before_t=100.0, k=5)
    assert hit.clip_indices == (0, 1, 2) and hit.score == 1.0
    assert {(r, o) for r, o, _, _ in hit.neighbours} == {
        ("cuts", "tomatoes"),
        ("lies on", "cutting board"),
        ("washed in", "sink"),
    }
    # One hop from the tomato reaches the knife, and the clips the knife was seen in.
    [tom] = g.neighbourhood(["tomato"], before_t=100.0, k=5)
    assert tom.neighbours[0][:2] == ("inverse of cuts", "the knife")
    assert tom.neighbour_clip_indices == (1, 2)
    # At t = 20 s clip 2 (ends at 30 s) and its sink relation do not exist yet.
    [early] = g.neighbourhood(["knife"], before_t=20.0, k=5)
    assert early.clip_indices == (0, 1) and all(t <= 20.0 for *_, t in early.neighbours)
    assert g.neighbourhood(["sink"], before_t=20.0, k=5) == []
    # A part of a name finds the whole ("board" -> "cutting board") with a lower score.
    [board] = g.neighbourhood(["board"], before_t=100.0, k=5)
    assert board.name == "cutting board" and board.score < 1.0
    g.forget([(s, 0), (s, 1)])
    assert g.counts() == {"entities": 2, "clips": 1, "seen_in": 2, "relations": 1}
    g.close()


@pytest.fixture(scope="module")
def bg_llm() -> Iterator[LLM]:
    # One thread: the memory writer runs in the background and must leave a core to the reasoner.
    yield from closed_after(load_llm(Config().replace(**{"models.threads": 1})))


@pytest.mark.heavy
@pytest.mark.slow
def test_real_llm_extraction_builds_a_linked_graph(
    tmp_path: Path, bg_llm: LLM, text_encoder: TextEncoder
) -> None:
    from edge_assist.memory.memory import Memory

    caps = stream(SHORT)[:4]  # egg, microwave ramekin cup, stir ramekin cup, oil into ramekin cup
    with Memory.open(
        memory_config(tmp_path, **{"memory.entity_extractor": "llm"}), bg_llm, text_encoder
    ) as mem:
        for c in caps:
            mem.store_caption(c)
        assert mem.update_graph() == 4 and mem.update_graph() == 0  # one LLM call per caption, once
        keys = {k for k, _, _ in mem.graph.entities()}
        assert keys, "SmolLM2 found no entity in four cooking steps"
        hits = mem.graph_neighbourhood(["ramekin cup"], before_t=1e9, k=3)
        if "ramekin cup" in keys:
            assert hits[0].clip_indices == (1, 2, 3)
        assert all(set(h.clip_indices) <= {0, 1, 2, 3} for h in hits)
    direct = extract(bg_llm, "Pour 1 egg into the bowl")
    assert all(e[0] in {"egg", "bowl"} for e in direct.entities)


@pytest.mark.parametrize(
    ("caption", "keys", "relation"),
    [
        ("Pour 1 egg into the bowl", ["egg", "bowl"], ("egg", "pour into", "bowl")),
        ("Microwave the ramekin cup uncovered on medium for 60 seconds", ["ramekin cup", "microwave"], None),
        (
            "Coat a 6-oz. ramekin cup with cooking spray",
            ["ramekin cup", "cooking spray"],
            ("ramekin cup", "coat with", "cooking spray"),
        ),
        (
            "Add 1/2 cup of chopped onions to the frying pan and stir gently",
            ["onion", "frying pan"],
            ("onion", "add to", "frying pan"),
        ),
        (
            "Use a butter knife to scoop nut butter from the jar",
            ["butter knife", "nut butter", "jar"],
            ("nut butter", "scoop from", "jar"),
        ),
        ("C picks up a knife from the table", ["knife", "table"], ("knife", "picks up from", "table")),
        ("add salt and pepper to taste", ["salt", "pepper"], None),
        (
            "Continue to microwave for 15-30 more seconds or until the egg is almost set",
            ["microwave", "egg"],
            None,
        ),
    ],
)
def test_the_lexical_parse_finds_the_things_a_caption_names(
    caption: str, keys: list[str], relation: tuple[str, str, str] | None
) -> None:
    ex = extract_lexical(caption)
    assert [k for k, _, _ in ex.entities] == keys
    assert (relation in ex.relations) if relation else not ex.relations
    # Every name is a span of the caption: nothing from a prompt example can leak in.
    assert all(
        resolve({"entities": [{"name": n, "kind": "other"}]}, caption).entities for _, n, _ in ex.entities
    )


def test_lexical_extraction_builds_the_linked_graph_without_an_llm(
    tmp_path: Path, text_encoder: TextEncoder
) -> None:
    from edge_assist.memory.memory import Memory

    caps = stream(SHORT)[:4]
    with Memory.open(
        memory_config(tmp_path, **{"memory.entity_extractor": "lexical"}), None, text_encoder
    ) as mem:
        for c in caps:
            mem.store_caption(c)
        assert mem.update_graph() == 0 and mem.stats()["graph_pending"] == 0  # no LLM call, nothing left
        keys = {k for k, _, _ in mem.graph.entities()}
        assert {"egg", "bowl", "ramekin cup"} <= keys
        hits = mem.graph_neighbourhood(["ramekin cup"], before_t=1e9, k=3)
        assert hits[0].name == "ramekin cup" and hits[0].clip_indices == (1, 2, 3)
        assert mem.graph_neighbourhood(["egg"], before_t=1e9, k=3)[0].clip_indices == (0,)


# What a model would name in the first captions of SHORT; each caption keeps the names it holds.
SCRIPTED_ENTITIES = {
    "entities": [
        {"name": "egg", "kind": "food"},
        {"name": "bowl", "kind": "container"},
        {"name": "ramekin cup", "kind": "container"},
        {"name": "microwave", "kind": "appliance"},
    ],
    "relations": [{"subject": "egg", "relation": "pour into", "object": "bowl"}],
}


@pytest.fixture(params=["scripted", pytest.param("smollm2", marks=pytest.mark.heavy)])
def extractor(request: pytest.FixtureRequest, server: ChatServer) -> LLM:
    """SmolLM2 (the long suite), or a scripted server at the network edge: the batching is
    the same, only the names differ."""
    if request.param == "smollm2":
        return request.getfixturevalue("bg_llm")
    server.reply = lambda body: json.dumps(SCRIPTED_ENTITIES)
    return RemoteLLM(Config().replace(**{"remote.base_url": server.url, "remote.retries": 0}).remote)


@pytest.mark.slow
def test_batched_llm_extraction_waits_for_a_full_batch(
    tmp_path: Path, extractor: LLM, text_encoder: TextEncoder
) -> None:
    from edge_assist.memory.memory import Memory

    caps = stream(SHORT)[:4]
    cfg = memory_config(tmp_path, **{"memory.entity_extractor": "llm-batch", "memory.entity_batch": 3})
    with Memory.open(cfg, extractor, text_encoder) as mem:
        calls = []
        for c in caps:
            mem.store_caption(c)
            calls.append(mem.update_graph())
        assert calls == [0, 0, 1, 0]  # one call for the first three captions; the fourth waits
        assert mem.stats()["graph_pending"] == 1
        assert mem.update_graph(force=True) == 1 and mem.stats()["graph_pending"] == 0
        assert mem.llm_calls["entities"] == 2
        # Each caption holds only names grounded in its own text.
        for row in mem.export():
            if row.get("type") == "clip" and row["entities"]:
                for _key, name, _kind in row["entities"]["entities"]:
                    assert resolve({"entities": [{"name": name, "kind": "other"}]}, row["text"]).entities, (
                        name,
                        row,
                    )


def test_a_common_word_matches_a_bounded_number_of_names(tmp_path: Path) -> None:
    from edge_assist.memory.entities import Extraction
    from edge_assist.memory.graph import MAX_PARTIAL_MATCHES

    g, _ = EntityGraph.open(tmp_path / "g.kuzu")
    try:
        kinds = [
            "glass",
            "mixing",
            "small",
            "big",
            "red",
            "blue",
            "soup",
            "salad",
            "cereal",
            "metal",
            "wooden",
            "steel",
        ]
        names = ["bowl"] + [f"{k} bowl" for k in kinds] + ["large glass salad bowl"]
        g.apply("s", 0, 0.0, 10.0, Extraction(tuple((n, n, "object") for n in names), ()))
        found = g.find(["bowl"])
        assert found["bowl"][2] == 1.0
        partial = sorted(k for k, v in found.items() if v[2] < 1.0)
        # The shortest names first: the four-word one never crowds out a two-word one.
        assert len(partial) == MAX_PARTIAL_MATCHES and "large glass salad bowl" not in partial
        g.apply(
            "s", 1, 10.0, 20.0, Extraction((("ladle", "ladle", "tool"),), ())
        )  # the word map follows writes
        assert set(g.find(["ladle"])) == {"ladle"}
    finally:
        g.close()


def test_neighbours_at_the_same_moment_come_in_the_same_order_in_every_process(tmp_path: Path) -> None:
    """One caption relates a thing to several others at once: those neighbours share a time.
    Their order went by string hashes, which Python salts per process, so two runs of one
    replay could show the reasoner the same neighbours in different orders (item 7)."""
    import os
    import subprocess
    import sys

    g = _graph(tmp_path)
    names = ("cup", "table", "bowl", "water", "spoon")
    ex = resolve(
        {
            "entities": [{"name": n, "kind": "object"} for n in names],
            "relations": [
                {"subject": "cup", "relation": r, "object": o}
                for r, o in (("on", "table"), ("near", "bowl"), ("holds", "water"), ("beside", "spoon"))
            ],
        },
        "the cup of water is on the table near the bowl beside the spoon",
    )
    g.apply("kitchen", 0, 0.0, 10.0, ex)
    g.close()
    code = (
        "import sys; from pathlib import Path; from edge_assist.memory.graph import EntityGraph; "
        "g, _ = EntityGraph.open(Path(sys.argv[1])); "
        "print([h.neighbours for h in g.neighbourhood(['cup'], before_t=1e9, k=3)])"
    )
    outs = set()
    for seed in ("1", "2", "3", "4"):
        r = subprocess.run(
            [sys.executable, "-c", code, str(tmp_path / "g.kuzu")],
            capture_output=True,
            text=True,
            env={**os.environ, "PYTHONHASHSEED": seed},
            timeout=120,
        )
        assert r.returncode == 0, r.stderr
        outs.add(r.stdout)
    assert len(outs) == 1
    neighbours = eval(outs.pop())[0]  # one hit: its neighbours, in time order, ties by relation and name
    assert len(neighbours) >= 3 and list(neighbours) == sorted(neighbours, key=lambda x: (x[3], x))
