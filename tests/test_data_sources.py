"""The source registry: well-formed, round-trips through YAML, rejects malformed entries."""

from __future__ import annotations

import copy

import pytest
import yaml

from topiceval.data.sources import SOURCES, parse_sources, source_files, sources_yaml


def test_registry_parses_and_round_trips_through_yaml():
    parsed = parse_sources()
    assert set(parsed) == set(SOURCES)
    assert len(source_files("reuters21578")) == 22
    assert len(source_files("20newsgroups")[0].sha256) == 2
    assert yaml.safe_load(sources_yaml()) == {"sources": SOURCES}
    paths = [f.path for files in parsed.values() for f in files]
    assert len(paths) == len(set(paths))


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (lambda f: f.update(sha256=["abc"]), "64 lower-case hex"),
        (lambda f: f.update(colour="red"), r"unknown keys \['colour'\]"),
        (lambda f: f.update(path="../escape"), "must be relative"),
        (lambda f: f.pop("url"), "'url' must be a non-empty string"),
        (lambda f: f.update(sha256=[]), "no accepted sha256"),
        (lambda f: f.update(content_sha256=["a" * 64]), "needs a content_pattern"),
        (lambda f: f.update(content_sha256=["a" * 64], content_pattern="x"), "capture group"),
    ],
)
def test_malformed_entries_are_rejected(edit, message):
    mapping = copy.deepcopy(SOURCES)
    edit(mapping["kos"]["files"][0])
    with pytest.raises(ValueError, match=message):
        parse_sources(mapping)


def test_unknown_source_and_bad_shapes():
    with pytest.raises(ValueError, match="unknown source 'imdb'; known sources"):
        source_files("imdb")
    with pytest.raises(ValueError, match="expected a mapping with a 'files' list"):
        parse_sources({"x": []})
    with pytest.raises(ValueError, match="empty file list"):
        parse_sources({"x": {"files": []}})
