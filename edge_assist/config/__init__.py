"""Settings: `edge-assist.toml` merged with command-line overrides, validated, frozen.

Every key is declared once (the *_sections.py modules here) with its default, its unit and its
range; the declared docs are what `edge-assist config show` prints, so the file documents
itself. Units are in the key names (`_s`, `_ms`, `_px`, `_mb`). An unknown key or an
out-of-range value is a one-line `ConfigError` that names the key.
"""

from __future__ import annotations

import dataclasses
import math
import os
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, get_origin, get_type_hints

from edge_assist.config.decision_sections import (
    PolicyConfig,
    ReasonerConfig,
    RetrievalConfig,
    SchedulerConfig,
)
from edge_assist.config.input_sections import (
    CaptionerConfig,
    GeneralConfig,
    LimitsConfig,
    SegmenterConfig,
    SourceConfig,
    VoiceConfig,
)
from edge_assist.config.model_sections import MemoryConfig, ModelsConfig, RemoteConfig
from edge_assist.config.output_sections import BridgeConfig, OutputConfig
from edge_assist.errors import ConfigError

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

CONFIG_ENV = "EDGE_ASSIST_CONFIG"
DEFAULT_CONFIG_NAME = "edge-assist.toml"


@dataclass(frozen=True)
class Config:
    general: GeneralConfig = field(default_factory=GeneralConfig)
    source: SourceConfig = field(default_factory=SourceConfig)
    segmenter: SegmenterConfig = field(default_factory=SegmenterConfig)
    captioner: CaptionerConfig = field(default_factory=CaptionerConfig)
    models: ModelsConfig = field(default_factory=ModelsConfig)
    remote: RemoteConfig = field(default_factory=RemoteConfig)
    memory: MemoryConfig = field(default_factory=MemoryConfig)
    reasoner: ReasonerConfig = field(default_factory=ReasonerConfig)
    retrieval: RetrievalConfig = field(default_factory=RetrievalConfig)
    policy: PolicyConfig = field(default_factory=PolicyConfig)
    scheduler: SchedulerConfig = field(default_factory=SchedulerConfig)
    output: OutputConfig = field(default_factory=OutputConfig)
    bridge: BridgeConfig = field(default_factory=BridgeConfig)
    voice: VoiceConfig = field(default_factory=VoiceConfig)
    limits: LimitsConfig = field(default_factory=LimitsConfig)
    # Where the settings came from, so relative paths resolve against the config file.
    origin: str = field(default="", compare=False)

    # -- derived values -------------------------------------------------------------
    @property
    def data_dir(self) -> Path:
        return Path(os.path.expanduser(self.general.data_dir))

    def data_path(self, relative: str) -> Path:
        p = Path(os.path.expanduser(relative))
        return p if p.is_absolute() else self.data_dir / p

    @property
    def models_dir(self) -> Path:
        p = Path(os.path.expanduser(self.models.dir))
        if p.is_absolute():
            return p
        base = Path(self.origin).parent if self.origin else Path.cwd()
        return base / p

    @property
    def memory_windows_s(self) -> tuple[float, float, float]:
        if self.memory.profile == "short":
            return (10.0, 60.0, 300.0)
        if self.memory.profile == "all-day":
            return (30.0, 300.0, 3600.0)
        return (self.memory.clip_s, self.memory.activity_s, self.memory.session_s)

    def replace(self, **overrides: Any) -> Config:
        """A copy with dotted keys changed, validated: cfg.replace(**{"source.kind": "video"})."""
        return build_config(to_dict(self), overrides=overrides, origin=self.origin)


SECTIONS: dict[str, type] = {f.name: f.type for f in dataclasses.fields(Config) if f.name != "origin"}  # type: ignore[misc]


def _section_types() -> dict[str, type]:
    hints = get_type_hints(Config)
    return {name: hints[name] for name in SECTIONS}


def _finite(v: int | float) -> bool:
    try:
        return math.isfinite(v)
    except OverflowError:  # an int beyond any float
        return False


def _coerce(key: str, value: Any, typ: Any, meta: dict[str, Any]) -> Any:
    origin = get_origin(typ)
    if typ is bool:
        if not isinstance(value, bool):
            raise ConfigError(f"config key '{key}' must be true or false, got {value!r}")
    elif typ is int:
        if isinstance(value, bool) or not isinstance(value, int):
            if isinstance(value, float) and value.is_integer():
                value = int(value)
            else:
                raise ConfigError(f"config key '{key}' must be an integer, got {value!r}")
    elif typ is float:
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise ConfigError(f"config key '{key}' must be a number, got {value!r}")
        try:
            value = float(value)
        except OverflowError:
            value = math.inf
        if not math.isfinite(value):
            raise ConfigError(f"config key '{key}' must be a finite number, got {value!r}")
    elif typ is str:
        if isinstance(value, int | float) and not isinstance(value, bool) and abs(value) < 10**18:
            value = str(value)  # a device index written as a number
        if not isinstance(value, str):
            raise ConfigError(f"config key '{key}' must be a string, got {value!r}")
    elif typ is dict or origin is dict:
        if not isinstance(value, dict):
            raise ConfigError(f"config key '{key}' must be a table, got {value!r}")
        # A table merges into the declared defaults, so one cooldown can be changed alone.
        out = dict(meta.get("default") or {})
        for k, v in value.items():
            if isinstance(v, bool) or not isinstance(v, int | float) or not _finite(v):
                raise ConfigError(f"config key '{key}.{k}' must be a finite number, got {v!r}")
            if v < 0:
                raise ConfigError(f"config key '{key}.{k}' must be >= 0, got {v!r}")
            out[str(k)] = float(v)
        value = out
    choices, lo, hi = meta.get("choices"), meta.get("lo"), meta.get("hi")
    if choices and value not in choices:
        raise ConfigError(f"config key '{key}' must be one of {', '.join(choices)}; got {value!r}")
    if lo is not None and value < lo:
        raise ConfigError(f"config key '{key}' is {value!r}, below its minimum {lo:g}")
    if hi is not None and value > hi:
        raise ConfigError(f"config key '{key}' is {value!r}, above its maximum {hi:g}")
    return value


def parse_override(item: str) -> tuple[str, Any]:
    """`section.key=value` from the command line; the value is read as TOML, else a string."""
    if "=" not in item:
        raise ConfigError(f"override {item!r} must look like section.key=value")
    key, raw = item.split("=", 1)
    key = key.strip()
    try:
        value = tomllib.loads(f"v = {raw}")["v"]
    except tomllib.TOMLDecodeError:
        value = raw
    return key, value


def build_config(data: dict[str, Any], overrides: dict[str, Any] | None = None, origin: str = "") -> Config:
    merged: dict[str, dict[str, Any]] = {}
    where = f" (in {origin})" if origin else ""
    for sec, body in data.items():
        if sec not in SECTIONS:
            raise ConfigError(f"unknown config section '{sec}'{where}; known sections: {', '.join(SECTIONS)}")
        if not isinstance(body, dict):
            raise ConfigError(f"config section '{sec}'{where} must be a table like [{sec}]")
        merged[sec] = dict(body)
    overridden = set()
    for dotted, value in (overrides or {}).items():
        overridden.add(dotted)
        sec, _, key = dotted.partition(".")
        if sec not in SECTIONS or not key:
            raise ConfigError(
                f"unknown config key '{dotted}'; use section.key, sections: {', '.join(SECTIONS)}"
            )
        merged.setdefault(sec, {})[key] = value
    types = _section_types()
    built: dict[str, Any] = {}
    for sec, cls in types.items():
        body = merged.get(sec, {})
        fields = {f.name: f for f in dataclasses.fields(cls)}
        hints = get_type_hints(cls)
        kwargs = {}
        for key, value in body.items():
            if key not in fields:
                raise ConfigError(
                    f"unknown config key '{sec}.{key}'{where}; keys of [{sec}]: {', '.join(fields)}"
                )
            meta = dict(fields[key].metadata)
            factory = fields[key].default_factory
            if factory is not dataclasses.MISSING:
                meta["default"] = factory()
            try:
                kwargs[key] = _coerce(f"{sec}.{key}", value, hints[key], meta)
            except ConfigError as e:
                raise ConfigError(f"{e}{'' if f'{sec}.{key}' in overridden else where}") from None
        built[sec] = cls(**kwargs)
    return Config(**built, origin=origin)


def find_config_file(explicit: str | None) -> Path | None:
    if explicit:
        return Path(explicit)
    env = os.environ.get(CONFIG_ENV)
    if env:
        return Path(env)
    local = Path.cwd() / DEFAULT_CONFIG_NAME
    return local if local.exists() else None


def load_config(path: str | Path | None = None, overrides: dict[str, Any] | None = None) -> Config:
    """Load the TOML file (if any), apply overrides, validate, freeze."""
    p = find_config_file(str(path) if path else None)
    data: dict[str, Any] = {}
    origin = ""
    if p is not None:
        if not p.exists():
            raise ConfigError(
                f"config file {p} does not exist; run `edge-assist config show --defaults > {p}` to make one"
            )
        try:
            text = p.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as e:
            raise ConfigError(f"cannot read config file {p}: {e}") from None
        return parse_config_text(text, overrides, str(p.resolve()))
    return build_config(data, overrides, origin)


def parse_config_text(text: str, overrides: dict[str, Any] | None = None, origin: str = "") -> Config:
    """A config from TOML text (what `load_config` reads from its file); ConfigError on anything wrong."""
    where = origin or "config text"
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise ConfigError(f"config file {where} is not valid TOML: {e}") from None
    except (ValueError, RecursionError):  # tomllib's own: an integer of thousands of digits, nesting too deep
        raise ConfigError(
            f"config file {where} is not a config: a number too long or nesting too deep"
        ) from None
    return build_config(data, overrides, origin)


def to_dict(cfg: Config) -> dict[str, dict[str, Any]]:
    return {sec: dataclasses.asdict(getattr(cfg, sec)) for sec in SECTIONS}


def _toml_value(v: Any) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int | float):
        return repr(v)
    if isinstance(v, dict):
        return "{ " + ", ".join(f"{k} = {_toml_value(x)}" for k, x in v.items()) + " }"
    s = str(v).replace("\\", "\\\\").replace('"', '\\"')
    return f'"{s}"'


def render_toml(cfg: Config) -> str:
    """The settings as a documented TOML file (what `config show` prints)."""
    lines = [
        "# edge-assist settings. Every key, its unit and its range; generated by `edge-assist config show`.",
        "",
    ]
    for sec in SECTIONS:
        obj = getattr(cfg, sec)
        lines.append(f"[{sec}]")
        for f in dataclasses.fields(obj):
            meta = f.metadata
            extra = []
            if meta.get("choices"):
                extra.append("one of: " + ", ".join(meta["choices"]))
            if meta.get("lo") is not None or meta.get("hi") is not None:
                lo = "" if meta.get("lo") is None else f"{meta['lo']:g}"
                hi = "" if meta.get("hi") is None else f"{meta['hi']:g}"
                extra.append(f"range: {lo}..{hi}")
            lines.append(f"# {meta.get('doc', '')}" + (f" [{'; '.join(extra)}]" if extra else ""))
            lines.append(f"{f.name} = {_toml_value(getattr(obj, f.name))}")
        lines.append("")
    return "\n".join(lines)
