"""Write the captions of published runs (and the tables derived from other published tables,
with their figures) again from their tables with the current code
(topiceval.provenance.refresh_publication), e.g. after a caption function changed:

    python workflow/scripts/recaption.py docs/results/default docs/results/paper/*/
    python workflow/scripts/recaption.py --figures docs/results/...   # figures too

Each argument is a publication (a directory with provenance.json); its README.md index and the
``rewritten`` entry of its provenance.json are written again too.  No estimator runs.
"""

import argparse
import sys
from pathlib import Path

from topiceval.provenance import refresh_publication

ROOT = Path(__file__).resolve().parents[2]


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("publications", nargs="+", type=Path,
                        help="published runs (directories holding provenance.json)")
    parser.add_argument("--figures", action="store_true",
                        help="also draw again the figures that the published tables alone "
                             "determine (after a change to a figure's drawing)")
    args = parser.parse_args(argv)
    for directory in args.publications:
        if not (directory / "provenance.json").is_file():
            parser.error(f"{directory}: not a publication (no provenance.json)")
        rewritten = refresh_publication(directory, ROOT,
                                        figures=args.figures).get("rewritten", {})
        print(f"{directory}: files written again so far: {len(rewritten.get('files', []))}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
