package kubectlbgp

import (
	"fmt"
	"strings"
)

// text collects indented output lines. Every line goes through clean after formatting,
// so no value taken from an object can add a line, whichever argument it came in by.
type text struct {
	lines []string
}

// line appends one line indented by depth levels of two spaces.
func (t *text) line(depth int, format string, args ...any) {
	t.lines = append(t.lines, strings.Repeat("  ", depth)+clean(fmt.Sprintf(format, args...)))
}

// blank separates sections.
func (t *text) blank() { t.lines = append(t.lines, "") }

// joinOr joins parts with ", ", or returns none when there are no parts.
func joinOr(parts []string, none string) string {
	if len(parts) == 0 {
		return none
	}
	return strings.Join(parts, ", ")
}
