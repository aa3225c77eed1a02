"""The report's pages (topiceval.report): a CSV table as a page that shows every cell as
written, and the guide rendered from its template.  The whole report of a run is built in
tests/test_report.py."""

import base64
import html
import re

import docutils.utils
import jinja2
import pytest

from topiceval.report import guide_page, table_page, write_table_pages

CSV = 'method,logp_nats,note\nchib,-1.5e-300,"a, b <c> & ""d"""\nlr,nan,\n'


def cells(page: str) -> list[str]:
    return [html.unescape(c) for c in re.findall(r"<t[hd][^>]*>(.*?)</t[hd]>", page)]


def test_table_page_shows_every_cell_as_written_and_holds_the_csv(tmp_path):
    path = tmp_path / "t.csv"
    path.write_bytes(CSV.encode())
    page = table_page(path)
    assert cells(page) == ["method", "logp_nats", "note", "chib", "-1.5e-300",
                           'a, b <c> & "d"', "lr", "nan", ""]
    assert '<td class="number">-1.5e-300</td>' in page and "<td>chib</td>" in page
    data = re.search(r'href="data:text/csv;base64,([^"]+)" download="t.csv"', page).group(1)
    assert base64.b64decode(data) == CSV.encode()
    assert "2 rows of 3 columns" in page


def test_write_table_pages_writes_the_page_of_each_named_csv(tmp_path):
    (tmp_path / "a.csv").write_text("x\n1\n")
    outputs = {"table": str(tmp_path / "a.csv"), "table_page": str(tmp_path / "p" / "a.html"),
               "caption": str(tmp_path / "a.caption.md")}
    assert write_table_pages(outputs) == [tmp_path / "p" / "a.html"]
    assert cells((tmp_path / "p" / "a.html").read_text()) == ["x", "1"]
    with pytest.raises(ValueError, match="output 'f1_page' has no CSV output 'f1'"):
        write_table_pages({"f1_page": str(tmp_path / "b.html")})


def test_guide_renders_the_configuration_and_refuses_broken_templates(tmp_path):
    template = tmp_path / "guide.rst"
    template.write_text("{% set cfg = config %}\nTitle\n=====\n\n- documents: {{ cfg.max_docs }}\n")
    page = guide_page(template, {"max_docs": 150})
    assert "<title>Title</title>" in page and "documents: 150" in page
    with pytest.raises(jinja2.UndefinedError):
        guide_page(template, {})
    template.write_text("Title\n=====\n\n`unclosed\n")
    with pytest.raises(docutils.utils.SystemMessage):
        guide_page(template, {})
