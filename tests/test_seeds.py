"""Verifiable dice: fresh 128-bit seeds, commitments, their text form in logs, and
`arena validate` catching a seed that is not the one committed to."""

from __future__ import annotations

import dataclasses
import hashlib
import json

import pytest

from arena.errors import LogFormatError
from arena.games.substitution import Settings, SubstitutionGame
from arena.match import play_match
from arena.record import read_jsonl, to_jsonl
from arena.registry import default_registry
from arena.seeds import (
    SEED_BITS,
    check_commitment,
    new_seed,
    parse_seed,
    seed_commitment,
    seed_to_json,
)
from arena.validate import validate_record


def test_fresh_seeds_are_128_bit_and_differ():
    seeds = {new_seed() for _ in range(64)}
    assert len(seeds) == 64
    assert all(0 <= seed < 2**SEED_BITS for seed in seeds)
    assert max(seed.bit_length() for seed in seeds) > 120


def test_the_commitment_is_the_sha256_of_the_documented_text():
    seed = 2**127 + 12345
    text = f"arena-seed-v1:g0123:{seed}".encode()
    assert seed_commitment("g0123", seed) == hashlib.sha256(text).hexdigest()
    assert check_commitment("g0123", seed, seed_commitment("g0123", seed).upper())
    assert not check_commitment("g0123", seed + 1, seed_commitment("g0123", seed))
    assert not check_commitment("g0124", seed, seed_commitment("g0123", seed))


def test_seeds_as_text_and_json():
    big = 2**128 - 1
    assert parse_seed(str(big)) == big and parse_seed(7) == 7 and parse_seed(None) is None
    assert seed_to_json(7) == 7 and seed_to_json(big) == str(big)  # exact in every reader
    for bad in ("07", "1.5", "", "0x10", 1.5, True, "9" * 200):
        with pytest.raises(ValueError):
            parse_seed(bad)


def played(seed: int, match_id: str = "g1") -> str:
    game = SubstitutionGame(Settings.preset("medium", 6))
    registry = default_registry()
    match = play_match(game, [registry.make_bot(game, "random")] * 2, seed=seed,
                       match_id=match_id)
    record = dataclasses.replace(match.record(), seed_commitment=seed_commitment(match_id, seed))
    return to_jsonl(record)


def test_a_committed_log_validates_and_keeps_its_big_seed_exactly():
    seed = 2**127 + 987654321
    text = played(seed)
    header = json.loads(text.splitlines()[0])
    assert header["seed"] == str(seed) and header["seed_commitment"] == seed_commitment("g1", seed)
    record = read_jsonl(text.splitlines())
    assert record.seed == seed
    assert validate_record(record) is None


def test_validate_catches_a_seed_that_is_not_the_one_committed_to():
    seed = 2**127 + 5
    record = read_jsonl(played(seed).splitlines())
    # a server that picked other dice after the fact: the rolls follow the new seed,
    # but the commitment published before the first move names the old one
    other = read_jsonl(played(seed + 1).splitlines())
    forged = dataclasses.replace(other, seed_commitment=record.seed_commitment)
    assert validate_record(dataclasses.replace(other, seed_commitment=None)) is None
    defect = validate_record(forged)
    assert defect is not None and defect.code == "seed-commitment-mismatch"
    hidden = dataclasses.replace(record, seed=None)
    defect = validate_record(hidden)
    assert defect is not None and defect.code == "missing-seed"


def test_old_logs_with_small_integer_seeds_stay_valid():
    text = played(11)
    header = json.loads(text.splitlines()[0])
    del header["seed_commitment"]  # as logs were written before commitments
    lines = [json.dumps(header), *text.splitlines()[1:]]
    record = read_jsonl(lines)
    assert record.seed == 11 and record.seed_commitment is None
    assert validate_record(record) is None


def test_a_seed_that_is_not_a_decimal_integer_is_a_format_error():
    lines = played(11).splitlines()
    header = json.loads(lines[0])
    header["seed"] = "eleven"
    with pytest.raises(LogFormatError, match="seed"):
        read_jsonl([json.dumps(header), *lines[1:]])


def test_arena_validate_checks_the_commitment(tmp_path):
    from click.testing import CliRunner

    from arena.cli import main

    good = played(2**127 + 9, "g7")
    header = json.loads(good.splitlines()[0])
    header["seed"] = str(2**127 + 10)  # a seed revealed after the fact
    forged = "\n".join([json.dumps(header), *good.splitlines()[1:]]) + "\n"
    (tmp_path / "good.jsonl").write_text(good, encoding="utf-8")
    (tmp_path / "forged.jsonl").write_text(forged, encoding="utf-8")
    result = CliRunner().invoke(main, ["validate", str(tmp_path / "good.jsonl")])
    assert result.exit_code == 0, result.output
    result = CliRunner().invoke(main, ["validate", str(tmp_path / "forged.jsonl")])
    assert result.exit_code == 1 and "seed-commitment-mismatch" in result.output
