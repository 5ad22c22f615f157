// Package integration runs kbgp's API against a real kube-apiserver and etcd.
package integration

import (
	"os"
	"testing"

	"kbgp.io/kbgp/test/apiserver"
)

// server is shared by the package's tests: starting etcd and kube-apiserver takes
// seconds, and every test works in its own object names.
var server *apiserver.Server

func TestMain(m *testing.M) {
	os.Exit(apiserver.RunTests(m, "integration", func(s *apiserver.Server) { server = s }))
}
