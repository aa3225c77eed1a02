"""The figures of the four papers and of the corpora: tidy tables in, figure files out.

A paper's module draws its figures and holds their captions (what the paper found, what the
table shows and whether they agree); its figure jobs write each figure with its caption.
"""
