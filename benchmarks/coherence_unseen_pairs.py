"""The share of top-word pairs a reference never holds together, against the coverage of its
coherence intervals (issue 50): where ``topiceval.study_quality.UNSEEN_PAIRS_MAX`` comes from.

    nice python benchmarks/coherence_unseen_pairs.py [--references 5]

On the known model of ``benchmarks/coherence_coverage.py`` (T = 10, V = 2,000) and references of
the sizes and document lengths whose coverage ``benchmarks/coherence_coverage/coverage.md`` and
``coverage_short.md`` give (docs/coherence.md, "Measured coverage"), ``--references``
independent references each (seeds 1, 2, ...): ``study_quality.unseen_pair_share`` of the
model's top-20 words, its mean and range, beside the coverage of the 95% interval of the model
mean measured there.
"""

from __future__ import annotations

import argparse

import numpy as np
from coherence_coverage import documents, generative_model

from topiceval.study_quality import unseen_pair_share

# (shortest, longest document) -> {reference documents: 95% coverage of the model mean}
COVERAGE = {(20, 80): {40: 0.26, 100: 0.85, 200: 0.99, 500: 0.91, 1000: 0.93, 5000: 0.93},
            (5, 30): {200: 0.00, 1000: 0.94}}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--references", type=int, default=5)
    args = parser.parse_args()
    model = generative_model()
    print("| lengths | reference documents | mean-row coverage | unseen pairs (mean, range) |")
    print("|---|---|---|---|")
    for lengths, sizes in COVERAGE.items():
        for size, covered in sizes.items():
            shares = [unseen_pair_share(model, documents(model, size, r + 1, lengths), 20)
                      for r in range(args.references)]
            print(f"| {lengths[0]}-{lengths[1]} | {size:,} | {covered:.2f} | "
                  f"{np.mean(shares):.3f} ({min(shares):.3f}-{max(shares):.3f}) |", flush=True)


if __name__ == "__main__":
    main()
