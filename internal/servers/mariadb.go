package servers

import (
	"fmt"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"syscall"
	"time"
)

// MariaDB is a MariaDB server of a test, with an empty database "app".
type MariaDB struct {
	// DSN connects to the database app as root, in the form of
	// github.com/go-sql-driver/mysql.
	DSN  string
	Addr string
	dir  string
	cmd  *exec.Cmd
	t    T
}

// StartMariaDB initialises a data directory of its own and starts
// MariaDB on a free loopback port (as the mysql user when the test runs
// as root); it stops when the test ends.
func StartMariaDB(t T) *MariaDB {
	t.Helper()
	mariadbd := need(t, "mariadbd", "mariadb-server")
	install := need(t, "mariadb-install-db", "mariadb-server")
	base, err := os.MkdirTemp("", "mariadb-test-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(base) })
	m := &MariaDB{dir: filepath.Join(base, "data"), t: t}
	os.Mkdir(m.dir, 0o700)
	args := []string{"--no-defaults", "--datadir=" + m.dir, "--auth-root-authentication-method=normal", "--skip-test-db"}
	if os.Geteuid() == 0 {
		u, err := user.Lookup("mysql")
		if err != nil {
			t.Fatalf("no mysql user to run MariaDB as: %v", err)
		}
		uid, _ := strconv.Atoi(u.Uid)
		gid, _ := strconv.Atoi(u.Gid)
		os.Chmod(base, 0o755)
		os.Chown(m.dir, uid, gid)
		args = append(args, "--user=mysql")
	}
	if out, err := exec.Command(install, args...).CombinedOutput(); err != nil {
		t.Fatalf("mariadb-install-db: %v\n%s", err, out)
	}
	port := FreePort(t)
	m.Addr = fmt.Sprintf("127.0.0.1:%d", port)
	m.DSN = fmt.Sprintf("root@tcp(%s)/app?parseTime=false&timeout=5s", m.Addr)
	cmdArgs := []string{"--no-defaults", "--datadir=" + m.dir, "--bind-address=127.0.0.1", "--port=" + strconv.Itoa(port),
		"--socket=" + filepath.Join(m.dir, "mysqld.sock"), "--pid-file=" + filepath.Join(m.dir, "mysqld.pid"),
		"--skip-name-resolve", "--innodb-flush-log-at-trx-commit=0", "--skip-log-bin"}
	if os.Geteuid() == 0 {
		cmdArgs = append(cmdArgs, "--user=mysql")
	}
	m.cmd = exec.Command(mariadbd, cmdArgs...)
	logPath := filepath.Join(base, "mariadbd.log")
	if f, err := os.Create(logPath); err == nil {
		m.cmd.Stdout, m.cmd.Stderr = f, f
		defer f.Close()
	}
	failed := func(what string, err error) {
		b, _ := os.ReadFile(logPath)
		t.Fatalf("%s: %v\n%s", what, err, b)
	}
	ownGroup(m.cmd)
	if err := m.cmd.Start(); err != nil {
		t.Fatalf("starting mariadbd: %v", err)
	}
	t.Cleanup(m.Stop)
	if err := waitPort(m.Addr, ReadyWithin); err != nil {
		failed("mariadb", err)
	}
	// The database the tests use: made with the client over the socket.
	client := need(t, "mariadb", "mariadb-client")
	var out []byte
	for range 100 {
		if out, err = exec.Command(client, "--no-defaults", "--protocol=tcp", "-h", "127.0.0.1", "-P", strconv.Itoa(port), "-u", "root",
			"-e", "CREATE DATABASE IF NOT EXISTS app").CombinedOutput(); err == nil {
			return m
		}
		time.Sleep(100 * time.Millisecond)
	}
	failed("creating the database", fmt.Errorf("%v: %s", err, out))
	return nil
}

// Stop stops the server (SIGTERM, then SIGKILL after StopWithin).
func (m *MariaDB) Stop() {
	if m.cmd == nil || m.cmd.Process == nil {
		return
	}
	m.cmd.Process.Signal(syscall.SIGTERM)
	done := make(chan struct{})
	go func() { m.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(StopWithin):
		m.cmd.Process.Kill()
		<-done
	}
	syscall.Kill(-m.cmd.Process.Pid, syscall.SIGKILL)
	m.cmd = nil
}
