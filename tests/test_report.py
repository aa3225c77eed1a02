"""The Snakemake report of the quick run (``snakemake --report report.zip`` with the run's options):
every figure and table of every paper is in it, grouped by paper and experiment, each with its
caption, as an item a browser shows (a picture, or a page: a data table is shown as an HTML page
that holds the CSV as a download); the front page is short and leads to the guide, a page of its
own; and building the report changes no result.

Uses the session's quick run (conftest.py ``quick_run``), so the pipeline runs once per session;
the report step itself takes a few seconds.
"""

import base64
import csv
import html
import io
import json
import re
import urllib.parse
import zipfile
from pathlib import Path

import pytest

from topiceval.captions import markdown_to_rst
from workflow_config import needs_mirror, snakemake

pytestmark = [needs_mirror, pytest.mark.slow, pytest.mark.workflow]

PAPERS = {  # the report's categories, and the result files (under results/) each must hold
    "Béchard & Gervet 2018: LDA by VEM and Gibbs sampling": [
        "figures/bechard2018-F4.png", "tables/bechard2018-F4.csv",
        "tables/bechard2018-F4-minimum.csv", "tables/bechard2018-T1.csv",
        "tables/bechard2018-T2.csv"],
    "Wallach et al. 2009: evaluation methods": [
        *(f"{d}/wallach2009-f{i}.{e}" for i in (1, 2, 3) for d, e in
          (("figures", "png"), ("tables", "csv"))),
        "timings/wallach2009-t1.csv", "timings/wallach2009-t1-workload.csv"],
    "Foulds & Smyth: robust evaluation of topic models": [
        *(f"{d}/foulds_smyth-{f}-{p}.{e}" for f in ("F1", "X1") for p in ("prior", "uniform")
          for d, e in (("figures", "png"), ("tables", "csv"))),
        "timings/foulds_smyth-cost-prior.csv", "timings/foulds_smyth-cost-uniform.csv"],
    "Capdevila et al. 2018: left-to-right for Gamma-Poisson FA": [
        *(f"{d}/capdevila2018-F{i}.{e}" for i in (1, 2, 3) for d, e in
          (("figures", "png"), ("tables", "csv"))),
        "tables/capdevila2018-T1.csv", "tables/capdevila2018-F3-convergence.csv"],
    "Corpora used by the four papers": ["tables/corpus_stats.csv", "figures/corpus_lengths.png"],
}
GUIDE = ("About this report", "report/about.html")
# The front page opens centred in the window and loses its top when it is longer than the
# window: at its width (32rem of 14-pixel text, about 70 characters a line) 700 characters are
# 10 lines, under 300 pixels.
FRONT_PAGE_CHARACTERS = 700


def item_of(result: str) -> str:
    """The report item of a result file (under results/): a figure is itself, a CSV table is
    its page, report/<same path>.html."""
    path = Path(result)
    return str(Path("report") / path.with_suffix(".html")) if path.suffix == ".csv" else result


def visible_text(fragment: str) -> str:
    """The text of an HTML fragment as a reader sees it, whitespace collapsed."""
    fragment = re.sub(r"</?(p|li|ul|ol|dl|dt|dd|table|thead|tbody|tr|th|td|pre|div|h\d)\b[^>]*>",
                      " ", fragment)
    return " ".join(html.unescape(re.sub(r"<[^>]+>", "", fragment)).split())


def caption_sentences(markdown: str) -> list[str]:
    """What a reader must find of a Markdown caption: every line of prose (list markers
    dropped) and every cell of its tables."""
    out = []
    for line in markdown.splitlines():
        line = line.strip()
        if re.fullmatch(r"\|?[\s:|-]*", line):  # blank, or a table's rule
            continue
        if line.startswith("|"):
            out += [cell.strip() for cell in line.strip("|").split("|") if cell.strip()]
        else:
            out.append(" ".join(re.sub(r"^[-*+]\s+", "", line).split()))
    return out


@pytest.fixture(scope="module")
def report(quick_run, tmp_path_factory):
    """The quick run's report (a zip), built from the repository like the run, with the
    results directory's files and modification times before and after."""
    directory, run = quick_run
    assert run.returncode == 0, run.stderr[-4000:]
    results = directory / "results"
    before = {p: (p.stat().st_size, p.stat().st_mtime_ns) for p in results.rglob("*")}
    path = tmp_path_factory.mktemp("report") / "report.zip"
    built = snakemake("--report", str(path), tmp_path=directory)
    assert built.returncode == 0, built.stderr[-4000:]
    after = {p: (p.stat().st_size, p.stat().st_mtime_ns) for p in results.rglob("*")}
    archive = zipfile.ZipFile(path)
    page = archive.read("report/report.html").decode("utf-8")
    items = json.loads(re.search(r"var results = (\{.*?\});\n", page, re.S).group(1))
    categories = json.loads(re.search(r"var categories = (\{.*?\});\n", page, re.S).group(1))
    front = json.loads(re.search(r"var workflow_desc = (\".*?\");\n", page, re.S).group(1))
    yield {"results": results, "archive": archive, "items": items, "categories": categories,
           "front": front, "before": before, "after": after}
    archive.close()


def test_building_the_report_changes_no_result(report):
    assert report["after"] == report["before"]


def test_every_figure_and_table_is_in_the_report_under_its_paper(report):
    results, items, archive = report["results"], report["items"], report["archive"]
    assert set(report["categories"]) == {*PAPERS, GUIDE[0]}
    for paper, files in PAPERS.items():
        listed = {path for sub in report["categories"][paper].values() for path in sub}
        assert listed == {str(results / item_of(f)) for f in files}, paper
    # every figure and table the run made is a report item, stored byte for byte, and is one
    # that a browser shows: a picture or a page
    made = {*results.glob("figures/*.png"), *results.glob("tables/*.csv"),
            results / "timings/wallach2009-t1.csv"}
    assert {str(results / item_of(str(p.relative_to(results)))) for p in made} <= set(items)
    assert len(items) == sum(len(f) for f in PAPERS.values()) + 1  # and the guide
    for path, item in items.items():
        assert item["labels"]["output"] and item["labels"]["in the paper"], path
        assert item["mime_type"] in ("image/png", "text/html"), path
        assert archive.read(f"report/{item['data_uri']}") == Path(path).read_bytes(), path


def test_every_table_page_shows_its_table_and_holds_the_csv(report):
    results, items = report["results"], report["items"]
    tables = [f for files in PAPERS.values() for f in files if f.endswith(".csv")]
    for table in tables:
        csv_path = results / table
        page = Path(results / item_of(table)).read_text(encoding="utf-8")
        assert str(results / item_of(table)) in items
        rows = list(csv.reader(io.StringIO(csv_path.read_text(encoding="utf-8"))))
        cells = re.findall(r"<t[hd][^>]*>(.*?)</t[hd]>", page)
        assert [html.unescape(c) for c in cells] == [c for row in rows for c in row], table
        data = re.search(r'href="data:text/csv;base64,([^"]+)" download="([^"]+)"', page)
        assert data and data.group(2) == csv_path.name, table
        assert base64.b64decode(data.group(1)) == csv_path.read_bytes(), table


def test_every_caption_is_beside_its_figure(report):
    results, items = report["results"], report["items"]
    captions = sorted(results.glob("*/*.caption.md"))
    # every figure's, the topic tables' of Béchard & Gervet and Table 1's of Capdevila et al. and
    # of Wallach et al.: each belongs to the report item of the same name in its directory (a
    # table's: its page)
    assert len(captions) >= 15
    for md in captions:
        stem = md.name.removesuffix(".caption.md")
        folders = {md.parent, results / "report" / md.parent.relative_to(results)}
        (item,) = [i for p, i in items.items()
                   if Path(p).parent in folders and Path(p).stem == stem]
        markdown = md.read_text(encoding="utf-8")
        # the caption file in the report's format is the Markdown one, converted
        rst = md.with_name(f"{stem}.caption.rst").read_text(encoding="utf-8")
        assert rst == markdown_to_rst(markdown), md
        text = visible_text(item["caption"])
        for sentence in caption_sentences(markdown):
            assert sentence in text, (md.name, sentence)
    # the data tables' captions are written for them; none holds a docutils error or warning
    for path, item in items.items():
        assert len(visible_text(item["caption"])) > 100, path
        assert "system-message" not in item["caption"], (path, item["caption"])
    assert "system-message" not in report["front"]


def test_front_page_is_short_and_leads_to_the_guide(report):
    text = visible_text(report["front"])
    assert len(text) <= FRONT_PAGE_CHARACTERS, len(text)
    guide = str(report["results"] / GUIDE[1])
    assert f"app.showResultInfo('{urllib.parse.quote(guide)}')" in report["front"]
    assert f"app.showCategory('{urllib.parse.quote(GUIDE[0])}')" in report["front"]
    assert report["categories"][GUIDE[0]] == {"Guide": [guide]}


def test_guide_names_the_papers_and_explains_the_agreement_statements(report):
    guide = report["results"] / GUIDE[1]
    page = guide.read_text(encoding="utf-8")
    assert 'class="system-message' not in page and "{{" not in page and "{%" not in page
    text = visible_text(page)
    for title in ["Latent Dirichlet Allocation", "Evaluation Methods for Topic Models",
                  "Robust Evaluation of Topic Models",
                  "A Left-to-right Algorithm for Likelihood Estimation in Gamma-Poisson Factor "
                  "Analysis", "config/quick.yaml", "config/paper.yaml", "agrees", "partly",
                  "and is a tie otherwise",
                  "DISAGREES", "documents per corpus split: 150"]:
        assert title in text, title
