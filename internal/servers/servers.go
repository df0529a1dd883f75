// Package servers starts the real servers some tests need (Redis,
// PostgreSQL, nginx) on free loopback ports with their own data
// directories, and stops them when the test ends, even when it fails.
// Without the server's program, a test skips with a message saying what
// to install; with CI=true it fails instead.
package servers

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"syscall"
	"time"
)

// T is what the helpers need of a test: testing.TB has it, and so can a
// program (the benchmarks) that starts the same servers outside a test.
// Fatal, Fatalf and Skipf must not return.
type T interface {
	Helper()
	Cleanup(func())
	TempDir() string
	Errorf(format string, args ...any)
	Fatal(args ...any)
	Fatalf(format string, args ...any)
	Skipf(format string, args ...any)
}

// need finds a program, or skips (fails in CI) naming the package.
func need(t T, program, debian string) string {
	t.Helper()
	for _, dir := range []string{"", "/usr/sbin/", "/usr/lib/postgresql/15/bin/", "/usr/local/bin/"} {
		if p, err := exec.LookPath(dir + program); err == nil {
			return p
		}
	}
	if os.Getenv("CI") == "true" {
		t.Fatalf("%s is not installed: .ci/run installs Debian's %s package", program, debian)
	}
	t.Skipf("%s not found: apt-get install %s to run this test", program, debian)
	return ""
}

// FreePort returns a loopback port nothing listens on.
func FreePort(t T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// waitPort waits until something accepts connections on addr.
func waitPort(addr string, within time.Duration) error {
	deadline := time.Now().Add(within)
	for time.Now().Before(deadline) {
		if c, err := net.DialTimeout("tcp", addr, 200*time.Millisecond); err == nil {
			c.Close()
			return nil
		}
		time.Sleep(50 * time.Millisecond)
	}
	return fmt.Errorf("nothing listens on %s after %s", addr, within)
}

// Redis is a redis-server of a test.
type Redis struct {
	Addr string
	exe  string
	dir  string
	cmd  *exec.Cmd
	t    T
}

// StartRedis starts redis-server on a free loopback port, without
// persistence; it stops when the test ends.
func StartRedis(t T) *Redis {
	t.Helper()
	r := &Redis{exe: need(t, "redis-server", "redis-server"), dir: t.TempDir(), t: t,
		Addr: fmt.Sprintf("127.0.0.1:%d", FreePort(t))}
	r.Start()
	t.Cleanup(r.Stop)
	return r
}

// Start starts the server (again, after Stop) on the same port.
func (r *Redis) Start() {
	r.t.Helper()
	_, port, _ := net.SplitHostPort(r.Addr)
	r.cmd = exec.Command(r.exe, "--bind", "127.0.0.1", "--port", port, "--dir", r.dir,
		"--save", "", "--appendonly", "no", "--protected-mode", "yes")
	ownGroup(r.cmd)
	if err := r.cmd.Start(); err != nil {
		r.t.Fatalf("starting redis-server: %v", err)
	}
	if err := waitPort(r.Addr, ReadyWithin); err != nil {
		r.t.Fatalf("redis-server: %v", err)
	}
}

// Stop stops the server, if it runs: SIGTERM, and SIGKILL to its whole
// process group if it has not exited within StopWithin.
func (r *Redis) Stop() {
	if r.cmd != nil && r.cmd.Process != nil {
		stop(r.cmd, syscall.SIGTERM)
		r.cmd = nil
	}
}

// Pause stops the server's process where it is (SIGSTOP): it keeps its
// connections and answers nothing, as a hung server does, until Resume.
func (r *Redis) Pause() { r.cmd.Process.Signal(syscall.SIGSTOP) }

// Resume lets a paused server go on (SIGCONT).
func (r *Redis) Resume() { r.cmd.Process.Signal(syscall.SIGCONT) }

// ReadyWithin is how long a server started for a test may take to answer:
// on a loaded 2-core machine a first start can take far longer than usual.
const ReadyWithin = time.Minute

// StopWithin is how long a server may take to stop when asked, before its
// process group is killed.
const StopWithin = 30 * time.Second

// ownGroup starts cmd in a process group of its own, so that stop can end
// every process it started (nginx's workers, say), not only the first.
func ownGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
}

// stop asks a server to stop with sig, the way it is meant to be stopped,
// waits for it, and then makes sure nothing of its process group is left:
// a worker that outlived its master would hold the test's port.
func stop(cmd *exec.Cmd, sig syscall.Signal) {
	cmd.Process.Signal(sig)
	done := make(chan struct{})
	go func() { cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(StopWithin):
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		<-done
	}
	// Whatever of the group is still there (workers that did not follow
	// their master) goes too.
	syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
}
