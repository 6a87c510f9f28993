"""core.retrieval.beir: loading and checking BEIR folders, where they come from, and the download."""
import json
from pathlib import Path

import pytest

import core.retrieval.beir as beir
from core.__main__ import main
from core.retrieval.beir import (BeirData, check_dir, download_beir, find_or_download, load_beir,
                       resolve_dir)
from core.errors import InputError

from tests.shared_data import SHARED, TINY, needs_shared


def _copy_tiny(dest: Path) -> Path:
    (dest / "qrels").mkdir(parents=True)
    for rel in ("corpus.jsonl", "queries.jsonl", "qrels/test.tsv"):
        (dest / rel).write_bytes((TINY / rel).read_bytes())
    return dest


def test_tiny_fixture_loads():
    d = load_beir(TINY)
    assert isinstance(d, BeirData)
    assert (d.name, d.n_docs, d.n_queries, d.n_judgements) == ("beir_tiny", 25, 12, 14)
    assert "q13" not in d.queries  # unjudged queries are not evaluated
    assert d.query_ids == tuple(sorted(d.qrels))
    i = d.doc_ids.index("d02")
    assert d.texts[i] == ("Baking bread at home Bread rises because yeast ferments sugars and "
                          "releases carbon dioxide that the gluten network traps.")
    assert d.texts[d.doc_ids.index("d25")].startswith("A note without a title")  # stripped
    assert d.qrels["q7"] == {"d24": 1, "d10": 0}
    assert d.content_hash == load_beir(TINY).content_hash
    assert d.to_dict()["n_docs"] == 25


@needs_shared
def test_shared_scifact_sizes():
    d = load_beir(SHARED)
    assert (d.name, d.n_docs, d.n_queries, d.n_judgements) == ("scifact", 5183, 300, 339)


def test_content_hash_changes_with_text(tmp_path):
    p = _copy_tiny(tmp_path / "c")
    h1 = load_beir(p).content_hash
    lines = (p / "corpus.jsonl").read_text().splitlines()
    rec = json.loads(lines[0])
    rec["text"] += " changed"
    lines[0] = json.dumps(rec)
    (p / "corpus.jsonl").write_text("\n".join(lines) + "\n")
    assert load_beir(p).content_hash != h1


def _broken(tmp_path, rel, edit):
    p = _copy_tiny(tmp_path / "b")
    lines = (p / rel).read_text(encoding="utf-8").splitlines()
    edit(lines)
    (p / rel).write_text("\n".join(lines) + "\n", encoding="utf-8")
    return p


@pytest.mark.parametrize("rel, edit, code, row", [
    ("corpus.jsonl", lambda ls: ls.__setitem__(3, '{"_id": "d04", "text": '), "scifact.err_bad_json", 4),
    ("corpus.jsonl", lambda ls: ls.__setitem__(5, '{"title": "t", "text": "x"}'), "scifact.err_missing_key", 6),
    ("corpus.jsonl", lambda ls: ls.__setitem__(6, '["not", "an", "object"]'), "scifact.err_not_object", 7),
    ("corpus.jsonl", lambda ls: ls.append(ls[1]), "scifact.err_duplicate_id", 26),
    ("corpus.jsonl", lambda ls: ls.__setitem__(0, '{"_id": "d01", "text": 5}'), "scifact.err_not_text", 1),
    ("corpus.jsonl", lambda ls: ls.__setitem__(0, '{"_id": "", "text": "x"}'), "scifact.err_bad_id", 1),
    ("queries.jsonl", lambda ls: ls.__setitem__(2, "not json"), "scifact.err_bad_json", 3),
    ("qrels/test.tsv", lambda ls: ls.append("q1\tnope\t1"), "scifact.err_unknown_doc", 16),
    ("qrels/test.tsv", lambda ls: ls.append("q99\td01\t1"), "scifact.err_unknown_query", 16),
    ("qrels/test.tsv", lambda ls: ls.__setitem__(4, "q3\td08\thigh"), "scifact.err_qrels_score", 5),
    ("qrels/test.tsv", lambda ls: ls.__setitem__(4, "q3\td08\t0.5"), "scifact.err_qrels_score", 5),
    ("qrels/test.tsv", lambda ls: ls.__setitem__(2, "q1 d01 1"), "scifact.err_qrels_fields", 3),
    ("qrels/test.tsv", lambda ls: ls.append("q1\td02\t1"), "scifact.err_duplicate_qrel", 16),
])
def test_bad_lines_are_reported_with_their_line_number(tmp_path, rel, edit, code, row):
    p = _broken(tmp_path, rel, edit)
    with pytest.raises(InputError) as ei:
        load_beir(p)
    assert ei.value.code == code
    assert ei.value.row == row
    assert ei.value.file.endswith(rel.split("/")[-1])
    assert f"row {row}" in str(ei.value)


def test_qrels_without_header_and_trec_style(tmp_path):
    p = _broken(tmp_path, "qrels/test.tsv", lambda ls: ls.pop(0))
    assert load_beir(p).n_judgements == 14
    p2 = _broken(tmp_path / "x", "qrels/test.tsv",
                 lambda ls: ls.__setitem__(slice(1, None),
                                           [f"{a}\t0\t{b}\t{c}" for a, b, c in
                                            (x.split("\t") for x in ls[1:])]))
    assert load_beir(p2).qrels == load_beir(TINY).qrels


def test_not_utf8(tmp_path):
    p = _copy_tiny(tmp_path / "u")
    (p / "queries.jsonl").write_bytes('{"_id": "q1", "text": "검색"}\n'.encode("cp949"))
    with pytest.raises(InputError) as ei:
        load_beir(p)
    assert ei.value.code == "scifact.err_encoding"


def test_missing_folder_and_files(tmp_path):
    with pytest.raises(InputError) as ei:
        check_dir(tmp_path / "nope")
    assert ei.value.code == "scifact.err_no_folder"
    assert "NOISEFLOOR_BEIR_DIR" in str(ei.value)
    (tmp_path / "half").mkdir()
    (tmp_path / "half" / "corpus.jsonl").write_text('{"_id": "1", "text": "x"}\n')
    with pytest.raises(InputError) as ei:
        load_beir(tmp_path / "half")
    assert ei.value.code == "scifact.err_missing_file" and "queries.jsonl" in str(ei.value)
    with pytest.raises(InputError) as ei:
        load_beir(tmp_path / "half" / "corpus.jsonl")
    assert ei.value.code == "scifact.err_not_folder"


def test_korean_message():
    err = InputError("scifact.err_unknown_doc", file="test.tsv", row=3, id="x")
    assert "corpus.jsonl" in err.message("ko") and "3" in err.message("ko")


def test_resolve_dir_order(monkeypatch, tmp_path):
    monkeypatch.delenv("NOISEFLOOR_BEIR_DIR", raising=False)
    assert resolve_dir(None) == (beir.DEFAULT_DIR, "default")
    monkeypatch.setenv("NOISEFLOOR_BEIR_DIR", str(tmp_path))
    assert resolve_dir(None) == (tmp_path, "env")
    assert resolve_dir(TINY) == (TINY, "explicit")


class FakeHub:
    """Stands in for datasets.load_dataset: records the calls, serves tiny records."""

    def __init__(self, fail=False):
        self.calls, self.fail = [], fail

    def __call__(self, path, config=None, split=None):
        self.calls.append((path, config, split))
        if self.fail:
            raise ConnectionError("Couldn't reach 'BeIR/scifact' on the Hub (LocalEntryNotFoundError)")
        if config == "corpus":
            return [{"_id": "10", "title": "Ice", "text": "Glaciers move."},
                    {"_id": "11", "title": "", "text": "Rivers flow."}]
        if config == "queries":
            return [{"_id": "1", "text": "do glaciers move"}, {"_id": "2", "text": "rivers"}]
        return [{"query-id": "1", "corpus-id": "10", "score": 1}]


def test_download_writes_the_layout(tmp_path):
    hub = FakeHub()
    dest = download_beir(tmp_path / "scifact", loader=hub)
    assert hub.calls == [("BeIR/scifact", "corpus", "corpus"), ("BeIR/scifact", "queries", "queries"),
                         ("BeIR/scifact-qrels", None, "test")]
    d = load_beir(dest)
    assert (d.name, d.n_docs, d.n_queries) == ("scifact", 2, 1)
    assert d.texts == ("Ice Glaciers move.", "Rivers flow.")
    assert not list(dest.rglob("*.part"))


def test_download_failure_says_how_to_point_the_app(tmp_path):
    with pytest.raises(InputError) as ei:
        download_beir(tmp_path / "scifact", loader=FakeHub(fail=True))
    msg = str(ei.value)
    assert ei.value.code == "scifact.err_download"
    assert "--data DIR" in msg and "NOISEFLOOR_BEIR_DIR" in msg
    assert not (tmp_path / "scifact" / "corpus.jsonl").exists()


def test_find_or_download(monkeypatch, tmp_path):
    monkeypatch.delenv("NOISEFLOOR_BEIR_DIR", raising=False)
    monkeypatch.setattr(beir, "DEFAULT_DIR", tmp_path / "default" / "scifact")
    monkeypatch.setattr(beir, "BUNDLE", tmp_path / "no_bundle.tar.gz")  # as without the copy
    hub = FakeHub()
    with pytest.raises(InputError):  # an explicit folder is never downloaded
        find_or_download(tmp_path / "missing", loader=hub)
    assert hub.calls == []
    with pytest.raises(InputError):
        find_or_download(None, download=False, loader=hub)
    got = find_or_download(None, loader=hub)
    assert got == tmp_path / "default" / "scifact" and len(hub.calls) == 3
    find_or_download(None, loader=hub)  # present now: no second download
    assert len(hub.calls) == 3


def test_cli_exit_2_one_line(tmp_path, capsys):
    assert main(["scifact", "--data", str(tmp_path / "nope")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "folder not found" in err
    p = _broken(tmp_path, "qrels/test.tsv", lambda ls: ls.append("q1\tghost\t1"))
    assert main(["scifact", "--data", str(p), "--json"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "row 16" in err and "ghost" in err


# ----------------------------------------------------------------------------- the shipped copy
def test_bundle_checksum_matches_the_shipped_file():
    assert beir.BUNDLE.is_file(), "data/beir/scifact.tar.gz is missing"
    assert beir.file_sha256(beir.BUNDLE) == beir.BUNDLE_SHA256


def test_pack_is_reproducible_and_unpacks_to_the_same_files(tmp_path):
    src = _copy_tiny(tmp_path / "src")
    d1 = beir.pack_beir(src, tmp_path / "one.tar.gz")
    d2 = beir.pack_beir(src, tmp_path / "two.tar.gz")
    assert d1 == d2 and (tmp_path / "one.tar.gz").read_bytes() == (tmp_path / "two.tar.gz").read_bytes()
    import tarfile
    with tarfile.open(tmp_path / "one.tar.gz") as tar:
        members = tar.getmembers()
    assert [m.name for m in members] == sorted(beir.BUNDLE_MEMBERS)
    assert {(m.mtime, m.uid, m.gid, m.uname, m.mode) for m in members} == {(0, 0, 0, "", 0o644)}
    dest = beir.unpack_bundle(tmp_path / "out" / "tiny", bundle=tmp_path / "one.tar.gz",
                              sha256=d1)
    for rel in beir.BUNDLE_MEMBERS:
        assert (dest / rel).read_bytes() == (src / rel).read_bytes()
    assert load_beir(dest).content_hash == load_beir(src).content_hash
    # no temporary folder is left beside it
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == ["tiny"]
    # present now: nothing is read again (a wrong checksum would raise otherwise)
    assert beir.unpack_bundle(dest, bundle=tmp_path / "one.tar.gz", sha256="0" * 64) == dest


def test_unpack_refuses_a_damaged_archive(tmp_path):
    src = _copy_tiny(tmp_path / "src")
    digest = beir.pack_beir(src, tmp_path / "b.tar.gz")
    with pytest.raises(InputError) as err:
        beir.unpack_bundle(tmp_path / "dest", bundle=tmp_path / "b.tar.gz", sha256="f" * 64)
    assert err.value.code == "scifact.err_bundle_checksum"
    assert digest in err.value.message("en") and "b.tar.gz" in err.value.message("en")
    assert not (tmp_path / "dest").exists()
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == []
    assert beir.unpack_bundle(tmp_path / "dest", bundle=tmp_path / "none.tar.gz") is None


def test_unpack_refuses_links_and_missing_members(tmp_path):
    import io
    import tarfile
    bad = tmp_path / "bad.tar.gz"
    with tarfile.open(bad, "w:gz") as tar:
        info = tarfile.TarInfo("corpus.jsonl")
        info.type, info.linkname = tarfile.SYMTYPE, "/etc/passwd"
        tar.addfile(info)
        data = b'{"_id": "q1", "text": "x"}\n'
        info = tarfile.TarInfo("queries.jsonl")
        info.size = len(data)
        tar.addfile(info, io.BytesIO(data))
    with pytest.raises(InputError) as err:
        beir.unpack_bundle(tmp_path / "dest", bundle=bad, sha256=beir.file_sha256(bad))
    assert err.value.code == "scifact.err_bundle_member"
    assert not (tmp_path / "dest").exists()


def test_find_or_download_unpacks_the_bundle_without_network(monkeypatch, tmp_path):
    src = _copy_tiny(tmp_path / "src")
    digest = beir.pack_beir(src, tmp_path / "bundle.tar.gz")
    monkeypatch.delenv(beir.ENV_VAR, raising=False)
    monkeypatch.setattr(beir, "DEFAULT_DIR", tmp_path / "data" / "beir" / "scifact")
    monkeypatch.setattr(beir, "BUNDLE", tmp_path / "bundle.tar.gz")
    monkeypatch.setattr(beir, "BUNDLE_SHA256", digest)

    def no_network(*args, **kwargs):
        raise AssertionError("the shipped copy must not need a download")

    got = find_or_download(None, loader=no_network)
    assert got == tmp_path / "data" / "beir" / "scifact"
    assert load_beir(got).n_queries == 12


def test_download_fails_fast_and_clearly_when_offline(tmp_path):
    import time
    start = time.monotonic()
    with pytest.raises(InputError) as err:
        download_beir(tmp_path / "nfcorpus", name="nfcorpus", reachable=lambda: False)
    assert time.monotonic() - start < 3
    msg = err.value.message("en")
    assert err.value.code == "scifact.err_offline" and "huggingface.co" in msg, msg
    assert "offline" in msg and not (tmp_path / "nfcorpus").exists()


def test_hub_reachable_gives_up_within_its_timeout():
    import time
    start = time.monotonic()
    # 192.0.2.1 is TEST-NET-1 (RFC 5737): never answers
    assert beir.hub_reachable("192.0.2.1", timeout=0.5) is False
    assert time.monotonic() - start < 1.5
    with pytest.raises(ValueError, match="timeout"):
        beir.hub_reachable("example.org", timeout=0)


def test_qrels_scores_go_through_the_one_number_parser(tmp_path):
    """``1,0`` is 1 (a decimal comma, as every reader reads it); ``1,000`` is refused."""
    p = _broken(tmp_path, "qrels/test.tsv",
                lambda ls: ls.__setitem__(slice(1, None),
                                          [x.rsplit("\t", 1)[0] + "\t" + x.rsplit("\t", 1)[1] + ",0"
                                           for x in ls[1:]]))
    assert load_beir(p).qrels == load_beir(TINY).qrels
    bad = _broken(tmp_path / "b", "qrels/test.tsv", lambda ls: ls.__setitem__(4, "q3\td08\t1,000"))
    with pytest.raises(InputError) as ei:
        load_beir(bad)
    assert ei.value.code == "scifact.err_qrels_score" and ei.value.row == 5


# ----------------------------------------------------------------------------- bounded reads
@pytest.mark.skipif(not hasattr(__import__("os"), "mkfifo"), reason="no FIFOs here")
@pytest.mark.parametrize("rel", ["corpus.jsonl", "queries.jsonl", "qrels/test.tsv"])
def test_scifact_data_refuses_a_fifo_at_once_naming_it(tmp_path, capsys, rel):
    """Issue 30: ``scifact --data DIR`` reads its three files through the bounded reader; a
    FIFO in place of one (no writer: a plain open would wait forever) is refused in one
    line naming the file."""
    import os

    p = _copy_tiny(tmp_path / "fifo")
    (p / rel).unlink()
    os.mkfifo(p / rel)
    assert main(["scifact", "--data", str(p)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "not a regular file" in err and rel in err, err


def test_the_beir_readers_themselves_are_bounded(tmp_path, monkeypatch):
    """Past ``check_dir`` (a file swapped after the check): each reader opens through
    ``core.retrieval.safe_files.read_regular``: /dev/zero and a FIFO are refused unread, a
    file over the cap by its size."""
    import os

    with pytest.raises(InputError) as ei:
        beir.read_corpus(Path("/dev/zero"))
    assert ei.value.code == "not_regular_file" and "/dev/zero" in str(ei.value)
    if hasattr(os, "mkfifo"):
        os.mkfifo(tmp_path / "test.tsv")
        with pytest.raises(InputError) as ei:
            beir.read_qrels(tmp_path / "test.tsv", ["d1"], ["q1"])
        assert ei.value.code == "not_regular_file"
    big = tmp_path / "queries.jsonl"
    with open(big, "wb") as fh:
        fh.truncate(beir.MAX_FILE_BYTES + 1)  # sparse: no disk, no memory
    with pytest.raises(InputError) as ei:
        beir.read_queries(big)
    assert ei.value.code == "too_large" and "the limit is 200 MB" in str(ei.value)
    with pytest.raises(InputError) as ei:
        beir.read_corpus(tmp_path / "gone.jsonl")
    assert ei.value.code == "scifact.err_unreadable" and "gone.jsonl" in str(ei.value)


def test_scifact_data_refuses_an_oversized_corpus_in_one_line(tmp_path, capsys):
    p = _copy_tiny(tmp_path / "big")
    with open(p / "corpus.jsonl", "r+b") as fh:
        fh.truncate(beir.MAX_FILE_BYTES + 1)  # sparse: refused by its size, never read
    assert main(["scifact", "--data", str(p)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "corpus.jsonl" in err, err
    assert "the file is 200 MB; the limit is 200 MB" in err, err
