package kubectlbgp

import (
	"bytes"
	"strings"
	"text/tabwriter"
)

// formatTable aligns rows under header the way kubectl's own tables are aligned (three
// spaces between columns) and returns one string per line, without newlines, so a caller
// can interleave detail lines that must not take part in the column widths. Cells must
// already have gone through cell.
func formatTable(header []string, rows [][]string) []string {
	var buf bytes.Buffer
	w := tabwriter.NewWriter(&buf, 6, 4, 3, ' ', 0)
	for _, r := range append([][]string{header}, rows...) {
		_, _ = w.Write([]byte(strings.Join(r, "\t") + "\n"))
	}
	_ = w.Flush()
	lines := strings.Split(strings.TrimSuffix(buf.String(), "\n"), "\n")
	for i := range lines {
		lines[i] = strings.TrimRight(lines[i], " ")
	}
	return lines
}
