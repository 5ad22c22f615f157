package main

import (
	"strings"

	"kbgp.io/kbgp/internal/routerid"
)

// clean makes a string that comes from a user object safe to print on its own line:
// names, addresses and status messages are written by people and agents, and a "\n" in
// one of them must not forge an extra line of output that a reader or a script trusts.
func clean(s string) string { return routerid.Sanitize(s) }

// cell is clean for a table cell. A tab would also split the cell into two columns
// under text/tabwriter, so it becomes a space.
func cell(s string) string { return strings.ReplaceAll(clean(s), "\t", " ") }
