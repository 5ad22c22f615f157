package routerid

import "strings"

// Sanitize replaces '\n', '\r' and NUL with '_' so that a user-controlled string (a
// node name, an annotation key or value) written to a log line or used as a metric
// label cannot forge extra log entries or break the exposition format. It works on
// bytes, not runes: the three characters are ASCII, so UTF-8 stays intact, invalid
// UTF-8 is not rewritten, and the length never changes.
func Sanitize(s string) string {
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
