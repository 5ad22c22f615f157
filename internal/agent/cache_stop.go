package agent

import (
	"context"

	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/cache"
)

// stopAwareCache lets the agent stop before its caches ever synced. controller-runtime
// (v0.22) waits for the caches with a context that only its own stop cancels, and that
// stop comes after the wait: an agent told to stop while the API server is still away
// would never return, and never stop its speakers gracefully. Once stopped is closed
// the wait reports success so the manager moves on to its stop.
type stopAwareCache struct {
	cache.Cache
	stopped <-chan struct{}
}

// newStopAwareCache is the manager's NewCache.
func newStopAwareCache(stopped <-chan struct{}) cache.NewCacheFunc {
	return func(cfg *rest.Config, opts cache.Options) (cache.Cache, error) {
		c, err := cache.New(cfg, opts)
		if err != nil {
			return nil, err
		}
		return stopAwareCache{Cache: c, stopped: stopped}, nil
	}
}

// WaitForCacheSync waits until the caches synced, ctx ends or the agent stops.
func (c stopAwareCache) WaitForCacheSync(ctx context.Context) bool {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go func() {
		select {
		case <-c.stopped:
			cancel()
		case <-ctx.Done():
		}
	}()
	synced := c.Cache.WaitForCacheSync(ctx)
	select {
	case <-c.stopped:
		return true
	default:
		return synced
	}
}
