"""Fuzz inputs for the parsers of our files: caption streams (JSONL, SRT), the config TOML,
annotation files and task files, each with the check of what an accepted file must hold."""

from __future__ import annotations

import json
import math
import tempfile
from pathlib import Path
from typing import Any

from hypothesis import strategies as st

from benchmarks.fuzz_inputs import Scratch, dump, json_scalars, json_values, nasty_numbers, toml_value
from edge_assist.config import SECTIONS, Config, to_dict
from edge_assist.evaluation.annotations import read_ground_truth, read_predictions
from edge_assist.sources.caption_stream import CaptionStream, load_caption_stream

# -- caption streams (JSONL and SRT) --------------------------------------------------------

good_caption = st.builds(
    lambda t0, d, text: {"t0": t0, "t1": t0 + d, "text": text},
    st.floats(0, 1e5),
    st.floats(0, 60),
    st.text(min_size=1, max_size=30),
)
caption_obj = st.fixed_dictionaries(
    {},
    optional={
        "t0": st.one_of(nasty_numbers, json_values),
        "t1": st.one_of(nasty_numbers, json_values),
        "text": st.one_of(st.text(max_size=30), json_values),
    },
)
meta_obj = st.fixed_dictionaries(
    {
        "meta": st.one_of(
            st.dictionaries(st.sampled_from(["session_id", "task_context"]), json_values, max_size=2),
            json_values,
        )
    }
)
jsonl_doc = st.lists(
    st.one_of(good_caption, good_caption, caption_obj, meta_obj, json_values), max_size=6
).map(lambda objs: "\n".join(dump(o) for o in objs))

srt_number = st.one_of(
    st.integers(0, 99).map(str),
    st.text("0123456789", min_size=1, max_size=400),
    st.text("٠١٢٣٤٥٦٧٨٩0123456789", min_size=1, max_size=5),
)
srt_time = st.one_of(
    st.builds(
        lambda h, m, s, ms: f"{h:02d}:{m:02d}:{s:02d},{ms:03d}",
        st.integers(0, 99),
        st.integers(0, 59),
        st.integers(0, 59),
        st.integers(0, 999),
    ),
    st.builds(
        lambda h, m, s, ms, sep: f"{h}:{m}:{s}{sep}{ms}",
        srt_number,
        srt_number,
        srt_number,
        srt_number,
        st.sampled_from([",", "."]),
    ),
)
srt_cue = st.builds(
    lambda n, a, b, body, arrow: f"{n}\n{a}{arrow}{b}\n{body}\n",
    st.integers(0, 10**6),
    srt_time,
    srt_time,
    st.text(max_size=40),
    st.sampled_from([" --> ", " --> ", "-->", " -> "]),
)


def _srt_clock(ms: int) -> str:
    s, ms = divmod(ms, 1000)
    m, s = divmod(s, 60)
    h, m = divmod(m, 60)
    return f"{h:02d}:{m:02d}:{s:02d},{ms:03d}"


# Well-formed files (cues in time order) with any text, so the accepting path is fuzzed too.
good_srt = st.lists(
    st.tuples(st.integers(0, 10**7), st.integers(0, 10**5), st.text(max_size=40)), max_size=5
).map(
    lambda cues: "\n".join(
        f"{i + 1}\n{_srt_clock(t)} --> {_srt_clock(t + d)}\n{body}\n"
        for i, (t, d, body) in enumerate(sorted(cues))
    )
)
srt_doc = st.one_of(good_srt, st.lists(srt_cue, max_size=5).map("\n".join))


def parse_caption_jsonl(content: bytes) -> CaptionStream:
    return load_caption_stream(Scratch.file("fuzz.jsonl", content))


def parse_caption_srt(content: bytes) -> CaptionStream:
    return load_caption_stream(Scratch.file("fuzz.srt", content))


def check_captions(stream: CaptionStream) -> None:
    assert stream.captions, "an accepted stream holds captions"
    prev = -math.inf
    for c in stream.captions:
        assert math.isfinite(c.t0) and math.isfinite(c.t1), f"non-finite time {c}"
        assert 0 <= c.t0 <= c.t1 and c.t0 >= prev, f"bad window {c}"
        assert c.text.strip(), "empty caption text"
        prev = c.t0
    assert isinstance(stream.session_id, str) and isinstance(stream.task_context, str)


# -- config TOML ----------------------------------------------------------------------------

_DEFAULTS = to_dict(Config())


toml_values = st.recursive(
    st.one_of(
        st.booleans(), st.floats(), st.integers(min_value=-(2**63), max_value=2**63 - 1), st.text(max_size=12)
    ),
    lambda inner: st.one_of(
        st.lists(inner, max_size=3), st.dictionaries(st.text(max_size=6), inner, max_size=3)
    ),
    max_leaves=6,
)
known_keys = st.sampled_from([(sec, key) for sec, body in _DEFAULTS.items() for key in body])
# A known key with its default value (valid) or with its default's type but another value.
default_entries = known_keys.flatmap(
    lambda sk: st.tuples(
        st.just(sk), st.one_of(st.just(_DEFAULTS[sk[0]][sk[1]]), st.from_type(type(_DEFAULTS[sk[0]][sk[1]])))
    )
)
config_entries = st.lists(
    st.one_of(
        default_entries,
        default_entries,
        st.tuples(known_keys, toml_values),
        st.tuples(
            st.tuples(
                st.sampled_from([*SECTIONS, "nosuch"]),
                st.text("abcdefghijklmnopqrstuvwxyz_", min_size=1, max_size=12),
            ),
            toml_values,
        ),
    ),
    max_size=6,
)


def _render_config(entries: list[tuple[tuple[str, str], Any]]) -> str:
    by_section: dict[str, dict[str, Any]] = {}
    for (sec, key), value in entries:
        by_section.setdefault(sec, {})[key] = value
    out = []
    for sec, body in by_section.items():
        out.append(f"[{sec}]")
        out += [f"{json.dumps(k)} = {toml_value(v)}" for k, v in body.items()]
    return "\n".join(out) + "\n"


config_doc = config_entries.map(_render_config)


def parse_config(text: str) -> Config:
    from edge_assist.config import parse_config_text

    return parse_config_text(text)


def check_config(cfg: Config) -> None:
    for sec, body in to_dict(cfg).items():
        for key, value in body.items():
            if isinstance(value, float):
                assert math.isfinite(value), f"{sec}.{key} = {value}"
            if isinstance(value, dict):
                assert all(math.isfinite(v) for v in value.values()), f"{sec}.{key} = {value}"


# -- annotation files -----------------------------------------------------------------------

window_value = st.one_of(
    st.text(max_size=30),
    st.builds(
        lambda d, a, b: f"DAY{d} {a}\u2013{b}",
        st.integers(0, 10**30),
        st.sampled_from(["10:02:05", "99:99:99", "0:00", "999:59:59.5", "1:2:3"]),
        st.sampled_from(["10:02:20", "00:00:00", "1:00"]),
    ),
    st.lists(json_values, min_size=0, max_size=3),
    st.fixed_dictionaries({"start": json_values, "end": json_values}),
    json_values,
)
annotation_record = st.fixed_dictionaries(
    {},
    optional={
        "sub_type": st.one_of(
            st.sampled_from(["ER", "SA", "Error Recovery", "next_step_guidance", "XX"]), json_values
        ),
        "current_time_window": window_value,
        "t0": st.one_of(nasty_numbers, json_values),
        "t1": st.one_of(nasty_numbers, json_values),
        "proactive_dialogue": json_values,
        "decision": st.sampled_from(["speak", "silent", 1]),
        "session_id": json_values,
        "meta": json_values,
        "type": st.sampled_from(["stats", "decision"]),
    },
)
annotation_doc = st.one_of(
    st.lists(st.one_of(annotation_record, json_values), max_size=5).map(
        lambda rs: "\n".join(dump(r) for r in rs)
    ),
    st.lists(annotation_record, max_size=4).map(dump),
    st.dictionaries(st.text(max_size=6), st.lists(annotation_record, max_size=3), max_size=3).map(dump),
)


def parse_annotations(content: bytes) -> Any:
    p = Scratch.file("fuzz-annotations.jsonl", content)
    return read_ground_truth(p), read_predictions(p)


def check_annotations(loaded: Any) -> None:
    for part in loaded:
        for ev in [*part.gt, *part.predictions]:
            assert math.isfinite(ev.t0) and math.isfinite(ev.t1) and ev.t0 <= ev.t1, f"bad window {ev}"


# -- task files (edge_assist/tasks/formats.py) -----------------------------------------------

_step_ids = st.sampled_from(["a", "b", "c", "d", "", "a b", "ü", "1"])
_task_step = st.fixed_dictionaries(
    {"id": st.one_of(_step_ids, json_scalars), "text": st.one_of(st.text(max_size=40), json_scalars)},
    optional={
        "after": st.one_of(st.lists(st.one_of(_step_ids, json_scalars), max_size=3), json_scalars),
        "tools": st.one_of(st.lists(st.text(max_size=10), max_size=2), json_scalars),
        "amounts": st.lists(
            st.sampled_from(["1/2 tsp", "nan ml", "1e999 g", "two cups", "-3 s", "½ cup"]), max_size=2
        ),
        "hazards": st.lists(st.sampled_from(["hot", "sharp", "lava", ""]), max_size=2),
    },
)


def _render_task(parts: tuple[Any, list[dict[str, Any]]]) -> str:
    name, steps = parts
    out = ["[task]", f"name = {toml_value(name)}"]
    for s in steps:
        out.append("[[step]]")
        out += [f"{k} = {toml_value(v)}" for k, v in s.items() if v is not None]
    return "\n".join(out) + "\n"


# Mostly well-formed tasks (a chain of steps, amounts in the text), then anything at all.
_valid_task = st.tuples(
    st.sampled_from(["tea", "x"]),
    st.lists(
        st.tuples(
            st.sampled_from(["Boil", "Add", "Stir for", "Heat on"]),
            st.sampled_from(["1/2 cup", "two tbsp", "30 seconds", "high", "1e999 g", "nan ml", "½ tsp", ""]),
        ),
        min_size=2,
        max_size=6,
    ),
).map(
    lambda t: (
        t[0],
        [
            {
                "id": f"s{i}",
                "text": f"{verb} {amt} water".replace("  ", " "),
                "after": [f"s{i - 1}"] if i else [],
            }
            for i, (verb, amt) in enumerate(t[1])
        ],
    )
)
task_doc = st.one_of(
    _valid_task,
    st.tuples(st.one_of(st.sampled_from(["tea", "x"]), json_scalars), st.lists(_task_step, max_size=5)),
).map(_render_task)
task_graph_doc = st.fixed_dictionaries(
    {
        "steps": st.one_of(
            st.dictionaries(
                st.sampled_from(["0", "1", "2", "3", "9"]),
                st.one_of(st.sampled_from(["START", "END", "Cut-Cut it", "Eat-Eat it"]), json_scalars),
                max_size=5,
            ),
            json_values,
        ),
        "edges": st.one_of(
            st.lists(st.lists(st.one_of(st.integers(0, 9), json_scalars), max_size=3), max_size=6),
            json_values,
        ),
    },
).map(lambda d: json.dumps(d, allow_nan=True))


def parse_task_toml(text: str) -> Any:
    from edge_assist.tasks.formats import load_toml

    return load_toml("fuzz.toml", text)


def parse_task_graph(data: bytes) -> Any:
    from edge_assist.tasks.formats import load_captaincook_json

    with tempfile.TemporaryDirectory() as d:
        p = Path(d) / "fuzz.json"
        p.write_bytes(data)
        return load_captaincook_json(p)


def check_task(task: Any) -> None:
    ids = [s.id for s in task.steps]
    assert len(ids) == len(set(ids)) >= 2, ids
    assert len(task.topological()) == task.n  # a DAG: every step has a place in the order
    for s in task.steps:
        assert all(a in ids for a in s.after)
        assert all(math.isfinite(a.value) for a in s.details.amounts), s.details
