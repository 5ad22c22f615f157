package netlab

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"syscall"
	"time"
)

// Process is a long-running process started inside a namespace with
// Namespace.Start. Its stdout and stderr go to a log file in the lab
// directory. It is stopped on teardown if still running.
type Process struct {
	name    string
	ns      *Namespace
	cmd     *exec.Cmd
	logPath string
	pid     int

	done    chan struct{}
	mu      sync.Mutex
	waitErr error
}

// Start starts a long-running process inside the namespace ("ip netns exec
// NAME args..."; ip execs the command, so the recorded PID is the command's
// own PID). name labels the process in logs and names its log file. The
// process must stay in the foreground (no daemonizing). It gets SIGKILL if
// the test binary dies (unless it changes credentials, which clears that).
func (ns *Namespace) Start(name string, args ...string) *Process {
	ns.lab.t.Helper()
	p, err := ns.StartErr(name, args...)
	if err != nil {
		ns.lab.t.Fatalf("netlab: %v", err)
	}
	return p
}

// StartEnv is Start with extra environment variables ("KEY=VALUE") added
// to the test process's environment.
func (ns *Namespace) StartEnv(name string, env []string, args ...string) *Process {
	ns.lab.t.Helper()
	p, err := ns.start(name, env, args)
	if err != nil {
		ns.lab.t.Fatalf("netlab: %v", err)
	}
	return p
}

// StartErr is Start returning an error instead of failing the test.
func (ns *Namespace) StartErr(name string, args ...string) (*Process, error) {
	return ns.start(name, nil, args)
}

func (ns *Namespace) start(name string, env []string, args []string) (*Process, error) {
	if len(args) == 0 {
		return nil, fmt.Errorf("start %s: no command", name)
	}
	return ns.StartArgv(name, env, append([]string{"ip", "netns", "exec", ns.Name}, args...))
}

// StartArgv starts argv as it is, as a process of the namespace's lab (logged,
// tracked by PID and stopped on teardown): argv enters the namespace itself. Node
// daemons use it with nsenter --net=Path(), because `ip netns exec` mounts a fresh
// sysfs that hides the cgroup v1 hierarchies from container runtimes and kubelets.
func (ns *Namespace) StartArgv(name string, env []string, argv []string) (*Process, error) {
	if len(argv) == 0 {
		return nil, fmt.Errorf("start %s: no command", name)
	}
	l := ns.lab
	l.mu.Lock()
	torn := l.torn
	l.mu.Unlock()
	if torn {
		return nil, fmt.Errorf("start %s: lab already torn down", name)
	}
	logPath := filepath.Join(l.dir, fmt.Sprintf("%s-%s-%d.log", ns.Short, name, l.nextSeq()))
	f, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o644)
	if err != nil {
		return nil, fmt.Errorf("start %s: %v", name, err)
	}
	defer f.Close()
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Stdout = f
	cmd.Stderr = f
	cmd.Dir = l.dir
	if len(env) > 0 {
		cmd.Env = append(os.Environ(), env...)
	}
	// A process group of its own: a Ctrl-C at the terminal reaches only the test
	// (or kbgp-cluster), which then stops its processes in order.
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL, Setpgid: true}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start %s in %s: %v", name, ns.Name, err)
	}
	p := &Process{
		name:    name,
		ns:      ns,
		cmd:     cmd,
		logPath: logPath,
		pid:     cmd.Process.Pid,
		done:    make(chan struct{}),
	}
	l.mu.Lock()
	l.procs = append(l.procs, p)
	l.mu.Unlock()
	go func() {
		err := cmd.Wait()
		p.mu.Lock()
		p.waitErr = err
		p.mu.Unlock()
		close(p.done)
	}()
	return p, nil
}

// Name returns the label given to Start.
func (p *Process) Name() string { return p.name }

// PID returns the process ID.
func (p *Process) PID() int { return p.pid }

// LogPath returns the path of the file receiving stdout and stderr.
func (p *Process) LogPath() string { return p.logPath }

// Log returns the content of the process's stdout/stderr log.
func (p *Process) Log() string {
	b, err := os.ReadFile(p.logPath)
	if err != nil {
		return fmt.Sprintf("(reading %s: %v)", p.logPath, err)
	}
	return string(b)
}

// Exited reports whether the process has exited.
func (p *Process) Exited() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

// Done returns a channel closed when the process has exited.
func (p *Process) Done() <-chan struct{} { return p.done }

// Err returns the result of waiting for the process (nil while running or
// after a clean exit).
func (p *Process) Err() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.waitErr
}

// Signal sends sig to the process (by PID) if it is still running.
func (p *Process) Signal(sig os.Signal) error {
	if p.Exited() {
		return nil
	}
	err := p.cmd.Process.Signal(sig)
	if err == os.ErrProcessDone {
		return nil
	}
	return err
}

// Wait waits up to timeout for the process to exit and reports whether it
// did.
func (p *Process) Wait(timeout time.Duration) bool {
	return p.waitUntil(time.Now().Add(timeout))
}

func (p *Process) waitUntil(deadline time.Time) bool {
	d := time.Until(deadline)
	if d <= 0 {
		return p.Exited()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-p.done:
		return true
	case <-t.C:
		return false
	}
}

// Stop sends SIGTERM and waits up to 5 s, then sends SIGKILL and waits up to
// 3 s. It returns an error if the process is still running after that.
func (p *Process) Stop() error {
	_ = p.Signal(syscall.SIGTERM)
	if p.Wait(5 * time.Second) {
		return nil
	}
	_ = p.Signal(syscall.SIGKILL)
	if p.Wait(3 * time.Second) {
		return nil
	}
	return fmt.Errorf("process %s (pid %d) did not exit", p.name, p.pid)
}

// Kill sends SIGKILL (e.g. to simulate a crash) and waits up to 3 s.
func (p *Process) Kill() error {
	_ = p.Signal(syscall.SIGKILL)
	if p.Wait(3 * time.Second) {
		return nil
	}
	return fmt.Errorf("process %s (pid %d) did not exit after SIGKILL", p.name, p.pid)
}
