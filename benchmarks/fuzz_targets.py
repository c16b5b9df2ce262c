"""Every input parser, as a fuzz target: what it reads, what it may raise, what it must return.

A `Target` pairs a hypothesis strategy (inputs shaped like the real format, broken in
every way the format allows, plus plain noise) with the parser and its clean error
class: the one-line `EdgeAssistError` subclass for our files, `FrameError` / `ValueError`
for the glasses' bridge (its documented contract; the endpoint counts and drops them).
Anything else raised, or a hang, is a bug. Accepted input must also make sense (`check`):
finite, ordered times, values inside their documented ranges.

Adding a parser is one line in `TARGETS`: `Target("name", strategy, parse, (ItsError,))`.
`tests/test_fuzz_parsers.py` runs a few hundred inputs of each; `benchmarks/fuzz_parsers.py`
runs 10k and more and writes the results.
"""

from __future__ import annotations

import json
import math
import struct
import tempfile
import zlib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from hypothesis import strategies as st

from edge_assist.config import SECTIONS, Config, to_dict
from edge_assist.errors import EdgeAssistError
from edge_assist.evaluation.annotations import AnnotationError, read_ground_truth, read_predictions
from edge_assist.sources.caption_stream import CaptionStream, load_caption_stream
from firmware_bridge import frames, messages
from firmware_bridge.frames import FrameError


@dataclass(frozen=True)
class Target:
    name: str
    inputs: st.SearchStrategy[Any]
    parse: Callable[[Any], Any]
    clean: tuple[type[BaseException], ...]
    check: Callable[[Any], None] | None = None  # invariants of what the parser accepted


# -- building blocks ----------------------------------------------------------------------

# Numbers as a JSON or TOML file can carry them, the nasty ones often.
nasty_numbers = st.one_of(
    st.floats(allow_nan=True, allow_infinity=True),
    st.integers(),
    st.integers(min_value=10**300, max_value=10**400),
    st.sampled_from([0, -0.0, -1, 1e308, -1e308, 5e-324, 2**63, -(2**63), 10**309]),
)
json_scalars = st.one_of(st.none(), st.booleans(), nasty_numbers, st.text(max_size=20))
json_values = st.recursive(
    json_scalars,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4), st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=12,
)


def _dump(value: Any) -> str:
    # json.dumps writes NaN/Infinity (which json.loads reads back) and any int size.
    return json.dumps(value, ensure_ascii=False)


def deeply_nested(max_depth: int = 5000) -> st.SearchStrategy[str]:
    return st.integers(min_value=1, max_value=max_depth).flatmap(
        lambda d: st.sampled_from(["[" * d + "]" * d, '{"a":' * d + "1" + "}" * d, "[" * d])
    )


def with_noise(doc: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
    """A document, its truncation, a byte flipped, or plain noise."""

    def damage(text: str, data: st.DataObject) -> str:
        how = data.draw(st.sampled_from(["keep", "cut", "flip", "insert"]))
        if not text or how == "keep":
            return text
        i = data.draw(st.integers(0, len(text) - 1))
        if how == "cut":
            return text[:i]
        if how == "flip":
            return text[:i] + data.draw(st.characters()) + text[i + 1 :]
        return text[:i] + data.draw(st.text(max_size=5)) + text[i:]

    return st.one_of(doc, st.builds(damage, doc, st.data()), st.text(max_size=200), deeply_nested())


class _Scratch:
    """One scratch directory for file-reading parsers (they take a path, as in real use)."""

    _dir: Path | None = None

    @classmethod
    def file(cls, name: str, content: bytes) -> Path:
        if cls._dir is None:
            cls._dir = Path(tempfile.mkdtemp(prefix="edge-assist-fuzz-"))
        p = cls._dir / name
        p.write_bytes(content)
        return p


def as_bytes(text: st.SearchStrategy[str]) -> st.SearchStrategy[bytes]:
    """UTF-8 text mostly, raw bytes sometimes (a file can hold anything)."""
    utf8 = text.map(lambda s: s.encode("utf-8", "surrogatepass"))
    return st.one_of(utf8, utf8, utf8, st.binary(max_size=300))


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
).map(lambda objs: "\n".join(_dump(o) for o in objs))

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
    return load_caption_stream(_Scratch.file("fuzz.jsonl", content))


def parse_caption_srt(content: bytes) -> CaptionStream:
    return load_caption_stream(_Scratch.file("fuzz.srt", content))


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


def _toml_value(v: Any) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, float):
        if math.isnan(v):
            return "nan"
        if math.isinf(v):
            return "inf" if v > 0 else "-inf"
        return repr(v)
    if isinstance(v, int):
        return str(v)
    if isinstance(v, str):
        return json.dumps(v)  # a TOML basic string
    if isinstance(v, list):
        return "[" + ", ".join(_toml_value(x) for x in v) + "]"
    if isinstance(v, dict):
        return "{" + ", ".join(f"{json.dumps(str(k))} = {_toml_value(x)}" for k, x in v.items()) + "}"
    return json.dumps(str(v))


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
        out += [f"{json.dumps(k)} = {_toml_value(v)}" for k, v in body.items()]
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


# -- bridge frames and messages -------------------------------------------------------------


def _framed(body: bytes) -> bytes:
    return body + struct.pack(">I", zlib.crc32(body))


headers = st.builds(
    lambda magic, version, mtype, flags, session, seq, length: frames.HEADER.pack(
        magic, version, mtype, flags, 0, session, seq, length
    ),
    st.sampled_from([frames.MAGIC, b"XX"]),
    st.sampled_from([frames.VERSION, 0, 2, 255]),
    st.integers(0, 255),
    st.integers(0, 255),
    st.integers(0, 2**32 - 1),
    st.integers(0, 2**32 - 1),
    st.integers(0, 2**16 - 1),
)
frame_bytes = st.one_of(
    st.binary(max_size=2 * frames.MAX_PAYLOAD),
    # A correct CRC over a forged header and random payload: the checks after the CRC.
    st.builds(lambda h, rest: _framed(h + rest), headers, st.binary(max_size=frames.MAX_PAYLOAD + 64)),
    st.builds(
        lambda h, payload: _framed(
            h[:-2] + struct.pack(">H", len(payload)) + payload + bytes(frames.TAG_LEN)
        ),
        headers,
        st.binary(max_size=frames.MAX_PAYLOAD + 8),
    ),
)


def parse_frame(data: bytes) -> Any:
    raw = frames.parse(data)
    assert raw.header.length == len(raw.payload) <= frames.MAX_PAYLOAD and len(raw.tag) == frames.TAG_LEN
    return raw


def parse_stream(chunks: list[bytes]) -> Any:
    """A serial byte stream: deframed, then each frame COBS-decoded and parsed."""
    deframer = frames.StreamDeframer()
    out = []
    for chunk in chunks:
        for encoded in deframer.feed(chunk):
            try:
                out.append(frames.parse(frames.cobs_decode(encoded)))
            except FrameError:
                continue  # counted and dropped by the endpoint: the stream goes on
    return out


stream_chunks = st.lists(
    st.one_of(st.binary(max_size=200), frame_bytes.map(frames.stream_encode)), max_size=8
)

message_payload = st.one_of(
    st.binary(max_size=frames.MAX_PAYLOAD),
    st.dictionaries(
        st.sampled_from(
            [
                "text",
                "priority",
                "duration_s",
                "id",
                "button",
                "action",
                "gesture",
                "battery_pct",
                "charging",
                "temperature_c",
                "thermal",
            ]
        ),
        st.one_of(json_values, st.sampled_from(["normal", "hot", ["hot"], {"a": 1}])),
        max_size=5,
    ).map(lambda d: _dump(d).encode()),
    deeply_nested(1000).map(str.encode),
)

_MESSAGES = {
    "hud": messages.HudText,
    "audio": messages.AudioChunk,
    "button": messages.Button,
    "touch": messages.Touch,
    "question": messages.Question,
    "status": messages.Status,
}


def parse_message(arg: tuple[str, bytes]) -> Any:
    kind, payload = arg
    return _MESSAGES[kind].decode(payload)


def check_message(msg: Any) -> None:
    if isinstance(msg, messages.Status):
        for v in (msg.battery_pct, msg.temperature_c):
            assert v is None or math.isfinite(v)
    if isinstance(msg, messages.HudText):
        assert math.isfinite(msg.duration_s) and isinstance(msg.text, str)


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
        lambda rs: "\n".join(_dump(r) for r in rs)
    ),
    st.lists(annotation_record, max_size=4).map(_dump),
    st.dictionaries(st.text(max_size=6), st.lists(annotation_record, max_size=3), max_size=3).map(_dump),
)


def parse_annotations(content: bytes) -> Any:
    p = _Scratch.file("fuzz-annotations.jsonl", content)
    return read_ground_truth(p), read_predictions(p)


def check_annotations(loaded: Any) -> None:
    for part in loaded:
        for ev in [*part.gt, *part.predictions]:
            assert math.isfinite(ev.t0) and math.isfinite(ev.t1) and ev.t0 <= ev.t1, f"bad window {ev}"


# -- the registry ---------------------------------------------------------------------------

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


def _toml_value(v: Any) -> str:
    if isinstance(v, str):
        return json.dumps(v)
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, float) and not math.isfinite(v):
        return "nan" if math.isnan(v) else ("inf" if v > 0 else "-inf")
    if isinstance(v, int | float):
        return repr(v)
    if isinstance(v, list):
        return "[" + ", ".join(_toml_value(x) for x in v) + "]"
    return json.dumps(str(v))


def _render_task(parts: tuple[Any, list[dict[str, Any]]]) -> str:
    name, steps = parts
    out = ["[task]", f"name = {_toml_value(name)}"]
    for s in steps:
        out.append("[[step]]")
        out += [f"{k} = {_toml_value(v)}" for k, v in s.items() if v is not None]
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


TARGETS: list[Target] = [
    Target(
        "caption-jsonl",
        as_bytes(with_noise(jsonl_doc)),
        parse_caption_jsonl,
        (EdgeAssistError,),
        check_captions,
    ),
    Target(
        "caption-srt", as_bytes(with_noise(srt_doc)), parse_caption_srt, (EdgeAssistError,), check_captions
    ),
    Target("config-toml", with_noise(config_doc), parse_config, (EdgeAssistError,), check_config),
    Target("bridge-frame", frame_bytes, parse_frame, (FrameError,)),
    Target("bridge-stream", stream_chunks, parse_stream, ()),
    Target(
        "bridge-message",
        st.tuples(st.sampled_from(sorted(_MESSAGES)), message_payload),
        parse_message,
        (ValueError,),
        check_message,
    ),
    Target(
        "annotations",
        as_bytes(with_noise(annotation_doc)),
        parse_annotations,
        (AnnotationError,),
        check_annotations,
    ),
    Target("task-toml", with_noise(task_doc), parse_task_toml, (EdgeAssistError,), check_task),
    Target(
        "task-graph-json",
        as_bytes(with_noise(task_graph_doc)),
        parse_task_graph,
        (EdgeAssistError,),
        check_task,
    ),
]


def run_one(target: Target, value: Any) -> str:
    """'ok' or 'clean' for a good outcome; raises AssertionError for a bug (wrong error, bad output)."""
    try:
        out = target.parse(value)
    except target.clean as e:
        msg = str(e)
        assert msg.strip() and "\n" not in msg, f"{type(e).__name__} without one clear line: {msg!r}"
        return "clean"
    except Exception as e:
        raise AssertionError(f"{target.name}: {type(e).__name__}: {e}"[:500]) from e
    if target.check is not None:
        target.check(out)
    return "ok"
