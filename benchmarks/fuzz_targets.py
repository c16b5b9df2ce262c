"""Every input parser, as a fuzz target: what it reads, what it may raise, what it must return.

A `Target` pairs a hypothesis strategy (inputs shaped like the real format, broken in
every way the format allows, plus plain noise) with the parser and its clean error
class: the one-line `EdgeAssistError` subclass for our files, `FrameError` / `ValueError`
for the glasses' bridge (its documented contract; the endpoint counts and drops them).
Anything else raised, or a hang, is a bug. Accepted input must also make sense (`check`):
finite, ordered times, values inside their documented ranges.

Adding a parser is one line in `TARGETS`: `Target("name", strategy, parse, (ItsError,))`.
`tests/test_fuzz_parsers.py` runs a few hundred inputs of each; `benchmarks/fuzz_parsers.py`
runs 10k and more and writes the results. The bridge's inputs are built here; those of our
files in `fuzz_files.py`, from the blocks in `fuzz_inputs.py`.
"""

from __future__ import annotations

import math
import struct
import zlib
from typing import Any

from hypothesis import strategies as st

from benchmarks.fuzz_files import (
    annotation_doc,
    check_annotations,
    check_captions,
    check_config,
    check_task,
    config_doc,
    jsonl_doc,
    parse_annotations,
    parse_caption_jsonl,
    parse_caption_srt,
    parse_config,
    parse_task_graph,
    parse_task_toml,
    srt_doc,
    task_doc,
    task_graph_doc,
)
from benchmarks.fuzz_inputs import Target, as_bytes, deeply_nested, dump, json_values, run_one, with_noise
from edge_assist.errors import EdgeAssistError
from edge_assist.evaluation.annotations import AnnotationError
from firmware_bridge import frames, messages
from firmware_bridge.frames import FrameError

__all__ = ["TARGETS", "Target", "run_one"]


# -- bridge frames and messages -------------------------------------------------------------


def _framed(body: bytes) -> bytes:
    return body + struct.pack(">I", zlib.crc32(body))


headers = st.builds(
    lambda magic, version, mtype, flags, phase, session, seq, nonce, length: frames.HEADER.pack(
        magic, version, mtype, flags, phase, session, seq, nonce, length
    ),
    st.sampled_from([frames.MAGIC, b"XX"]),
    st.sampled_from([frames.VERSION, 0, 1, 3, 255]),
    st.integers(0, 255),
    st.integers(0, 255),
    st.integers(0, 255),
    st.integers(0, 2**32 - 1),
    st.integers(0, 2**32 - 1),
    st.integers(0, 2**64 - 1),
    st.integers(0, 2**16 - 1),
)
frame_bytes = st.one_of(
    st.binary(max_size=2 * frames.MAX_BODY),
    # A correct CRC over a forged header and random payload: the checks after the CRC.
    st.builds(lambda h, rest: _framed(h + rest), headers, st.binary(max_size=frames.MAX_BODY + 64)),
    st.builds(
        lambda h, payload: _framed(h[:-2] + struct.pack(">H", len(payload)) + payload),
        headers,
        st.binary(max_size=frames.MAX_BODY + 8),
    ),
)


def parse_frame(data: bytes) -> Any:
    raw = frames.parse(data)
    assert raw.header.length == len(raw.payload) <= frames.MAX_BODY and raw.header.version == frames.VERSION
    assert len(raw.header_bytes) == frames.HEADER_LEN
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
    ).map(lambda d: dump(d).encode()),
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
