package servers

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// Every server a test starts is gone when the test ends: nginx's workers
// with their master, Redis, PostgreSQL and its backends. (Killing nginx's
// master with SIGKILL used to leave its workers holding the port.)
func TestServers_NothingOutlivesTheTest(t *testing.T) {
	var pids []int
	t.Run("nginx", func(t *testing.T) {
		n := StartNginx(t, `server { listen {{LISTEN}}; location / { return 204; } }`)
		pids = append(pids, family(t, n.cmd.Process.Pid)...)
	})
	t.Run("redis", func(t *testing.T) {
		r := StartRedis(t)
		pids = append(pids, family(t, r.cmd.Process.Pid)...)
	})
	t.Run("postgres", func(t *testing.T) {
		p := StartPostgres(t)
		pids = append(pids, family(t, p.cmd.Process.Pid)...)
	})
	for _, pid := range pids {
		if alive(pid) {
			t.Errorf("process %d outlived its test", pid)
		}
	}
}

// family returns pid and its descendants, waiting a little for a server's
// children (nginx's workers) to appear.
func family(t *testing.T, pid int) []int {
	t.Helper()
	out := []int{pid}
	deadline := time.Now().Add(5 * time.Second)
	for len(out) == 1 && time.Now().Before(deadline) {
		out = append(out[:1], descendants(pid)...)
		if len(out) == 1 {
			time.Sleep(50 * time.Millisecond)
		}
	}
	return out
}

// descendants lists the processes below pid, from /proc.
func descendants(pid int) []int {
	children := map[int][]int{}
	stats, _ := filepath.Glob("/proc/[0-9]*/stat")
	for _, f := range stats {
		b, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		s := string(b)
		rest := s[strings.LastIndexByte(s, ')')+2:] // after "pid (comm) "
		fields := strings.Fields(rest)
		if len(fields) < 2 {
			continue
		}
		ppid, _ := strconv.Atoi(fields[1])
		self, _ := strconv.Atoi(strings.Fields(s)[0])
		children[ppid] = append(children[ppid], self)
	}
	var out []int
	queue := []int{pid}
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		for _, c := range children[p] {
			out = append(out, c)
			queue = append(queue, c)
		}
	}
	return out
}

// alive reports whether a process exists and is not a zombie.
func alive(pid int) bool {
	if err := syscall.Kill(pid, 0); errors.Is(err, syscall.ESRCH) {
		return false
	}
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	s := string(b)
	fields := strings.Fields(s[strings.LastIndexByte(s, ')')+2:])
	return len(fields) > 0 && fields[0] != "Z"
}
