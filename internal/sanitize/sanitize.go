package sanitize

import "strings"

// Line replaces '\n', '\r' and NUL with '_' so that a user-controlled string (a
// node name, an annotation key or value) written to a log line or used as a metric
// label cannot forge extra log entries or break the exposition format. It works on
// bytes, not runes: the three characters are ASCII, so UTF-8 stays intact, invalid
// UTF-8 is not rewritten, and the length never changes.
func Line(s string) string {
	if !strings.ContainsAny(s, "\n\r\x00") {
		return s
	}
	b := []byte(s)
	for i, c := range b {
		if c == '\n' || c == '\r' || c == 0 {
			b[i] = '_'
		}
	}
	return string(b)
}

// Cell is Line for a cell of a text/tabwriter table: a tab would split the cell into
// two columns, so it becomes a space as well.
func Cell(s string) string { return strings.ReplaceAll(Line(s), "\t", " ") }
