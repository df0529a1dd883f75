package site_test

import (
	"bufio"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/affordances-go/affordances/protocol"
	"github.com/affordances-go/affordances/site"
)

// Two connections that send a call's headers and one byte of a long
// body hold no slot of a site with two: a third caller's call is served
// while they dribble, and the slow senders are cut off at BodyTimeout.
func TestAdmission_ASlowSenderHoldsNoSlot(t *testing.T) {
	s := site.New(site.Options{Logger: slog.New(slog.DiscardHandler),
		Limits: site.LimitOptions{MaxInFlight: 2, BodyTimeout: 2 * time.Second}})
	p := s.Page("/work", site.PageOptions{})
	site.Handle(p, site.Action{Name: "quick", Description: "Quick", Expose: protocol.ExposePublic},
		func(r *site.Request, in struct {
			Note string `json:"note,omitempty"`
		}) (site.Done, error) {
			return site.Done{Message: "done"}, nil
		})
	srv := httptest.NewServer(s)
	defer srv.Close()
	var slow []net.Conn
	for range 2 {
		conn, err := net.Dial("tcp", srv.Listener.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		fmt.Fprintf(conn, "POST /work HTTP/1.1\r\nHost: x\r\nContent-Type: %s\r\nContent-Length: 100000\r\n\r\n{", protocol.MediaType)
		slow = append(slow, conn)
	}
	time.Sleep(200 * time.Millisecond) // both are waiting for their bodies
	for i := range 3 {
		res, err := http.Post(srv.URL+"/work", protocol.MediaType, strings.NewReader(`{"action":"quick"}`))
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if res.StatusCode != 200 {
			t.Fatalf("call %d while two senders dribble: %d %s", i, res.StatusCode, b)
		}
	}
	// The slow senders are answered at BodyTimeout (400: the body did
	// not arrive in time), their connections closed.
	for _, conn := range slow {
		conn.SetReadDeadline(time.Now().Add(20 * time.Second))
		res, err := http.ReadResponse(bufio.NewReader(conn), nil)
		if err != nil {
			t.Fatalf("a slow sender got no answer: %v", err)
		}
		b, _ := io.ReadAll(res.Body)
		if res.StatusCode != http.StatusBadRequest || !strings.Contains(string(b), "did not arrive in time") || !res.Close {
			t.Errorf("a slow sender: %d %s (close %v)", res.StatusCode, b, res.Close)
		}
	}
}
