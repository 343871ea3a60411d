"""`arena serve --config FILE`: the server's settings in a TOML file.

Every option of `arena serve` has a key, its long flag without the dashes and with
``_`` for ``-`` (``--move-ms`` is ``move_ms``, ``--ladder/--no-ladder`` is ``ladder``);
an option that may be repeated takes a list (``origin = ["https://a.example"]``),
``settings`` a table as well as JSON text, ``house`` a list as well as
comma-separated text, ``limit``/``guest_limit`` a table (``limit = {"heaps.positions"
= 4000000}``) as well as ``GAME.SIZE=N`` items. The file gives click its defaults
(``default_map``), so a flag given on the command line overrides the file. Several
ladders are ``[[ladders]]`` tables (`LADDER_KEYS`, made into `LadderConfig` values by
`ladder_configs`); seasons are ``[[seasons]]`` tables (read by
`arena.seasons.seasons_from_toml`, as ``--seasons FILE`` reads them; that flag, given,
replaces the file's). A section table (`SECTIONS`: ``[accounts]``) groups options: its
keys are those options' keys. An unknown key, or a value of the wrong type or out of
range, is an error naming the key (and the closest known key).
"""

from __future__ import annotations

import difflib
import json
import tomllib
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

if TYPE_CHECKING:
    from arena.clock import TimeControl
    from arena.registry import Registry
    from arena.server.config import LadderConfig

__all__ = [
    "ACCOUNTS_META",
    "ACCOUNT_BUDGETS",
    "LADDERS_META",
    "LADDER_KEYS",
    "SEASONS_META",
    "SECTIONS",
    "config_keys",
    "key_of",
    "ladder_configs",
    "load_config",
]

LADDERS_META = "arena.config.ladders"
"""Where `load_config` leaves the file's ``[[ladders]]`` tables, in the click context's
``meta`` (a list; absent: the file has none)."""

ACCOUNTS_META = "arena.config.accounts"
"""Where `load_config` leaves the ``[accounts]`` budgets that are no option of their own
(`ACCOUNT_BUDGETS`: ``bots_per_person = 3``...), a dict, in the click context's ``meta``."""

SEASONS_META = "arena.config.seasons"
"""Where `load_config` leaves the file's ``[[seasons]]`` (a tuple of
`arena.seasons.SeasonConfig`), in the click context's ``meta`` (absent: none)."""

SECTIONS: Mapping[str, tuple[str, ...]] = {
    "accounts": ("signup",),
}
"""The section tables a file may have, each with the keys of the options it groups
(``[accounts]`` ``signup = "invite"`` is ``--signup invite``). A key of a section
whose option this server does not have yet is an error saying so; a future section is
one line here."""


def _account_budgets() -> dict[str, type]:
    from dataclasses import fields

    from arena.config import AccountsConfig

    return {field.name: type(getattr(AccountsConfig(), field.name))
            for field in fields(AccountsConfig) if field.name not in SECTIONS["accounts"]}


ACCOUNT_BUDGETS: Mapping[str, type] = _account_budgets()
"""The ``[accounts]`` keys that are budgets of `arena.config.AccountsConfig` with no
option of their own (``bots_per_person``, ``versions_per_day``...), with their types:
the file is the one place an operator changes them."""

LADDER_KEYS: Mapping[str, str] = {
    "name": "the ladder's name, unique on the server (required)",
    "game": "the game it plays (required)",
    "settings": "the game's settings, a table (or JSON text); default: the game's defaults",
    "grammar": "substitution game: a grammar preset or file, instead of settings",
    "moves": "substitution game: turns per player, with grammar",
    "generator": "instead of settings: \"default\" or a table of the game's generator "
                 "parameters (a fresh start every pairing)",
    "time_control": "a table of move_ms, bank_ms, first_move_ms, retries, grace_ms, kind "
                    "(\"wall\" or \"cpu\": hosted bots timed by CPU time); keys left out "
                    "are the server's",
    "rated": "whether its games change its ratings (default true)",
    "house": "house bots' specs, a list (or comma-separated text)",
    "house_vs_house": "let its house bots play each other (default: the server's)",
    "max_games": "ladder games in flight per bot (default: the server's)",
    "interval": "seconds between its pairing rounds (default: the server's)",
    "pairings_per_hour": "times the same two accounts meet on it in an hour (default: the "
                         "server's)",
}
"""The keys of a ``[[ladders]]`` table, with what each means (docs/server.md)."""

_SINGLE_LADDER = ("game", "settings_json", "grammar", "moves", "house")
"""The parameters of the single-ladder flags, which ``[[ladders]]`` replaces."""

_TIME_KEYS = ("move_ms", "bank_ms", "first_move_ms", "retries", "grace_ms", "kind")


def key_of(param: click.Parameter) -> str:
    """The file's key for an option: its long flag, ``-`` written ``_``."""
    flag = next(opt for opt in param.opts if opt.startswith("--"))
    return flag[2:].replace("-", "_")


def config_keys(command: click.Command) -> dict[str, click.Option]:
    """Every key a configuration file may give `command`, with its option."""
    return {key_of(param): param for param in command.params
            if isinstance(param, click.Option) and param.name != "config"}


def _kind(value: Any) -> str:
    """What a TOML value is, in TOML's words."""
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int):
        return "an integer"
    if isinstance(value, float):
        return "a float"
    if isinstance(value, str):
        return f"the string {value!r}"
    if isinstance(value, list):
        return "an array"
    if isinstance(value, dict):
        return "a table"
    return f"a {type(value).__name__}"


def _wrong(where: str, key: str, wanted: str, value: Any) -> click.BadParameter:
    return click.BadParameter(f"{where}: {key} must be {wanted}, not {_kind(value)}",
                              param_hint="--config")


def _strings(where: str, key: str, value: Any) -> list[str]:
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        raise _wrong(where, key, "an array of strings", value)
    return list(value)


def _option_value(where: str, key: str, option: click.Option, value: Any,
                  ctx: click.Context) -> Any:
    """`value` checked strictly against the option's type, then by click (ranges)."""
    if key == "settings" and isinstance(value, dict):
        value = json.dumps(value)
    elif key == "house" and isinstance(value, list):
        value = ",".join(_strings(where, key, value))
    elif key in ("limit", "guest_limit") and isinstance(value, dict):
        value = [f"{name}={size}" for name, size in value.items()]
    if option.multiple:
        return [_option_value(where, key, _single(option), item, ctx)
                for item in _strings(where, key, value)]
    if option.is_flag or isinstance(option.type, click.types.BoolParamType):
        if not isinstance(value, bool):
            raise _wrong(where, key, "true or false", value)
        return value
    number = option.type
    if isinstance(number, click.types.IntParamType):
        if isinstance(value, bool) or not isinstance(value, int):
            raise _wrong(where, key, "an integer", value)
    elif isinstance(number, click.types.FloatParamType):
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise _wrong(where, key, "a number", value)
    elif not isinstance(value, str):
        raise _wrong(where, key, "a string" + (" or a table" if key == "settings" else ""),
                     value)
    try:
        return number.convert(value, option, ctx)
    except click.BadParameter as error:
        raise click.BadParameter(f"{where}: {key}: {error.message}",
                                 param_hint="--config") from None


def _single(option: click.Option) -> click.Option:
    """`option` as if it were given once (to check one item of a repeated option)."""
    return click.Option(option.opts, type=option.type)


def _budget(where: str, key: str, kind: type, value: Any) -> int | float:
    """A budget's value: a positive integer, or a positive number for one in seconds."""
    if kind is int:
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise _wrong(where, key, "a positive integer", value)
        return value
    if isinstance(value, bool) or not isinstance(value, int | float) or not value > 0:
        raise _wrong(where, key, "a positive number", value)
    return float(value)


def _unknown(where: str, key: str, known: Sequence[str]) -> click.BadParameter:
    close = difflib.get_close_matches(key, known, n=1)
    hint = f" (did you mean {close[0]!r}?)" if close else ""
    return click.BadParameter(f"{where}: unknown key {key!r}{hint}; the keys: "
                              f"{', '.join(sorted(known))}", param_hint="--config")


def load_config(ctx: click.Context, param: click.Parameter, value: str | None) -> str | None:
    """The ``--config`` callback (eager): read the file into the context's
    ``default_map`` (and its ``[[ladders]]`` into ``meta``)."""
    if value is None:
        return None
    path = Path(value)
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except OSError as error:
        raise click.BadParameter(f"{value}: {error.strerror or error}",
                                 param_hint="--config") from None
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as error:
        raise click.BadParameter(f"{value}: not TOML: {error}", param_hint="--config") from None
    assert isinstance(ctx.command, click.Command)
    options = config_keys(ctx.command)
    defaults: dict[str, Any] = dict(ctx.default_map or {})
    items: list[tuple[str, str, Any]] = []
    """(where the key was, the option's key, its value)"""
    for key, item in data.items():
        if key == "ladders" or (key == "seasons" and isinstance(item, list)):
            continue
        if key in SECTIONS:
            if not isinstance(item, dict):
                raise _wrong(value, key, f"a table ([{key}])", item)
            for inner, inner_item in item.items():
                where = f"{key}.{inner}"
                if key == "accounts" and inner in ACCOUNT_BUDGETS:
                    budgets = ctx.meta.setdefault(ACCOUNTS_META, {})
                    budgets[inner] = _budget(value, where, ACCOUNT_BUDGETS[inner], inner_item)
                    continue
                if inner not in SECTIONS[key]:
                    known = [*SECTIONS[key], *(ACCOUNT_BUDGETS if key == "accounts" else ())]
                    raise _unknown(value, where, [f"{key}.{k}" for k in known])
                if inner not in options:
                    raise click.BadParameter(
                        f"{value}: {where}: this server has no --{inner.replace('_', '-')} "
                        f"yet ([{key}] is read; its keys come with the feature)",
                        param_hint="--config")
                items.append((where, inner, inner_item))
            continue
        if key not in options:
            raise _unknown(value, key, [*options, "ladders", *SECTIONS])
        items.append((key, key, item))
    for where, key, item in items:
        option = options[key]
        assert option.name is not None
        defaults[option.name] = _option_value(value, where, option, item, ctx)
    if isinstance(data.get("seasons"), list):
        from arena.seasons import SeasonConfigError, seasons_from_toml

        try:
            ctx.meta[SEASONS_META] = seasons_from_toml(data["seasons"])
        except SeasonConfigError as error:
            raise click.BadParameter(f"{value}: {error}", param_hint="--config") from None
    if "ladders" in data:
        ladders = data["ladders"]
        if not isinstance(ladders, list) or not all(isinstance(t, dict) for t in ladders):
            raise _wrong(value, "ladders", "an array of tables ([[ladders]])", ladders)
        ctx.meta[LADDERS_META] = [_ladder_table(value, index, table)
                                  for index, table in enumerate(ladders)]
    ctx.default_map = defaults
    return value


def _ladder_table(where: str, index: int, table: Mapping[str, Any]) -> dict[str, Any]:
    """A ``[[ladders]]`` table with its keys and types checked."""
    from arena.server.ladder import LADDER_NAME

    prefix = f"ladders[{index}]"
    for key in table:
        if key not in LADDER_KEYS:
            raise _unknown(where, f"{prefix}.{key}", [f"{prefix}.{k}" for k in LADDER_KEYS])
    for key in ("name", "game"):
        if key not in table:
            raise click.BadParameter(f"{where}: {prefix} has no {key} (each ladder needs "
                                     "a name and a game)", param_hint="--config")
    kinds: dict[str, tuple[str, tuple[type, ...]]] = {
        "name": ("a string", (str,)), "game": ("a string", (str,)),
        "settings": ("a table or JSON text", (dict, str)), "grammar": ("a string", (str,)),
        "moves": ("an integer", (int,)), "generator": ("\"default\" or a table", (str, dict)),
        "time_control": ("a table", (dict,)), "rated": ("true or false", (bool,)),
        "house": ("an array of strings or comma-separated text", (list, str)),
        "house_vs_house": ("true or false", (bool,)), "max_games": ("an integer", (int,)),
        "interval": ("a number", (int, float)), "pairings_per_hour": ("an integer", (int,)),
    }
    for key, item in table.items():
        wanted, types = kinds[key]
        if not isinstance(item, types) or (isinstance(item, bool) and bool not in types):
            raise _wrong(where, f"{prefix}.{key}", wanted, item)
    if isinstance(table.get("house"), list):
        _strings(where, f"{prefix}.house", table["house"])
    name = table["name"]
    if not LADDER_NAME.fullmatch(name):
        raise click.BadParameter(f"{where}: {prefix}.name {name!r}: give 1-64 letters, "
                                 "digits, '-', '_' or '.'", param_hint="--config")
    if "settings" in table and "generator" in table:
        raise click.BadParameter(f"{where}: {prefix} gives both settings and generator: a "
                                 "ladder plays fixed settings or draws them, not both",
                                 param_hint="--config")
    for key, low in (("max_games", 2), ("pairings_per_hour", 0), ("moves", 1)):
        if key in table and table[key] < low:
            raise click.BadParameter(f"{where}: {prefix}.{key} must be at least {low}",
                                     param_hint="--config")
    if "interval" in table and table["interval"] <= 0:
        raise click.BadParameter(f"{where}: {prefix}.interval must be positive",
                                 param_hint="--config")
    from arena.clock import TIME_KINDS

    control = table.get("time_control", {})
    for key, item in control.items():
        if key not in _TIME_KEYS:
            raise _unknown(where, f"{prefix}.time_control.{key}",
                           [f"{prefix}.time_control.{k}" for k in _TIME_KEYS])
        if key == "kind":
            if item not in TIME_KINDS:
                raise _wrong(where, f"{prefix}.time_control.kind",
                             " or ".join(f'"{kind}"' for kind in TIME_KINDS), item)
        elif isinstance(item, bool) or not isinstance(item, int) or item < 0:
            raise _wrong(where, f"{prefix}.time_control.{key}", "a whole number of "
                         "milliseconds (retries: a count), at least 0", item)
    return dict(table)


def single_ladder_given(ctx: click.Context) -> list[str]:
    """The single-ladder options given (on the command line or in the file)."""
    from click.core import ParameterSource

    given = []
    for param in ctx.command.params:
        if param.name in _SINGLE_LADDER and ctx.get_parameter_source(param.name) in (
                ParameterSource.COMMANDLINE, ParameterSource.DEFAULT_MAP):
            given.append(key_of(param))
    return given


def ladder_configs(tables: Sequence[Mapping[str, Any]], *, registry: Registry,
                   defaults: Mapping[str, Any], time_control: TimeControl,
                   default_settings: Callable[[str], Mapping[str, Any]]
                   ) -> tuple[LadderConfig, ...]:
    """`LadderConfig` values of ``[[ladders]]`` tables (checked by `load_config`).

    `defaults` holds the server-wide ``house_vs_house``, ``max_games``, ``interval`` and
    ``pairings_per_hour``; `time_control` the server's `TimeControl`, which an entry's
    ``time_control`` changes; `default_settings(game)` gives a game's settings when an
    entry gives none.

    Raises:
        ArenaError, ValueError: bad settings, generator parameters or house bots.
    """
    from dataclasses import replace

    from arena.server.config import LadderConfig
    from arena.starts import draw_settings, generator_params

    ladders = []
    for table in tables:
        game = table["game"]
        registry.game_class(game)  # an unknown game: its own clear error
        generator = None
        settings: Mapping[str, Any] = {}
        if "generator" in table:
            generator = generator_params(table["generator"])
        elif "settings" in table:
            raw = table["settings"]
            settings = json.loads(raw) if isinstance(raw, str) else dict(raw)
        elif "grammar" in table or "moves" in table:
            settings = registry.cli_settings(game, {
                "grammar": table.get("grammar", "medium"), "moves": table.get("moves"),
                "default_moves": 50}) or {}
        else:
            settings = default_settings(game)
        house = table.get("house", ())
        if isinstance(house, str):
            specs = tuple(str(spec) for spec in registry.parse_bots(game, house)) if house else ()
        else:
            specs = tuple(str(spec) for item in house for spec in registry.parse_bots(game, item))
        if specs:  # as the single ladder's: built once now, never a program a file names
            rules = registry.load_game(game, settings if generator is None else draw_settings(
                registry.game_class(game), generator, 0))
            for spec in specs:
                registry.make_bot(rules, spec, allow_exec=False)
        control = (replace(time_control, **table["time_control"])
                   if "time_control" in table else None)
        ladders.append(LadderConfig(
            game=game, settings=settings, house=specs,
            house_vs_house=table.get("house_vs_house", defaults["house_vs_house"]),
            interval=float(table.get("interval", defaults["interval"])),
            max_games=table.get("max_games", defaults["max_games"]),
            pairings_per_hour=table.get("pairings_per_hour", defaults["pairings_per_hour"]),
            name=table["name"], time_control=control, rated=table.get("rated", True),
            generator=generator))
    return tuple(ladders)
