package cni

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net/netip"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"
)

const (
	// gatewaysDir is the directory of gateway records under the state dir.
	gatewaysDir = "gateways"
	// lockFile is the file under the state dir that plugin runs flock.
	lockFile = "lock"
	// lockTimeout bounds how long a run waits for another one to finish.
	lockTimeout = 60 * time.Second
)

// RecordName is the file name of a gateway's record: the address with ':' replaced by
// '_' (IPv6 addresses), and ".json".
func RecordName(gw netip.Addr) string {
	return strings.ReplaceAll(gw.String(), ":", "_") + ".json"
}

// ReadGateways reads the gateway records of stateDir, ordered by address (IPv4 first).
// A state dir without records (or without a gateways directory) yields none. Temporary
// files of a write in progress are skipped.
func ReadGateways(stateDir string) ([]Gateway, error) {
	dir := filepath.Join(stateDir, gatewaysDir)
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []Gateway
	for _, e := range entries {
		name := e.Name()
		if e.IsDir() || strings.HasPrefix(name, ".") || !strings.HasSuffix(name, ".json") {
			continue
		}
		g, err := readRecord(filepath.Join(dir, name))
		if err != nil {
			return nil, err
		}
		out = append(out, g)
	}
	slices.SortFunc(out, func(a, b Gateway) int { return a.Gateway.Compare(b.Gateway) })
	return out, nil
}

// readGateway reads the record of gw, if there is one.
func readGateway(stateDir string, gw netip.Addr) (Gateway, bool, error) {
	g, err := readRecord(filepath.Join(stateDir, gatewaysDir, RecordName(gw)))
	if errors.Is(err, fs.ErrNotExist) {
		return Gateway{}, false, nil
	}
	return g, err == nil, err
}

func readRecord(path string) (Gateway, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return Gateway{}, err
	}
	var g Gateway
	if err := json.Unmarshal(b, &g); err != nil {
		return Gateway{}, fmt.Errorf("gateway record %s: %w", path, err)
	}
	if !g.Gateway.IsValid() {
		return Gateway{}, fmt.Errorf("gateway record %s: no gateway", path)
	}
	return g, nil
}

// writeGateway writes g's record atomically: a temporary file in the same directory,
// synced, then renamed over the record, so a reader sees the old record or the new one.
func writeGateway(stateDir string, g Gateway) error {
	dir := filepath.Join(stateDir, gatewaysDir)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	b, err := json.Marshal(g)
	if err != nil {
		return err
	}
	f, err := os.CreateTemp(dir, ".tmp-"+RecordName(g.Gateway)+"-*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	_, werr := f.Write(append(b, '\n'))
	if werr == nil {
		werr = f.Chmod(0o644)
	}
	if werr == nil {
		werr = f.Sync()
	}
	if cerr := f.Close(); werr == nil {
		werr = cerr
	}
	if werr == nil {
		werr = os.Rename(tmp, filepath.Join(dir, RecordName(g.Gateway)))
	}
	if werr != nil {
		_ = os.Remove(tmp)
		return fmt.Errorf("write gateway record for %s: %w", g.Gateway, werr)
	}
	if d, err := os.Open(dir); err == nil { // make the rename durable; best effort
		_ = d.Sync()
		_ = d.Close()
	}
	return nil
}

// removeGateway removes gw's record.
func removeGateway(stateDir string, gw netip.Addr) error {
	err := os.Remove(filepath.Join(stateDir, gatewaysDir, RecordName(gw)))
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	return err
}

// checkStateDir refuses a state directory through which the plugin, which runs as
// root with a directory the conflist names, could be made to write elsewhere: every
// existing component of the path must be a directory (no symlink) owned by root and
// not writable by group or others — an ancestor may be if it is sticky, as /tmp.
// What does not exist yet is created by the plugin under a directory only root can
// change.
func checkStateDir(dir string) error {
	path := "/"
	rest := strings.Split(strings.TrimPrefix(dir, "/"), "/")
	for {
		fi, err := os.Lstat(path)
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("state dir %s: %w", dir, err)
		}
		last := len(rest) == 0 || rest[0] == ""
		switch st, _ := fi.Sys().(*syscall.Stat_t); {
		case fi.Mode()&fs.ModeSymlink != 0:
			return fmt.Errorf("state dir %s: %s is a symlink", dir, path)
		case !fi.IsDir():
			return fmt.Errorf("state dir %s: %s is not a directory", dir, path)
		case st == nil || st.Uid != 0:
			return fmt.Errorf("state dir %s: %s is not owned by root", dir, path)
		case fi.Mode().Perm()&0o022 != 0 && (last || fi.Mode()&fs.ModeSticky == 0):
			return fmt.Errorf("state dir %s: %s is writable by others (%s)", dir, path, fi.Mode().Perm())
		}
		if last {
			return nil
		}
		path, rest = filepath.Join(path, rest[0]), rest[1:]
	}
}

// lockState takes the state dir's lock (an exclusive flock on <stateDir>/lock), checking
// the directory (checkStateDir) and creating it when needed, so that two plugin runs (two pods added at once) never
// interleave their ebtables checks and adds or their record writes. It waits at most
// lockTimeout. The lock goes with the process, also when it dies.
func lockState(stateDir string) (unlock func(), err error) {
	if err := checkStateDir(stateDir); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(stateDir, 0o755); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(filepath.Join(stateDir, lockFile), os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return nil, err
	}
	deadline := time.Now().Add(lockTimeout)
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if err == nil {
			return func() {
				_ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
				_ = f.Close()
			}, nil
		}
		if !errors.Is(err, syscall.EWOULDBLOCK) && !errors.Is(err, syscall.EINTR) {
			_ = f.Close()
			return nil, fmt.Errorf("lock %s: %w", f.Name(), err)
		}
		if time.Now().After(deadline) {
			_ = f.Close()
			return nil, fmt.Errorf("lock %s: still held by another run after %s", f.Name(), lockTimeout)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
