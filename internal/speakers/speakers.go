package speakers

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"slices"
	"sync"
	"time"

	"kbgp.io/kbgp/internal/bgp"
)

// Set is the BGP speakers of one node, one per instance, with what was last applied to
// each.
type Set struct {
	factory bgp.RouterFactory
	logger  *slog.Logger
	// notify is handed to every speaker: called on any session state change.
	notify func()
	// callTimeout bounds every call of a speaker (see DefaultCallTimeout); stuck
	// records those that outlived it.
	callTimeout time.Duration
	stuck       stuckCalls
	// restartUntil: speakers started before it restart after a graceful stop.
	restartUntil time.Time

	mu        sync.Mutex
	instances map[bgp.InstanceKey]*instance
	// peerErrors holds the last error of each peer that could not be applied, so that
	// status can name it; a later successful apply clears it.
	peerErrors map[PeerRef]error
}

// PeerRef names a peer across instances and VRFs.
type PeerRef struct {
	Instance bgp.InstanceKey
	Name     string
}

// instance is a running speaker and what was last applied to it: the one record, on
// the node, of which peers run with which configuration and what each is sent. How the
// speaker makes each peer get its export is the router's business.
type instance struct {
	global bgp.Global
	router bgp.Router
	peers  map[string]appliedPeer
	// bmp are the collectors the speaker streams to, as last applied.
	bmp []bgp.BMPCollector
}

// appliedPeer is the configuration a peer runs with and what it is sent.
type appliedPeer struct {
	peer   bgp.Peer
	export *exportBook
}

// New returns an empty set that starts speakers with factory. notify must not block.
// Every speaker call is bounded by callTimeout (0: DefaultCallTimeout).
func New(factory bgp.RouterFactory, logger *slog.Logger, notify func(), callTimeout time.Duration) *Set {
	if notify == nil {
		notify = func() {}
	}
	if callTimeout <= 0 {
		callTimeout = DefaultCallTimeout
	}
	return &Set{
		factory:     factory,
		logger:      logger,
		notify:      notify,
		callTimeout: callTimeout,
		instances:   map[bgp.InstanceKey]*instance{},
		peerErrors:  map[PeerRef]error{},
	}
}

// Healthy reports an error while a speaker call has outlived its bound and not
// returned: the speaker is wedged and only a restart of the agent cures it (the
// agent's liveness check fails on it; graceful restart keeps the routes meanwhile).
func (s *Set) Healthy() error {
	if stuck := s.stuck.oldest(time.Now()); stuck != "" {
		return fmt.Errorf("BGP speaker wedged: %s", stuck)
	}
	return nil
}

// Apply makes the running speakers match d. Instances are independent: a failure in
// one is returned (joined with the others) after every instance had its turn, and what
// failed is retried on the next Apply since it never became "last applied".
func (s *Set) Apply(ctx context.Context, d bgp.Desired) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	var errs []error
	for _, key := range sortedKeys(s.instances) {
		want, ok := d.Instances[key]
		if !ok || !sameGlobal(s.instances[key].global, want.Global) {
			reason := "instance removed"
			if ok {
				reason = "ASN, router ID, listener or VRF changed"
			}
			errs = append(errs, s.removeInstance(ctx, key, reason))
		}
	}
	for _, key := range sortedKeys(d.Instances) {
		want := d.Instances[key]
		inst, ok := s.instances[key]
		if ok && !sameGlobal(inst.global, want.Global) {
			continue // its removal failed above; the next Apply tries again
		}
		if !ok {
			var err error
			if inst, err = s.startInstance(ctx, key, want.Global); err != nil {
				errs = append(errs, err)
				continue
			}
		}
		errs = append(errs, s.reconcilePeers(ctx, key, inst, want.Peers))
		errs = append(errs, s.reconcileBMP(ctx, key, inst, want.BMP))
	}
	return errors.Join(errs...)
}

// reconcileBMP gives the speaker its collectors when they changed; no session is
// touched.
func (s *Set) reconcileBMP(ctx context.Context, key bgp.InstanceKey, inst *instance, want []bgp.BMPCollector) error {
	if slices.Equal(inst.bmp, want) {
		return nil
	}
	s.logger.Info("setting BMP collectors", "instance", key.String(), "collectors", len(want))
	if err := inst.router.SetBMP(ctx, want); err != nil {
		return fmt.Errorf("instance %s: %w", key, err)
	}
	inst.bmp = slices.Clone(want)
	return nil
}

// Applied returns what the speakers run: every running instance with the peers that
// run and what each is sent, as last applied (a copy). The agent builds on it when a
// peer's objects go missing: the peer keeps running as it is, including the export
// changes Service events applied since the last full build.
func (s *Set) Applied() bgp.Desired {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := bgp.Desired{Instances: make(map[bgp.InstanceKey]bgp.DesiredInstance, len(s.instances))}
	for key, inst := range s.instances {
		di := bgp.DesiredInstance{Global: inst.global, Peers: make(map[string]bgp.DesiredPeer, len(inst.peers)), BMP: slices.Clone(inst.bmp)}
		for name, ap := range inst.peers {
			di.Peers[name] = bgp.DesiredPeer{Peer: ap.peer, Export: ap.export.export()}
		}
		out.Instances[key] = di
	}
	return out
}

// PeerErrors returns the peers that could not be applied and why.
func (s *Set) PeerErrors() map[PeerRef]error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return maps.Clone(s.peerErrors)
}

// Stop stops every speaker. With gracefulRestart, peers that negotiated graceful
// restart keep our routes while we are away; otherwise every session gets a Cease.
func (s *Set) Stop(ctx context.Context, gracefulRestart bool) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	var errs []error
	for _, key := range sortedKeys(s.instances) {
		errs = append(errs, s.instances[key].router.Stop(ctx, gracefulRestart))
		delete(s.instances, key)
	}
	return errors.Join(errs...)
}

// ResumeAfterGracefulRestart makes the speakers started before until restarting
// graceful-restart speakers (bgp.Global.Restarting): the previous agent stopped
// gracefully and its peers still hold its routes until then.
func (s *Set) ResumeAfterGracefulRestart(until time.Time) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.restartUntil = until
}

func (s *Set) startInstance(ctx context.Context, key bgp.InstanceKey, g bgp.Global) (*instance, error) {
	g.Restarting = time.Now().Before(s.restartUntil)
	r, err := bounded(&s.stuck, s.callTimeout, "start of instance "+key.String(), func() (bgp.Router, error) {
		return s.factory.NewRouter(ctx, key, g, s.notify)
	})
	if err != nil {
		return nil, fmt.Errorf("start instance %s: %w", key, err)
	}
	inst := &instance{global: g, router: boundedRouter{router: r, key: key, timeout: s.callTimeout, stuck: &s.stuck}, peers: map[string]appliedPeer{}}
	s.instances[key] = inst
	s.logger.Info("started BGP instance", "instance", key.String(), "routerID", g.RouterID.String(), "listenPort", g.ListenPort)
	return inst, nil
}

// removeInstance stops a speaker and forgets it. A speaker whose Stop fails is kept, so
// the next Apply stops it again rather than starting a second one beside it.
func (s *Set) removeInstance(ctx context.Context, key bgp.InstanceKey, reason string) error {
	s.logger.Info("stopping BGP instance", "instance", key.String(), "reason", reason)
	if err := s.instances[key].router.Stop(ctx, false); err != nil {
		return fmt.Errorf("stop instance %s: %w", key, err)
	}
	delete(s.instances, key)
	for ref := range s.peerErrors {
		if ref.Instance == key {
			delete(s.peerErrors, ref)
		}
	}
	return nil
}

func sameGlobal(a, b bgp.Global) bool {
	return a.ASN == b.ASN && a.RouterID == b.RouterID && a.ListenPort == b.ListenPort &&
		a.BindDevice == b.BindDevice && slices.Equal(a.ListenAddresses, b.ListenAddresses)
}

func sortedKeys[V any](m map[bgp.InstanceKey]V) []bgp.InstanceKey {
	return slices.SortedFunc(maps.Keys(m), bgp.InstanceKey.Compare)
}
