package hostile_test

import (
	"bufio"
	"fmt"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"
)

// Limits: the rate limit per caller and action, the limits of sign-in and
// sign-up, body and header sizes. The store runs with the default's burst
// of 30 here (see newEnv).
func TestHostile_Limits(t *testing.T) {
	e := newEnv(t, true)
	add := `{"action":"addToCart","input":{"sku":"TEE-WHI-M"}}`
	for range 30 - 1 { // newEnv's setup made one addToCart call as a-token
		e.send(row{as: "a-token", path: "/products/heavyweight-tee", body: add})
	}
	wrong := `{"action":"signIn","input":{"email":"nobody@example.com","password":"guess"}}`
	// Five wrong passwords that reach the store (waiting out the site's
	// limit per address when it answers first): from then on this address
	// is stopped for that account, however slowly the machine runs.
	for failed := 0; failed < 5; {
		res, _ := e.send(row{as: "anon", path: "/login", body: wrong})
		switch res.StatusCode {
		case 409:
			failed++
		case 429:
			time.Sleep(time.Second)
		default:
			t.Fatalf("a guess answered %d", res.StatusCode)
		}
	}
	for i := range 5 {
		e.send(row{as: "anon", path: "/signup", body: `{"action":"signUp","input":{"name":"n","email":"flood` + itoa(int64(i)) + `@example.com","password":"long enough"}}`})
	}
	big := strings.Repeat("x", 2<<20)
	rows := []row{
		{name: "over the burst of one action", as: "a-token", path: "/products/heavyweight-tee", body: add, status: 429, code: "rate_limited"},
		{name: "over the burst, the same action on another page of the route", as: "a-token", path: "/products/canvas-tote", body: `{"action":"addToCart","input":{"sku":"TOTE-NAT-ONESIZE"}}`, status: 429, code: "rate_limited"},
		{name: "over the burst, even with invalid input", as: "a-token", path: "/products/heavyweight-tee", body: `{"action":"addToCart","input":{}}`, status: 429, code: "rate_limited"},
		{name: "over the burst, by a form", as: "a-token", path: "/products/heavyweight-tee", ctype: "form", body: "_action=addToCart&sku=TEE-WHI-M", status: 429},
		{name: "another caller has its own count", as: "b-token", path: "/products/heavyweight-tee", body: add, status: 200, code: "ok", mayChange: true},
		{name: "another action has its own count", as: "a-token", path: "/cart", body: `{"action":"setQuantity","input":{"sku":"TEE-WHI-M","qty":1}}`, status: 200, code: "ok", mayChange: true},
		{name: "sign-in guesses from one address", as: "anon", path: "/login", body: wrong, status: 429, code: "rate_limited"},
		{name: "sign-in guesses with an invented cookie", as: "invented-cookie", path: "/login", body: wrong, status: 429, code: "rate_limited"},
		{name: "sign-ups from one address", as: "anon", path: "/signup", body: `{"action":"signUp","input":{"name":"n","email":"one-more@example.com","password":"long enough"}}`, status: 429, code: "rate_limited"},
		{name: "a body over the limit", as: "b-token", path: "/products/heavyweight-tee", body: `{"action":"addToCart","input":{"sku":"` + big + `"}}`, status: 413, code: "invalid_input"},
		{name: "a body over the limit with Expect: 100-continue", as: "b-token", path: "/products/heavyweight-tee", header: []string{"Expect", "100-continue"}, body: `{"action":"addToCart","pad":"` + big + `"}`, status: 413, code: "invalid_input"},
		{name: "a form over the limit", as: "b", path: "/products/heavyweight-tee", ctype: "form", body: "_action=addToCart&sku=" + big, status: 413},
		{name: "a header over the server's limit", as: "anon", method: "GET", path: "/", header: []string{"X-Big", strings.Repeat("x", 2<<20)}, status: 431},
		{name: "a long query", as: "anon", method: "GET", path: "/?q=" + strings.Repeat("a", 8000), status: 200},
		{name: "an unknown method", as: "anon", method: "BREW", path: "/", status: 405},
		{name: "DELETE of a page", as: "a-token", method: "DELETE", path: "/account", status: 405},
	}
	counts["limits"] = e.run(rows)

	res, _ := e.send(rows[0])
	if ra := res.Header.Get("Retry-After"); ra == "" || ra == "0" {
		t.Errorf("429 without a Retry-After: %q", ra)
	}
}

// Slow clients: a body that arrives in pieces is served; a client that
// stops halfway does not stop the store serving others.
func TestHostile_SlowClients(t *testing.T) {
	e := newEnv(t, false)
	addr := strings.TrimPrefix(e.shop.URL, "http://")
	body := `{"action":"addToCart","input":{"sku":"TEE-WHI-S"}}`
	head := "POST /products/heavyweight-tee HTTP/1.1\r\nHost: " + addr + "\r\nContent-Type: application/vnd.affordances+json\r\n" +
		"Authorization: Bearer " + e.actors["b-token"].token + "\r\nContent-Length: " + fmt.Sprint(len(body)) + "\r\nConnection: close\r\n\r\n"
	cases := []struct {
		name string
		send func(c net.Conn) error
		want int // 0: no answer is expected
	}{
		{"a body in ten pieces", func(c net.Conn) error {
			if _, err := c.Write([]byte(head)); err != nil {
				return err
			}
			for i := 0; i < len(body); i += len(body)/10 + 1 {
				time.Sleep(20 * time.Millisecond)
				if _, err := c.Write([]byte(body[i:min(len(body), i+len(body)/10+1)])); err != nil {
					return err
				}
			}
			return nil
		}, 200},
		{"headers byte by byte", func(c net.Conn) error {
			for i := range len(head) {
				if _, err := c.Write([]byte{head[i]}); err != nil {
					return err
				}
				if i%40 == 0 {
					time.Sleep(5 * time.Millisecond)
				}
			}
			_, err := c.Write([]byte(body))
			return err
		}, 200},
		{"half a body, then gone", func(c net.Conn) error {
			_, err := c.Write([]byte(head + body[:len(body)/2]))
			return err
		}, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			before := e.shop.Digest(t)
			conn, err := net.DialTimeout("tcp", addr, 5*time.Second)
			if err != nil {
				t.Fatal(err)
			}
			conn.SetDeadline(time.Now().Add(10 * time.Second))
			if err := c.send(conn); err != nil {
				t.Fatal(err)
			}
			if c.want == 0 {
				conn.Close()
				// The store still serves, and nothing ran.
				if res, _ := e.send(row{as: "anon", method: "GET", path: "/"}); res.StatusCode != 200 {
					t.Errorf("after a client left: %d", res.StatusCode)
				}
				if e.shop.Digest(t) != before {
					t.Error("half a call changed the store")
				}
				return
			}
			res, err := http.ReadResponse(bufio.NewReader(conn), nil)
			conn.Close()
			if err != nil || res.StatusCode != c.want {
				t.Fatalf("answer: %v %v", res, err)
			}
		})
	}
	counts["slow clients"] = len(cases)
}
