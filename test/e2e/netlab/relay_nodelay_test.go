package netlab

import (
	"bufio"
	"net"
	"slices"
	"testing"
	"time"
)

// TestRelayDoesNotHoldSmallWrites: a small write that follows another before the
// client acknowledged it reaches the client at once. Without TCP_NODELAY on socat's
// side of the relay, Nagle's algorithm held it until the client's delayed ACK, up to
// 40 ms: an agent behind the relay saw a Service's status 40 ms after its creation
// whenever the two watch events came a few milliseconds apart, which B8 and B2 then
// counted as kbgp's latency.
func TestRelayDoesNotHoldSmallWrites(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	const rounds = 40
	rtts := make(chan []time.Duration, 1)
	go func() {
		var out []time.Duration
		defer func() { rtts <- out }()
		c, err := ln.Accept()
		if err != nil {
			return
		}
		defer c.Close()
		r := bufio.NewReader(c)
		for range rounds {
			// Like two watch events a few milliseconds apart, then the client's answer
			// (the agent's next request) once it has both.
			start := time.Now()
			if _, err := c.Write([]byte("a\n")); err != nil {
				return
			}
			time.Sleep(3 * time.Millisecond)
			if _, err := c.Write([]byte("b\n")); err != nil {
				return
			}
			if _, err := r.ReadString('\n'); err != nil {
				return
			}
			out = append(out, time.Since(start))
		}
	}()

	lab := newLab(t)
	ns := lab.Namespace("relay")
	relay := lab.UnixRelay(ns, "127.0.0.1:6443", ln.Addr().String())
	if out, err := ns.ExecTimeout(time.Minute, "socat", "TCP:"+relay.Addr(), `SYSTEM:while read a && read b; do echo done; done`); err != nil {
		t.Fatalf("client: %v: %s", err, out)
	}
	got := <-rtts
	if len(got) != rounds {
		t.Fatalf("%d rounds of %d", len(got), rounds)
	}
	slices.Sort(got)
	t.Logf("two writes 3 ms apart, then the client's answer: median %s, max %s over %d rounds", got[rounds/2], got[rounds-1], rounds)
	if median := got[rounds/2]; median > 20*time.Millisecond {
		t.Errorf("two writes 3 ms apart, then the client's answer: median %s over %d rounds (max %s), want under 20 ms: the relay holds the second write", median, rounds, got[rounds-1])
	}
}
