"""The answer gate's word features read by what a question names, not by how it is worded.

The recall of answers/support.py matches every content word of the question's focus to its
closest caption word, so each word of the asker's own ("much" in "vanilla, how much", "earlier",
"recall") pulls the moment's score down however plainly the caption tells what was asked. Here
the question's words are split by what the lexicons know them as: the things it names (the
ingredients, tools and vessels of answers/focus.py), its act (a verb the act families know), and
its amounts (numbers and units). Each part is matched to the caption as the recall is (the
encoder's contextual word vectors), so a word the lexicons do not know moves only the plain
recall, and the gate's model learns how much to trust each:

- ``anchor_mean``: the mean recall over the things, the act and the amounts alone;
- ``thing_min``: the worst-covered thing named (a sibling step's other ingredient);
- ``act``: how well the caption tells the act (the mean over the act's verbs);
- ``precision``: how much of the caption the question covers, caption word by caption word.

When a question names no such word the part falls back to the plain recall, so a question the
lexicons cannot read is scored as before.
"""

from __future__ import annotations

import numpy as np

from edge_assist.answers.focus import things, verb_base
from edge_assist.answers.support import WORD_FEATURES, Words, is_content, is_word
from edge_assist.answers.support import features as plain_features
from edge_assist.tasks.step_phrases import singular
from edge_assist.tasks.word_kinds import MATERIAL, TOOL, lexical_kind
from edge_assist.text.action_families import ANY_ACT, known
from edge_assist.text.units import UNIT_NAMES


def parts(focus: str, words: list[str]) -> tuple[list[int], list[int], list[int]]:
    """Indices into `words` (the encoder's words of `focus`) of the things named, the act's verbs
    and the amounts."""
    named: set[str] = set()
    for t in things(focus):
        named.update(t.split("-"))
    thing_at, act_at, amount_at = [], [], []
    for i, w in enumerate(words):
        if not is_content(w):
            continue
        s = singular(w)
        if w[0].isdigit() or w in UNIT_NAMES:
            amount_at.append(i)
        elif s in named or lexical_kind(s) in (MATERIAL, TOOL):
            thing_at.append(i)
        elif (base := verb_base(w)) is not None and known(base) and base not in ANY_ACT:
            act_at.append(i)
    return thing_at, act_at, amount_at


def word_features(focus: str, question: Words, caption: Words) -> dict[str, float]:
    """`WORD_FEATURES` of one (focus, caption) pair; zeros when either side has no words."""
    qw, qv = question
    cw, cv = caption
    qi = [i for i, w in enumerate(qw) if is_content(w)]
    ci = [i for i, w in enumerate(cw) if is_word(w)]
    if not qi or not ci:
        return dict.fromkeys(WORD_FEATURES, 0.0)
    sims = np.asarray(qv, dtype=np.float32) @ np.asarray(cv, dtype=np.float32)[ci].T  # (n_q, n_c)
    best = sims.max(axis=1)
    recall = float(best[qi].mean())
    thing_at, act_at, amount_at = parts(focus, qw)
    anchor_at = thing_at + act_at + amount_at
    anchor = float(best[anchor_at].mean()) if anchor_at else recall
    cap_content = [k for k, i in enumerate(ci) if is_content(cw[i])] or list(range(len(ci)))
    precision = float(sims[qi][:, cap_content].max(axis=0).mean())
    return {
        "anchor_mean": anchor,
        "thing_min": float(best[thing_at].min()) if thing_at else anchor,
        "act": float(best[act_at].mean()) if act_at else anchor,
        "precision": precision,
    }


def features(
    cosine: float,
    focus: str,
    caption: str,
    focus_words: Words | None,
    caption_words: Words | None,
    *,
    parts_too: bool = True,
) -> dict[str, float]:
    """The plain features (answers/support.py) and, with `parts_too`, the `WORD_FEATURES`; without
    word vectors the word share stands in for every recall."""
    out = plain_features(cosine, focus, caption, focus_words, caption_words)
    if not parts_too:
        return out
    if focus_words is not None and caption_words is not None and len(focus_words[0]):
        out.update(word_features(focus, focus_words, caption_words))
    else:
        out.update(dict.fromkeys(WORD_FEATURES, out["share"]))
    return out
