#!/usr/bin/env python3
"""tools/inventory-order.py: an inventory with its hosts in the order given, printed on
stdout (the ranks follow the hosts' order, so this sets a ring's order: tools/racks-table.sh,
tests/integration/test_racks.sh).

Usage: tools/inventory-order.py INVENTORY HOST...

The inventory is as `gcbench cluster up` writes it: each host a block that starts with
"  - name: NAME" and continues with lines indented by four spaces; every other line is
kept in place, and the named hosts' blocks follow "hosts:" in the order given (hosts not
named are left out). Exit 2 with a message when a host is unknown or named twice, or
the file cannot be read or has no "hosts:" line.
"""
import sys


def main(argv):
    if len(argv) < 3:
        print("usage: tools/inventory-order.py INVENTORY HOST...", file=sys.stderr)
        return 2
    path, order = argv[1], argv[2:]
    try:
        text = open(path).read()
    except OSError as e:
        print("inventory-order: cannot read '%s': %s" % (path, e.strerror), file=sys.stderr)
        return 2
    blocks, other, cur = {}, [], None
    for line in text.splitlines():
        if line.startswith("  - name: "):
            cur = line[10:].strip()
            blocks[cur] = [line]
        elif line.startswith("    ") and cur is not None:
            blocks[cur].append(line)
        else:
            other.append(line)
    for h in order:
        if h not in blocks:
            print("inventory-order: host '%s' is not in '%s' (hosts: %s)"
                  % (h, path, " ".join(blocks) or "none"), file=sys.stderr)
            return 2
    if len(set(order)) != len(order):
        print("inventory-order: a host is named twice in '%s'" % " ".join(order),
              file=sys.stderr)
        return 2
    if "hosts:" not in other:
        print("inventory-order: '%s' has no 'hosts:' line" % path, file=sys.stderr)
        return 2
    for line in other:
        print(line)
        if line == "hosts:":
            for h in order:
                print("\n".join(blocks[h]))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
