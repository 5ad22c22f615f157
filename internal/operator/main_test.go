package operator_test

import (
	"os"
	"testing"

	"github.com/go-logr/logr"
	"sigs.k8s.io/controller-runtime/pkg/log"

	"kbgp.io/kbgp/test/apiserver"
)

// server is one real kube-apiserver + etcd shared by the package's tests; each test
// uses its own node names and labels.
var server *apiserver.Server

func TestMain(m *testing.M) {
	log.SetLogger(logr.Discard())
	os.Exit(apiserver.RunTests(m, "operator tests", func(s *apiserver.Server) { server = s }))
}
