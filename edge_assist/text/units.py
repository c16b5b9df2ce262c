"""Units of measure, by dimension, with a factor to a common base.

The step tracker compares amounts by value with them; memory's entity extraction reads
"2 cups" as an amount, not as a thing. One table for both.
"""

from __future__ import annotations

# Units by dimension, with a factor to a common base (ml for volume, g for mass, s for
# time, cm for length, "count" for pieces). Cooking volume units are approximate US units.
UNITS: dict[str, tuple[str, float]] = {}


def _add(dim: str, factor: float, *names: str) -> None:
    for n in names:
        UNITS[n] = (dim, factor)


_add("volume", 14.8, "tablespoon", "tablespoons", "tbsp", "tbsps", "tbs", "tbl", "tablespoonful")
_add("volume", 4.93, "teaspoon", "teaspoons", "tsp", "tsps", "teaspoonful")
_add("volume", 240.0, "cup", "cups")
_add("volume", 0.001, "µl", "μl", "ul", "microliter", "microliters", "microlitre", "microlitres")
_add("volume", 1.0, "ml", "milliliter", "milliliters", "millilitre", "millilitres")
_add("volume", 1000.0, "l", "liter", "liters", "litre", "litres")
_add("volume", 29.6, "fl oz", "fluid ounce", "fluid ounces")
_add("mass", 1.0, "g", "gram", "grams", "gr")
_add("mass", 1000.0, "kg", "kilogram", "kilograms")
_add("mass", 28.35, "oz", "ounce", "ounces")
_add("mass", 453.6, "lb", "lbs", "pound", "pounds")
_add("time", 1.0, "s", "sec", "secs", "second", "seconds")
_add("time", 60.0, "min", "mins", "minute", "minutes")
_add("time", 3600.0, "h", "hr", "hrs", "hour", "hours")
_add("length", 2.54, "inch", "inches", "in.", '"')
_add("length", 1.0, "cm", "centimeter", "centimeters", "centimetre", "centimetres")
_add("length", 0.1, "mm", "millimeter", "millimeters", "millimetre", "millimetres")
_add("length", 100.0, "m", "meter", "meters", "metre", "metres")
_add("temperature_c", 1.0, "°c", "degrees c", "degrees celsius", "celsius", "c")
_add("temperature_f", 1.0, "°f", "degrees f", "degrees fahrenheit", "fahrenheit", "f")
_add("power", 1.0, "w", "watt", "watts")
_add("pressure", 1.0, "psi", "bar")
_add("torque", 1.0, "nm", "newton metres", "newton meters")
_add("rate", 1.0, "rpm", "g-force", "xg", "× g", "x g")
_add(
    "count",
    1.0,
    "piece",
    "pieces",
    "slice",
    "slices",
    "clove",
    "cloves",
    "pinch",
    "pinches",
    "drop",
    "drops",
    "times",
    "scoop",
    "scoops",
    "sheet",
    "sheets",
    "pinwheel",
    "pinwheels",
    "toothpick",
    "toothpicks",
)

UNIT_NAMES = frozenset(UNITS)
