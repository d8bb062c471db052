#!/usr/bin/env python3
"""tools/digits_convert.py: the handwritten digits that python3-sklearn ships
(sklearn/datasets/data/digits.csv.gz: 1797 images of 8 x 8 pixels, values 0-16, the
UCI "Optical Recognition of Handwritten Digits" test set) -> a GCBDAT1 file that
gcbench-worker reads (format: worker/wk_data.h, docs/worker.md).

The split is fixed: the samples are shuffled with a fixed seed and the last --val of
them are the validation set. Only the standard library is used (no numpy, no import of
sklearn): the CSV is read where the Debian package puts it, or from --csv.

usage: tools/digits_convert.py [--csv PATH] [--val N] --out FILE
exit status: 0 written, 1 the CSV is missing or malformed, 2 bad arguments.
"""
import argparse
import gzip
import os
import random
import struct
import sys

DEFAULT_CSV = "/usr/lib/python3/dist-packages/sklearn/datasets/data/digits.csv.gz"
MAGIC = b"GCBDAT1\n"
SIDE, CLASSES, MAXV = 8, 10, 16
SEED = 20221


def read_csv(path):
    """[(pixels, label)] from the gzipped CSV: 64 pixel columns, then the label."""
    rows = []
    with gzip.open(path, "rt") as f:
        for lineno, line in enumerate(f, 1):
            line = line.strip()
            if not line:
                continue
            vals = line.split(",")
            if len(vals) != SIDE * SIDE + 1:
                raise ValueError(f"line {lineno}: {len(vals)} columns, expected {SIDE * SIDE + 1}")
            try:
                nums = [int(float(v)) for v in vals]
            except ValueError:
                # name the line, never its text (the message would quote the bad field)
                raise ValueError(f"line {lineno}: a column is not a number") from None
            px, label = nums[:-1], nums[-1]
            if any(v < 0 or v > MAXV for v in px) or not 0 <= label < CLASSES:
                raise ValueError(f"line {lineno}: a pixel outside 0..{MAXV} or a label outside 0..9")
            rows.append((px, label))
    return rows


def write(path, rows, n_val):
    n_train = len(rows) - n_val
    head = MAGIC + b"digits".ljust(16, b"\0")
    head += struct.pack("<6I", n_train, n_val, 1, SIDE, SIDE, CLASSES)
    head += struct.pack("<f", 1.0 / MAXV)
    tmp = path + ".tmp"
    with open(tmp, "wb") as f:
        f.write(head)
        for px, _ in rows:
            f.write(bytes(px))
        f.write(bytes(label for _, label in rows))
    os.replace(tmp, path)
    return n_train


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--csv", default=DEFAULT_CSV, help="digits.csv.gz (default: %(default)s)")
    ap.add_argument("--val", type=int, default=297, help="validation samples (default: %(default)s)")
    ap.add_argument("--out", required=True, help="the GCBDAT1 file to write")
    a = ap.parse_args()
    if not os.path.exists(a.csv):
        print(f"digits_convert: '{a.csv}' does not exist (apt-get install python3-sklearn, "
              "or give --csv)", file=sys.stderr)
        return 1
    try:
        rows = read_csv(a.csv)
    except (OSError, ValueError, EOFError) as exc:
        print(f"digits_convert: '{a.csv}': {exc}", file=sys.stderr)
        return 1
    if not 1 <= a.val < len(rows):
        print(f"digits_convert: --val {a.val} must be in 1..{len(rows) - 1}", file=sys.stderr)
        return 2
    random.Random(SEED).shuffle(rows)
    n_train = write(a.out, rows, a.val)
    print(f"digits_convert: {a.out}: {n_train} training + {a.val} validation samples, "
          f"{SIDE}x{SIDE}, {CLASSES} classes")
    return 0


if __name__ == "__main__":
    sys.exit(main())
