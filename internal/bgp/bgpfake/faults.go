package bgpfake

import (
	"fmt"
	"sync"
)

// Op names a bgp.Router call, for fault injection.
type Op string

// The calls faults can be injected into.
const (
	OpNewRouter    Op = "NewRouter"
	OpAddPeer      Op = "AddPeer"
	OpUpdatePeer   Op = "UpdatePeer"
	OpDeletePeer   Op = "DeletePeer"
	OpApplyExports Op = "ApplyExports"
	OpPeers        Op = "Peers"
	OpStop         Op = "Stop"
)

// Ops lists every Op, for tests that walk them all.
var Ops = []Op{OpNewRouter, OpAddPeer, OpUpdatePeer, OpDeletePeer, OpApplyExports, OpPeers, OpStop}

// Faults makes calls fail or hang, as a real speaker can: every router of a Factory
// shares its Faults. The zero value injects nothing.
type Faults struct {
	mu sync.Mutex
	// failures are errors returned by the next calls of an op, one per call.
	failures map[Op][]error
	// hangs block every call of an op until the channel is closed.
	hangs map[Op]chan struct{}
}

// FailNext makes the next call of op return err (with nothing changed).
func (f *Faults) FailNext(op Op, err error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.failures == nil {
		f.failures = map[Op][]error{}
	}
	f.failures[op] = append(f.failures[op], err)
}

// Hang makes every call of op block, as a wedged GoBGP server does (it ignores
// contexts), until release is called.
func (f *Faults) Hang(op Op) (release func()) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.hangs == nil {
		f.hangs = map[Op]chan struct{}{}
	}
	ch := make(chan struct{})
	f.hangs[op] = ch
	return sync.OnceFunc(func() {
		f.mu.Lock()
		delete(f.hangs, op)
		f.mu.Unlock()
		close(ch)
	})
}

// inject blocks while op hangs, then returns the injected failure of op, if any.
func (f *Faults) inject(op Op) error {
	if f == nil {
		return nil
	}
	f.mu.Lock()
	hang := f.hangs[op]
	f.mu.Unlock()
	if hang != nil {
		<-hang
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if errs := f.failures[op]; len(errs) > 0 {
		f.failures[op] = errs[1:]
		return fmt.Errorf("injected %s failure: %w", op, errs[0])
	}
	return nil
}
