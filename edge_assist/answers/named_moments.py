"""Moments that name the thing a question asks about, which retrieval by sentence vector missed.

Retrieval ranks captions by how close their sentence vector is to the question's focus: "did
I crack one egg in a bowl?" may rank "grinding black pepper to the dish" above "I'm breaking
an egg into the basin", and only the best few go on. A caption that names the thing asked
about (in any number, or as a member of a general word: answers/meaning.py) is evidence to
weigh whatever its sentence vector says, so the few closest of them that were left out join
the candidates; the answer gate still decides whether any of them answers.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from edge_assist.answers import contents, meaning, thing_naming
from edge_assist.answers.act_said_as import PLACES
from edge_assist.clock import Clock
from edge_assist.inference.base import TextEncoder
from edge_assist.retrieval.api import Moment
from edge_assist.retrieval.recall import Recall
from edge_assist.text.action_families import BROAD

# How many left-out moments naming the thing may join: few, so a thing named all through a
# recording ("the bowl") does not crowd the candidates.
MORE = 3


async def naming(
    recall: Recall,
    clock: Clock,
    encoder: TextEncoder,
    focus: str,
    found: Sequence[Moment],
    *,
    before_t: float,
    session_id: str | None,
) -> list[Moment]:
    """Up to `MORE` moments of the session that name the thing the focus asks about and are not in
    `found`, closest first, scored as retrieval scores (sentence cosine to the focus)."""
    # "salt the eggs" is about the eggs and, as it is meant (adding salt to them), the salt
    named = list(dict.fromkeys(t for f in (focus, meaning.implied(focus)) if (t := meaning.parse(f).thing)))
    if not named or session_id is None:
        return []
    clips, vecs = await clock.run_blocking(recall.clips_in_period, session_id, 0.0, before_t)
    have = {(m.session_id, m.clip_index) for m in found}
    left_out = [
        i for i, c in enumerate(clips) if (c.session_id, c.clip_index) not in have and c.t1 <= before_t + 1e-6
    ]
    if not left_out:
        return []
    q = np.asarray(await clock.run_blocking(encoder.encode, [focus]))[0]
    scores = {i: float(np.asarray(vecs[i]) @ q) for i in left_out}
    # read as answers read them (contents.readings): "dry it with a towel" dries the tomato rinsed just before
    order = sorted(range(len(clips)), key=lambda i: (clips[i].t0, clips[i].clip_index))
    told = dict(zip(order, contents.readings(clips[i].text for i in order), strict=True))
    best: list[int] = []
    # a verb that only places or gets a thing ("get the spinach out") tells too little to rank by
    verb = meaning.parse(focus).verb
    ranks_by_act = bool(verb) and verb not in PLACES and verb not in BROAD
    for thing in named:
        picked = [
            i for i in left_out if i not in best and thing_naming.thing_in(thing, told[i] or clips[i].text)
        ]
        # those that tell the act asked about on the thing first ("places flour tortilla in the
        # microwave" for "did I warm up the tortillas?"), then the closest
        picked.sort(
            key=lambda i: (not (ranks_by_act and _tells_act(focus, told[i] or clips[i].text)), -scores[i])
        )
        best += picked[:MORE]
    return [
        Moment(
            clips[i].session_id,
            clips[i].clip_index,
            clips[i].t0,
            clips[i].t1,
            clips[i].text,
            round(scores[i], 4),
        )
        for i in best
    ]


def _tells_act(focus: str, caption: str) -> bool:
    """Whether the caption tells the focus's own act on its thing."""
    return meaning.read(focus, caption).restated is not None
