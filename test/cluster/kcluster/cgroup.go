package kcluster

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"
)

const cgroupFS = "/sys/fs/cgroup"

// cgroupHierarchies lists the cgroup v1 hierarchies of this machine (cpu, memory,
// pids, name=systemd as "systemd", ...): a kubelet with the cgroupfs driver needs its
// cgroupRoot to exist in each of them before it starts.
func cgroupHierarchies() ([]string, error) {
	entries, err := os.ReadDir(cgroupFS)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, e := range entries {
		if !e.IsDir() || e.Name() == "unified" {
			continue
		}
		if _, err := os.Stat(filepath.Join(cgroupFS, e.Name(), "cgroup.procs")); err == nil {
			out = append(out, e.Name())
		}
	}
	if len(out) == 0 {
		return nil, errors.New("no cgroup v1 hierarchy under " + cgroupFS + " (the cluster needs cgroup v1 or hybrid)")
	}
	return out, nil
}

// makeCgroup creates /NAME in every hierarchy (cpuset with its parent's CPUs and
// memory nodes, which a new cpuset cgroup lacks), plus /NAME/daemons in the pids
// hierarchy for the node's own processes: whatever they start (container shims,
// containers) stays below /NAME, so teardown finds every process by its cgroup.
func makeCgroup(name string) error {
	hs, err := cgroupHierarchies()
	if err != nil {
		return err
	}
	for _, h := range hs {
		dir := filepath.Join(cgroupFS, h, name)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return err
		}
		if h == "cpuset" {
			for _, f := range []string{"cpuset.cpus", "cpuset.mems"} {
				v, err := os.ReadFile(filepath.Join(cgroupFS, h, f))
				if err != nil {
					return err
				}
				if err := os.WriteFile(filepath.Join(dir, f), v, 0o644); err != nil {
					return fmt.Errorf("%s: %w", f, err)
				}
			}
		}
	}
	return os.MkdirAll(daemonsCgroup(name), 0o755)
}

func daemonsCgroup(name string) string { return filepath.Join(cgroupFS, "pids", name, "daemons") }

// cgroupPIDs lists every process in /NAME and below, in the pids hierarchy.
func cgroupPIDs(name string) []int {
	var pids []int
	_ = filepath.WalkDir(filepath.Join(cgroupFS, "pids", name), func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || d.Name() != "cgroup.procs" {
			return nil
		}
		b, _ := os.ReadFile(path)
		for _, f := range strings.Fields(string(b)) {
			if pid, err := strconv.Atoi(f); err == nil {
				pids = append(pids, pid)
			}
		}
		return nil
	})
	return pids
}

// killCgroup sends SIGKILL to every process of /NAME until none is left (at most
// 20 s): the node's daemons, container shims and containers, all started by the
// cluster.
func killCgroup(name string) error {
	deadline := time.Now().Add(20 * time.Second)
	for {
		pids := cgroupPIDs(name)
		if len(pids) == 0 {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("cgroup %s: processes %v still running", name, pids)
		}
		for _, pid := range pids {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// removeCgroup removes /NAME from every hierarchy, deepest directories first (a
// cgroup directory can only be removed once it has no children).
func removeCgroup(name string) error {
	hs, err := cgroupHierarchies()
	if err != nil {
		return err
	}
	var errs []error
	for _, h := range hs {
		var dirs []string
		root := filepath.Join(cgroupFS, h, name)
		_ = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
			if err == nil && d.IsDir() {
				dirs = append(dirs, path)
			}
			return nil
		})
		slices.Reverse(dirs)
		for _, d := range dirs {
			if err := syscall.Rmdir(d); err != nil && !errors.Is(err, syscall.ENOENT) {
				errs = append(errs, fmt.Errorf("rmdir %s: %w", d, err))
			}
		}
	}
	return errors.Join(errs...)
}
