package kubectlbgp

import "kbgp.io/kbgp/internal/sanitize"

// clean makes a string that comes from a user object safe to print on its own line:
// names, addresses and status messages are written by people and agents, and a "\n" in
// one of them must not forge an extra line of output that a reader or a script trusts.
func clean(s string) string { return sanitize.Line(s) }

// cell is clean for a table cell.
func cell(s string) string { return sanitize.Cell(s) }
