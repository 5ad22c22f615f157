package apiserver

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"time"
)

// StartGarbageCollector runs kube-controller-manager with only the garbage collector
// against the server, because envtest has none and owner-reference deletion is only
// real when the real collector performs it. The returned function stops it (by PID).
func (s *Server) StartGarbageCollector(logDir string) (stop func(), err error) {
	path := filepath.Join(logDir, "gc.kubeconfig")
	if err := s.WriteKubeconfig(path, "kbgp-gc"); err != nil {
		return nil, err
	}
	logFile, err := os.Create(filepath.Join(logDir, "kube-controller-manager.log"))
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(filepath.Join(s.Assets, "kube-controller-manager"),
		"--kubeconfig="+path,
		"--controllers=garbagecollector",
		"--leader-elect=false",
		"--secure-port=0",
		"--use-service-account-credentials=false",
	)
	cmd.Stdout, cmd.Stderr = logFile, logFile
	if err := cmd.Start(); err != nil {
		logFile.Close()
		return nil, fmt.Errorf("start kube-controller-manager: %w", err)
	}
	done := make(chan struct{})
	go func() { _ = cmd.Wait(); close(done); logFile.Close() }()
	return func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			_ = cmd.Process.Kill()
			<-done
		}
	}, nil
}
