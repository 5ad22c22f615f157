package controlplane

import (
	"fmt"
	"path/filepath"
	"sync"
	"testing"
)

// TestUsersAddedInParallel adds users from several goroutines, as parallel tests
// sharing one control plane do: under -race it fails if their creation is not
// serialized (envtest's certificate authority counts its serial numbers unlocked; a CI
// run caught it between two e2e tests).
func TestUsersAddedInParallel(t *testing.T) {
	if _, err := AssetsDir(); err != nil {
		t.Skip(err)
	}
	cp, err := Start()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := cp.Stop(); err != nil {
			t.Error(err)
		}
	})
	dir := t.TempDir()
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Go(func() {
			if i%2 == 0 {
				if _, err := cp.UserConfig(fmt.Sprintf("user-%d", i)); err != nil {
					t.Error(err)
				}
				return
			}
			if err := cp.WriteKubeconfig(filepath.Join(dir, fmt.Sprintf("admin-%d", i)), fmt.Sprintf("admin-%d", i)); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
}
