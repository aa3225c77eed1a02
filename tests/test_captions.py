"""Caption files: the reStructuredText twin of every Markdown caption (topiceval.captions), the
format of the Snakemake report's captions, parses without a warning and says what the Markdown
says."""

import html
import re
from pathlib import Path

import pytest
from docutils.core import publish_parts
from docutils.writers.html4css1 import Writer

from topiceval.captions import (
    markdown_to_rst,
    rst_caption_path,
    write_rst_caption,
    write_rst_captions,
)
from topiceval.pipeline import rule_context


def render(rst: str) -> str:
    """HTML body of ``rst`` as the Snakemake report renders captions (docutils' "html" writer);
    any docutils warning or error raises."""
    settings = {"halt_level": 2, "report_level": 2, "warning_stream": False}
    return publish_parts(rst, writer=Writer(), settings_overrides=settings)["body"]


def text_of(body: str) -> str:
    """The visible text of an HTML fragment, whitespace collapsed."""
    body = re.sub(r"</?(p|li|ul|ol|dl|dt|dd|table|thead|tbody|tr|th|td|pre|div)\b[^>]*>", " ", body)
    return " ".join(html.unescape(re.sub(r"<[^>]+>", "", body)).split())


def words(text: str) -> str:
    return " ".join(text.split())


CAPTION = """Figure 003-X1: reciprocal gap -L21 - L12 of the ratio-AIS runs (nats; >= 0 in \
expectation), documents flagged when |gap| > 1 nat.
Paper: Phi_pert = 0.95 Phi + 0.05 Phi_rand with rows of Phi_rand ~ Dir(c 1_V); 'wildly different'.
Ours:
- cheap: median gap +1.736, 5-95% range [-0.681, +5.537]; flagged 9 of 10 (agrees).
- expensive: IS-IP the best IS method on 4 of 5 (DISAGREES with 'LR consistently better').

| label | paper | ours (topic) | shared |
|---|---|---|---|
| SPACE | space nasa program earth launch | edu line subject (8) | 0/5 |
| NUMBERS | 10 00 25 15 11 | 1 water plant edu 2 (11) | 0/5 |
"""


def test_a_workflow_caption_converts_line_by_line():
    body = render(markdown_to_rst(CAPTION))
    text = text_of(body)
    for line in CAPTION.splitlines():
        if line.startswith("|"):
            continue
        assert words(line.removeprefix("- ")) in text, line
    assert body.count("<li>") == 2
    assert "<table" in body and body.count("<tr>") == 3
    for cell in ["ours (topic)", "space nasa program earth launch", "1 water plant edu 2 (11)"]:
        assert f">{cell}</t" in body


@pytest.mark.parametrize(
    "line",
    [
        "|gap| > 1 nat and a|b and P(w | Phi)",
        "word_ and word__ and [1]_ and _`target and __init__ and Phi_pert",
        "2 * 3 ** 4 and T* and a `lone backtick",
        "-L21 - L12 starts with a dash",
        ".. not a comment",
        ":field: not a field list",
        "a) nor this (i) nor I. this",
        "(i) parenthesised",
        "Ends with a double colon::",
        "=====",
        "{{ snakemake.output }} and {% not jinja %}",
        "back\\slash and trailing backslash\\",
    ],
)
def test_plain_text_comes_out_as_itself(line):
    body = render(markdown_to_rst(line))
    assert text_of(body) == words(line)
    assert body.count("<p>") == 1


def test_markdown_inline_markup_and_structure():
    md = "\n".join([
        "# Heading",
        "A **strong** word, an *emphasised* one, `code_x*` and [a link](https://example.org/a_b).",
        "- first",
        "  continued",
        "- second",
        "    - nested",
        "1. one",
        "2. two",
        "```",
        "literal *block* |x|",
        "```",
        "> quoted",
    ])
    body = render(markdown_to_rst(md))
    assert "<strong>Heading</strong>" in body
    assert "<strong>strong</strong>" in body and "<em>emphasised</em>" in body
    assert '<tt class="docutils literal">code_x*</tt>' in body
    assert '<a class="reference external" href="https://example.org/a_b">a link</a>' in body
    assert "<li>first continued</li>" in body
    assert re.search(r"<li>second<ul[^>]*>\s*<li>nested</li>", body)
    assert "<ol" in body and "<li>one</li>" in body
    assert "literal *block* |x|" in body
    assert "<p>quoted</p>" in body


@pytest.mark.parametrize(
    ("md", "fragment", "text"),
    [
        ("**Paper:** what it found", "<strong>Paper:</strong>", "Paper: what it found"),
        ("ends in **bold**", "<strong>bold</strong>", "ends in bold"),
        ("- *agrees*", "<li><em>agrees</em></li>", "agrees"),
        ("`only code`", '<tt class="docutils literal">only code</tt>', "only code"),
        ("x**y**z and a\\**b**", "<strong>y</strong>", "xyz and a\\b"),
        ("[odd](http://x/<y>) link", "<p>[odd](", "[odd](http://x/<y>) link"),
    ],
)
def test_inline_markup_anywhere_in_a_line(md, fragment, text):
    body = render(markdown_to_rst(md))
    assert fragment in body
    assert text_of(body) == text


def test_empty_and_irregular_tables():
    md = "| a | b |\n|:--|--:|\n| x |\n|  | y \\| z |\n"
    body = render(markdown_to_rst(md))
    assert body.count("<tr>") == 3
    assert ">y | z</td>" in body


def test_empty_caption():
    assert markdown_to_rst("") == ""
    assert markdown_to_rst("\n\n") == ""


def test_write_rst_caption_beside_the_markdown(tmp_path):
    md = tmp_path / "fig.caption.md"
    md.write_text(CAPTION, encoding="utf-8")
    assert rst_caption_path(md) == tmp_path / "fig.caption.rst"
    out = write_rst_caption(md)
    assert out == tmp_path / "fig.caption.rst"
    assert out.read_text(encoding="utf-8") == markdown_to_rst(CAPTION)
    other = write_rst_caption(md, tmp_path / "sub" / "other.rst")
    assert other.read_text(encoding="utf-8") == markdown_to_rst(CAPTION)
    assert sorted(p.name for p in tmp_path.rglob("*")) == [
        "fig.caption.md", "fig.caption.rst", "other.rst", "sub"]


def test_rule_context_writes_the_declared_rst_captions(tmp_path):
    """A rule declaring ``<name>`` and ``<name>_rst`` gets the second written from the first
    when its script succeeds; nothing is written when it fails."""

    class Job:  # the parts of a script's ``snakemake`` object rule_context reads
        def __init__(self, names):
            self.output = {name: str(tmp_path / file) for name, file in names.items()}
            self.log = [str(tmp_path / "job.log")]
            self.threads = 1
            self.rule = "figures"

    job = Job({"figure": "f.png", "caption": "f.caption.md", "caption_rst": "f.caption.rst",
               "x1_caption": "x.caption.md", "x1_caption_rst": "x.caption.rst"})
    with rule_context(job) as j:
        for name in ("caption", "x1_caption"):
            Path(j.output[name]).write_text(f"{name}: *it* agrees\n", encoding="utf-8")
    for name in ("caption", "x1_caption"):
        assert Path(job.output[f"{name}_rst"]).read_text(encoding="utf-8") == markdown_to_rst(
            f"{name}: *it* agrees\n")

    failing = Job({"caption": "g.caption.md", "caption_rst": "g.caption.rst"})
    with pytest.raises(RuntimeError), rule_context(failing) as j:
        Path(j.output["caption"]).write_text("text\n", encoding="utf-8")
        raise RuntimeError("the figure failed")
    assert not (tmp_path / "g.caption.rst").exists()

    assert write_rst_captions({"figure": "a.png"}) == []
    with pytest.raises(ValueError, match="'caption'"):
        write_rst_captions({"caption_rst": str(tmp_path / "h.caption.rst")})
