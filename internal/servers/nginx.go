package servers

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
)

// Nginx is an nginx of a test.
type Nginx struct {
	Addr string
	cmd  *exec.Cmd
}

// StartNginx runs nginx in the foreground with the http {…} block given
// (its listen directive is written for a free loopback port: use
// {{LISTEN}} where it goes, and {{DIR}} for a directory of its own, such
// as the cache's); it stops when the test ends.
func StartNginx(t T, httpBlock string) *Nginx {
	t.Helper()
	exe := need(t, "nginx", "nginx-light")
	dir := t.TempDir()
	os.Chmod(dir, 0o777)
	n := &Nginx{Addr: fmt.Sprintf("127.0.0.1:%d", FreePort(t))}
	user := ""
	if os.Geteuid() == 0 {
		user = "user root root;"
	}
	conf := fmt.Sprintf(`%s
worker_processes 1;
pid %s/nginx.pid;
error_log %s/error.log warn;
worker_rlimit_nofile 16384;
events { worker_connections 8192; }
http {
  access_log off;
  client_body_temp_path %s/body;
  proxy_temp_path %s/proxy;
  fastcgi_temp_path %s/fastcgi;
  uwsgi_temp_path %s/uwsgi;
  scgi_temp_path %s/scgi;
%s
}
`, user, dir, dir, dir, dir, dir, dir, dir,
		strings.NewReplacer("{{LISTEN}}", n.Addr, "{{DIR}}", dir).Replace(httpBlock))
	path := filepath.Join(dir, "nginx.conf")
	if err := os.WriteFile(path, []byte(conf), 0o644); err != nil {
		t.Fatal(err)
	}
	n.cmd = exec.Command(exe, "-c", path, "-p", dir, "-g", "daemon off;")
	out := &strings.Builder{}
	n.cmd.Stderr = out
	ownGroup(n.cmd)
	if err := n.cmd.Start(); err != nil {
		t.Fatalf("starting nginx: %v", err)
	}
	// SIGQUIT: nginx's graceful shutdown, which its workers follow.
	t.Cleanup(func() { stop(n.cmd, syscall.SIGQUIT) })
	if err := waitPort(n.Addr, ReadyWithin); err != nil {
		b, _ := os.ReadFile(filepath.Join(dir, "error.log"))
		t.Fatalf("nginx: %v\n%s\n%s", err, out, b)
	}
	return n
}
