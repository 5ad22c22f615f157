package apiserver

import (
	"fmt"
	"os"
	"testing"
)

// RunTests is a test package's TestMain body: it starts one API server for all the
// package's tests, hands it to use, runs them and stops it. It returns the exit code.
func RunTests(m *testing.M, pkg string, use func(*Server)) int {
	s, err := Start()
	if err != nil {
		fmt.Fprintf(os.Stderr, "%s: %v\n", pkg, err)
		return 1
	}
	use(s)
	code := m.Run()
	if err := s.Stop(); err != nil {
		fmt.Fprintf(os.Stderr, "%s: stop api server: %v\n", pkg, err)
	}
	return code
}
