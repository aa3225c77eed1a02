"""NLTK stop words and WordNet: from a (verified) mirror, or nltk.download into a given dir."""

from __future__ import annotations

import nltk
import pytest

from data_fixtures import SHARED_MIRROR
from topiceval.data import nltk_resources
from topiceval.data.download import DownloadError


def test_download_path_uses_the_given_directory(tmp_path, monkeypatch):
    calls = []

    def fake_download(package, download_dir=None, quiet=False, raise_on_error=False):
        calls.append((package, download_dir, quiet, raise_on_error))
        (tmp_path / "nltk_data" / "corpora" / package).mkdir(parents=True)
        return True

    monkeypatch.setattr(nltk, "download", fake_download)
    monkeypatch.setattr(nltk.data, "path", list(nltk.data.path))
    target = nltk_resources.install(tmp_path / "nltk_data")
    assert target == tmp_path / "nltk_data"
    expected_dir = str(tmp_path / "nltk_data")
    assert calls == [("stopwords", expected_dir, True, True), ("wordnet", expected_dir, True, True)]
    assert nltk.data.path[0] == str(target.resolve())


def test_failed_download_is_an_error(tmp_path, monkeypatch):
    monkeypatch.setattr(nltk, "download", lambda *a, **k: False)
    monkeypatch.setattr(nltk.data, "path", list(nltk.data.path))
    with pytest.raises(ValueError, match=r"nltk.download\('stopwords'\) into .* failed"):
        nltk_resources.install(tmp_path / "nltk_data")


def test_nltk_install_from_a_corrupt_mirror_fails_cleanly(tmp_path):
    mirror = tmp_path / "mirror"
    (mirror / "nltk_data" / "corpora").mkdir(parents=True)
    (mirror / "nltk_data" / "corpora" / "stopwords.zip").write_bytes(b"not the zip")
    with pytest.raises(DownloadError, match="corpora/stopwords.zip: sha256 mismatch"):
        nltk_resources.install(tmp_path / "nltk_data", mirror=mirror)
    assert not any(p.is_file() for p in (tmp_path / "nltk_data").rglob("*"))


def test_nltk_resolve_errors(tmp_path, monkeypatch):
    monkeypatch.setattr(nltk.data, "path", list(nltk.data.path))
    with pytest.raises(ValueError, match="neither an nltk_data directory"):
        nltk_resources.resolve(tmp_path)
    (tmp_path / "corpora").mkdir()
    with pytest.raises(ValueError, match=r"lacks \['stopwords', 'wordnet'\]"):
        nltk_resources.activate(tmp_path)


@pytest.mark.slow
@pytest.mark.skipif(not SHARED_MIRROR.is_dir(), reason=f"no staged data mirror at {SHARED_MIRROR}")
def test_nltk_install_from_the_staged_mirror_works_offline(tmp_path):
    home = sorted(p.name for p in (tmp_path.parent).iterdir())
    target = nltk_resources.install(tmp_path / "nltk_data", mirror=SHARED_MIRROR)
    assert len(nltk_resources.english_stopwords(target)) == 179
    lemmatizer = nltk_resources.wordnet_lemmatizer(target)
    assert lemmatizer.lemmatize("geese") == "goose"
    assert nltk_resources.resolve(SHARED_MIRROR) == SHARED_MIRROR / "nltk_data"
    assert sorted(p.name for p in (tmp_path.parent).iterdir()) == home
