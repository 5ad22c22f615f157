// Package integration runs kbgp's API against a real kube-apiserver and etcd.
package integration

import (
	"fmt"
	"os"
	"testing"

	"kbgp.io/kbgp/test/apiserver"
)

// server is shared by the package's tests: starting etcd and kube-apiserver takes
// seconds, and every test works in its own object names.
var server *apiserver.Server

func TestMain(m *testing.M) {
	s, err := apiserver.Start()
	if err != nil {
		fmt.Fprintln(os.Stderr, "integration:", err)
		os.Exit(1)
	}
	server = s
	code := m.Run()
	if err := s.Stop(); err != nil {
		fmt.Fprintln(os.Stderr, "integration: stop api server:", err)
	}
	os.Exit(code)
}
