package agent_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"

	"kbgp.io/kbgp/internal/agent"
	"kbgp.io/kbgp/internal/bgp/bgpfake"
	"kbgp.io/kbgp/internal/checkpoint"
	"kbgp.io/kbgp/internal/testing/wait"
)

// unreachable is a rest.Config of an API server that refuses every connection.
func unreachable() *rest.Config {
	cfg := rest.CopyConfig(server.Config)
	cfg.Host = "https://127.0.0.1:1"
	return cfg
}

// TestAgentStartsFromTheCheckpointWithoutAPIServer: an agent records what its speakers
// run (without the MD5 peer and its key); the next agent, started while the API server
// refuses connections, runs the same speaker and peers from that record instead of
// exiting — and without a checkpoint (the control) it runs nothing.
func TestAgentStartsFromTheCheckpointWithoutAPIServer(t *testing.T) {
	ensureNamespace(t)
	const node = "agent-checkpoint"
	create(t, testNode(node),
		&corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "auth-ckpt", Namespace: namespace}, Data: map[string][]byte{"password": []byte("s3cret-ckpt")}},
		peerConfig("pc-ckpt-md5", 1179, "auth-ckpt"), peerConfig("pc-ckpt", 179, ""),
		nodeConfig(node, peer("tor-a", addrA, 65010, "pc-ckpt-md5"), peer("tor-b", addrB, 65020, "pc-ckpt")))
	dir := t.TempDir()
	routers := &bgpfake.Factory{}
	stop := runAgentOpts(t, server.Config, agent.Options{NodeName: node, Routers: routers, StateDir: dir})
	r := speaker(t, routers)
	wait.Eventually(t, 30*time.Second, "both peers configured", func() bool {
		_, a := r.Peer(addrA)
		_, b := r.Peer(addrB)
		return a && b
	})
	var written checkpoint.Checkpoint
	wait.Eventually(t, 10*time.Second, "a checkpoint with peer tor-b", func() bool {
		c, _, ok, err := checkpoint.Read(dir)
		written = c
		return err == nil && ok && len(c.Desired.Instances[instance].Peers) > 0
	})
	raw, err := os.ReadFile(filepath.Join(dir, checkpoint.FileName))
	if err != nil {
		t.Fatal(err)
	}
	if peers := written.Desired.Instances[instance].Peers; len(peers) != 1 || peers["tor-b"].Address != addrB || strings.Contains(string(raw), "s3cret") {
		t.Fatalf("checkpoint holds %v, want tor-b alone and no key:\n%s", peers, raw)
	}
	info, _ := os.Stat(filepath.Join(dir, checkpoint.FileName))
	stop()
	modTime := info.ModTime()

	t.Run("API server unreachable: the speaker runs from the checkpoint", func(t *testing.T) {
		routers := &bgpfake.Factory{}
		runAgentOpts(t, unreachable(), agent.Options{NodeName: node, Routers: routers, StateDir: dir, RestoreAfter: 100 * time.Millisecond})
		r := speaker(t, routers)
		if r.Global.RouterID.String() != "10.0.0.1" {
			t.Errorf("restored speaker runs with %+v, want router ID 10.0.0.1", r.Global)
		}
		wait.Eventually(t, 10*time.Second, "peer tor-b restored", func() bool { _, ok := r.Peer(addrB); return ok })
		if _, ok := r.Peer(addrA); ok {
			t.Error("the MD5 peer came back without its key")
		}
		if info, err := os.Stat(filepath.Join(dir, checkpoint.FileName)); err != nil || !info.ModTime().Equal(modTime) {
			t.Errorf("the checkpoint was rewritten though nothing changed: %v", err)
		}
	})
	t.Run("control: no checkpoint, no speaker", func(t *testing.T) {
		routers := &bgpfake.Factory{}
		runAgentOpts(t, unreachable(), agent.Options{NodeName: node, Routers: routers, StateDir: t.TempDir(), RestoreAfter: 100 * time.Millisecond})
		time.Sleep(2 * time.Second)
		if routers.Router(instance) != nil {
			t.Error("a speaker started without the API server and without a checkpoint")
		}
	})
}
