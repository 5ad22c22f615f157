package kcluster

import (
	"fmt"
	"io"
	"net"
	"runtime"
	"sync"
	"time"

	"github.com/vishvananda/netns"
)

// DialIn opens a TCP connection from inside the network namespace at nsPath (the
// socket belongs to that namespace for its whole life), so the test process can be a
// client of the client namespace without any address in the root namespace.
func DialIn(nsPath, addr string, timeout time.Duration) (net.Conn, error) {
	target, err := netns.GetFromPath(nsPath)
	if err != nil {
		return nil, err
	}
	defer target.Close()
	runtime.LockOSThread()
	orig, err := netns.Get()
	if err != nil {
		runtime.UnlockOSThread()
		return nil, err
	}
	defer orig.Close()
	if err := netns.Set(target); err != nil {
		runtime.UnlockOSThread()
		return nil, err
	}
	conn, dialErr := net.DialTimeout("tcp", addr, timeout)
	if err := netns.Set(orig); err != nil {
		// The thread stays in the wrong namespace: keep it locked, so it ends with
		// this goroutine instead of running other goroutines.
		if conn != nil {
			conn.Close()
		}
		return nil, fmt.Errorf("back to the root namespace: %w", err)
	}
	runtime.UnlockOSThread()
	return conn, dialErr
}

// forwarder makes a TCP address inside a namespace reachable on the root
// namespace's loopback (the API server for kubectl on this machine).
type forwarder struct {
	ln   net.Listener
	wg   sync.WaitGroup
	mu   sync.Mutex
	open map[net.Conn]struct{}
}

// forwardInto listens on 127.0.0.1 (a free port) and connects each client to target
// inside the namespace at nsPath.
func forwardInto(nsPath, target string) (*forwarder, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	f := &forwarder{ln: ln, open: map[net.Conn]struct{}{}}
	f.wg.Add(1)
	go func() {
		defer f.wg.Done()
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			f.wg.Add(1)
			go func() {
				defer f.wg.Done()
				f.relay(c, nsPath, target)
			}()
		}
	}()
	return f, nil
}

func (f *forwarder) Addr() string { return f.ln.Addr().String() }

func (f *forwarder) track(c net.Conn, add bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if add {
		f.open[c] = struct{}{}
	} else {
		delete(f.open, c)
	}
}

func (f *forwarder) relay(c net.Conn, nsPath, target string) {
	defer c.Close()
	up, err := DialIn(nsPath, target, 5*time.Second)
	if err != nil {
		return
	}
	defer up.Close()
	f.track(c, true)
	f.track(up, true)
	defer f.track(c, false)
	defer f.track(up, false)
	done := make(chan struct{}, 2)
	go func() { _, _ = io.Copy(up, c); done <- struct{}{} }()
	go func() { _, _ = io.Copy(c, up); done <- struct{}{} }()
	<-done
}

// Close stops listening, closes every relayed connection and waits for them.
func (f *forwarder) Close() {
	f.ln.Close()
	f.mu.Lock()
	for c := range f.open {
		c.Close()
	}
	f.mu.Unlock()
	f.wg.Wait()
}
