package servers

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"syscall"
	"time"
)

// Postgres is a PostgreSQL server of a test, with a database "shop".
type Postgres struct {
	// URL connects to the database shop as the superuser.
	URL  string
	Addr string
	bin  string
	dir  string
	cmd  *exec.Cmd
	t    T
}

// StartPostgres initialises a cluster in its own directory and starts it
// on a free loopback port, as the postgres user when the test runs as root
// (PostgreSQL refuses to run as root); it stops when the test ends.
func StartPostgres(t T) *Postgres {
	t.Helper()
	initdb := need(t, "initdb", "postgresql")
	if real, err := filepath.EvalSymlinks(initdb); err == nil {
		initdb = real // the directory of the real programs has createdb and postgres too
	}
	p := &Postgres{bin: filepath.Dir(initdb), t: t}
	base, err := os.MkdirTemp("", "pg-test-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(base) })
	p.dir = filepath.Join(base, "data")
	if err := os.Chmod(base, 0o755); err != nil {
		t.Fatal(err)
	}
	os.Mkdir(p.dir, 0o700)
	p.chown(base)
	p.chown(p.dir)
	if out, err := p.command(initdb, "-D", p.dir, "-U", "postgres", "--auth=trust", "--no-sync", "-E", "UTF8").CombinedOutput(); err != nil {
		t.Fatalf("initdb: %v\n%s", err, out)
	}
	port := FreePort(t)
	p.Addr = fmt.Sprintf("127.0.0.1:%d", port)
	p.URL = fmt.Sprintf("postgres://postgres@127.0.0.1:%d/shop?sslmode=disable&connect_timeout=5", port)
	p.Start()
	t.Cleanup(p.Stop)
	// The port accepts connections before the server is ready: retry.
	var out []byte
	for range 100 {
		if out, err = p.command(filepath.Join(p.bin, "createdb"), "-h", "127.0.0.1", "-p", strconv.Itoa(port), "-U", "postgres", "shop").CombinedOutput(); err == nil {
			return p
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatalf("createdb: %v\n%q", err, out)
	return nil
}

// command runs a PostgreSQL program as the postgres user when we are root.
func (p *Postgres) command(name string, args ...string) *exec.Cmd {
	if os.Geteuid() == 0 {
		return exec.Command("runuser", append([]string{"-u", "postgres", "--", name}, args...)...)
	}
	return exec.Command(name, args...)
}

func (p *Postgres) chown(path string) {
	if os.Geteuid() != 0 {
		return
	}
	u, err := user.Lookup("postgres")
	if err != nil {
		p.t.Fatalf("no postgres user to run PostgreSQL as: %v", err)
	}
	uid, _ := strconv.Atoi(u.Uid)
	gid, _ := strconv.Atoi(u.Gid)
	os.Chown(path, uid, gid)
}

// Start starts the server (again, after Stop).
func (p *Postgres) Start() {
	p.t.Helper()
	_, port, _ := net.SplitHostPort(p.Addr)
	p.cmd = p.command(filepath.Join(p.bin, "postgres"), "-D", p.dir, "-h", "127.0.0.1", "-p", port,
		"-k", filepath.Dir(p.dir), "-c", "fsync=off", "-c", "max_connections=100")
	ownGroup(p.cmd)
	if err := p.cmd.Start(); err != nil {
		p.t.Fatalf("starting postgres: %v", err)
	}
	if err := waitPort(p.Addr, ReadyWithin); err != nil {
		p.t.Fatalf("postgres: %v", err)
	}
}

// Stop stops the server, if it runs (a fast shutdown: SIGINT to the
// postmaster, whose pid is in its data directory).
func (p *Postgres) Stop() {
	if p.cmd != nil && p.cmd.Process != nil {
		if b, err := os.ReadFile(filepath.Join(p.dir, "postmaster.pid")); err == nil {
			var pid int
			fmt.Sscan(string(b), &pid)
			if proc, err := os.FindProcess(pid); err == nil && pid > 0 {
				proc.Signal(os.Interrupt)
			}
		}
		done := make(chan struct{})
		go func() { p.cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(StopWithin):
			p.cmd.Process.Kill()
			<-done
		}
		syscall.Kill(-p.cmd.Process.Pid, syscall.SIGKILL) // nothing of it left
		p.cmd = nil
	}
}
