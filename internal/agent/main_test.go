package agent_test

import (
	"fmt"
	"os"
	"testing"

	"github.com/go-logr/logr"
	"sigs.k8s.io/controller-runtime/pkg/log"

	"kbgp.io/kbgp/test/apiserver"
)

// server is one real kube-apiserver + etcd shared by the package's tests; each test
// uses its own node name.
var server *apiserver.Server

func TestMain(m *testing.M) {
	log.SetLogger(logr.Discard())
	s, err := apiserver.Start()
	if err != nil {
		fmt.Fprintln(os.Stderr, "agent tests:", err)
		os.Exit(1)
	}
	server = s
	code := m.Run()
	if err := s.Stop(); err != nil {
		fmt.Fprintln(os.Stderr, "agent tests: stop api server:", err)
	}
	os.Exit(code)
}
