package cluster_test

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"io"
	"log/slog"
	"math/big"
	"net"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/affordances-go/affordances/examples/shop/shop"
	"github.com/affordances-go/affordances/internal/servers"
	"github.com/affordances-go/affordances/protocol"
)

// selfSigned writes a certificate and key for 127.0.0.1 into dir.
func selfSigned(t *testing.T, dir string) (certFile, keyFile string) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "127.0.0.1"},
		IPAddresses: []net.IP{net.ParseIP("127.0.0.1")}, NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	kb, _ := x509.MarshalECPrivateKey(key)
	certFile, keyFile = filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
	os.WriteFile(certFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o644)
	os.WriteFile(keyFile, pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kb}), 0o600)
	return certFile, keyFile
}

// Three instances behind nginx terminating TLS, set up as docs/deploy.md
// says (the public origin and the trusted proxy): a person's browser form
// and cookie calls work over https, every anonymous client gets its own
// limit from the forwarded address, and three instances started at once
// on an empty database all come up.
func TestCluster_TLSAtTheProxy(t *testing.T) {
	pg := servers.StartPostgres(t)
	ctx := context.Background()
	// The instances' listeners first: nginx needs their addresses, and
	// they need nginx's origin.
	var srvs []*httptest.Server
	ups := ""
	for range 3 {
		srv := httptest.NewUnstartedServer(nil)
		srvs = append(srvs, srv)
		ups += "server " + srv.Listener.Addr().String() + ";\n"
	}
	dir := t.TempDir()
	cert, key := selfSigned(t, dir)
	conf := strings.NewReplacer("{{UPSTREAMS}}", ups, "listen {{LISTEN}};",
		"listen {{LISTEN}} ssl;\n  ssl_certificate "+cert+";\n  ssl_certificate_key "+key+";").Replace(mustRead(t, "nginx.conf"))
	proxy := "https://" + servers.StartNginx(t, conf).Addr
	// Three first starts at once, on the empty database.
	var wg sync.WaitGroup
	errs := make(chan error, 3)
	stores := make([]*shop.Store, 3)
	for i, srv := range srvs {
		wg.Go(func() {
			db, err := shop.Open(ctx, pg.URL)
			if err != nil {
				errs <- err
				return
			}
			t.Cleanup(func() { db.Close() })
			store := shop.NewStore(db)
			store.PasswordIterations = 1000
			if err := store.Seed(ctx); err != nil {
				errs <- err
				return
			}
			stores[i] = store
			srv.Config.Handler = shop.New(store, shop.Options{Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), NoApprovals: true,
				Origins: []string{proxy}, TrustedProxies: []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")}})
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatalf("a first start: %v", err)
	}
	for _, srv := range srvs {
		srv.Start()
		t.Cleanup(srv.Close)
	}
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM([]byte(mustRead(t, cert)))
	jar, _ := cookiejar.New(nil)
	browser := &http.Client{Jar: jar, Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}},
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	form := func(path string, v url.Values) int {
		req, _ := http.NewRequest("POST", proxy+path, strings.NewReader(v.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.Header.Set("Origin", proxy)
		res, err := browser.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		return res.StatusCode
	}
	// A person signs in and adds to the cart with forms, over https.
	if code := form("/login", url.Values{"_action": {"signIn"}, "email": {shop.DemoEmail}, "password": {shop.DemoPassword}}); code != 303 {
		t.Fatalf("sign-in form over TLS: %d", code)
	}
	if code := form("/products/heavyweight-tee", url.Values{"_action": {"addToCart"}, "sku": {"TEE-BLK-M"}}); code != 303 {
		t.Fatalf("addToCart form over TLS: %d", code)
	}
	// And a cookie call, as the site's own page script would send it.
	req, _ := http.NewRequest("POST", proxy+"/cart", strings.NewReader(`{"action":"setQuantity","input":{"sku":"TEE-BLK-M","qty":2}}`))
	req.Header.Set("Content-Type", protocol.MediaType)
	req.Header.Set("Origin", proxy)
	res, err := browser.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != 200 {
		t.Fatalf("cookie call over TLS: %d", res.StatusCode)
	}
	// Eight anonymous clients (their addresses as nginx forwards them):
	// each has a limit of its own.
	refused := 0
	for i := range 8 {
		anon := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}},
			CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
		req, _ := http.NewRequest("POST", proxy+"/signup", strings.NewReader(
			fmt.Sprintf(`{"action":"signUp","input":{"name":"N","email":"tls%d@example.com","password":"a long password"}}`, i)))
		req.Header.Set("Content-Type", protocol.MediaType)
		req.Header.Set("Origin", proxy)
		req.Header.Set("X-Forwarded-For", fmt.Sprintf("198.51.100.%d", i+1)) // as a client's own proxy would
		res, err := anon.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if res.StatusCode == 429 {
			refused++
		}
	}
	// One person's concurrent first adds, spread over the three
	// instances: one cart, every unit counted, no error.
	id, err := stores[0].CreateUser(ctx, "one@example.com", "One", "a long password")
	if err != nil {
		t.Fatal(err)
	}
	tok, _ := stores[0].CreateToken(ctx, id, "t")
	var adds sync.WaitGroup
	var failed atomic.Int64
	for i := range 9 {
		adds.Go(func() {
			if code, _, _ := call(t, srvs[i%3].URL, tok, "/products/heavyweight-tee", `{"action":"addToCart","input":{"sku":"TEE-BLK-M"}}`); code != 200 {
				failed.Add(1)
			}
		})
	}
	adds.Wait()
	c, _ := stores[0].Cart(ctx, shop.CartOwner{UserID: id})
	figure("one person: 9 concurrent first adds of 1 over 3 instances: %d in the cart, %d failed", c.Count, failed.Load())
	if c.Count != 9 || failed.Load() != 0 {
		t.Errorf("9 concurrent adds: %d in the cart, %d failed", c.Count, failed.Load())
	}
	// A token with a standing approval of 60.00 a day, its orders sent at
	// once to the three instances: the day's limit holds across them.
	if err := stores[0].SaveAddress(ctx, id, shop.Address{Name: "One", Street: "1 Main Street", Postcode: "10115", City: "Berlin", Country: "DE"}); err != nil {
		t.Fatal(err)
	}
	granted, err := stores[0].CreateGrantedToken(ctx, id, "granted", shop.Grant{Actions: []string{"addToCart", "placeOrder"}, OrderLimit: 10000, DayLimit: 6000})
	if err != nil {
		t.Fatal(err)
	}
	call(t, srvs[0].URL, tok, "/checkout", `{"action":"placeOrder","confirm":true}`) // the 9 tees above, ordered with the other token
	var placed atomic.Int64
	// Four rounds: three adds of a tote (19.00) on the three instances,
	// then three orders at once, each on another instance than its add.
	for range 4 {
		var adds, orders sync.WaitGroup
		for i := range 3 {
			adds.Go(func() {
				call(t, srvs[i].URL, granted, "/products/canvas-tote", `{"action":"addToCart","input":{"sku":"TOTE-NAT-ONESIZE"}}`)
			})
		}
		adds.Wait()
		for i := range 3 {
			orders.Go(func() {
				if code, _, _ := call(t, srvs[(i+1)%3].URL, granted, "/checkout", `{"action":"placeOrder"}`); code == 200 {
					placed.Add(1)
				}
			})
		}
		orders.Wait()
	}
	toks, _ := stores[0].Tokens(ctx, id)
	var spent int64
	for _, tk := range toks {
		if tk.Label == "granted" {
			spent, _ = stores[0].SpentToday(ctx, tk.ID)
		}
	}
	figure("grants: 4 rounds of 3 orders of one token at once over 3 instances, on a standing approval of 60.00 a day: %d placed, %.2f spent", placed.Load(), float64(spent)/100)
	if spent > 6000 || placed.Load() == 0 {
		t.Errorf("a day's grant of 60.00: %d orders placed, %.2f spent", placed.Load(), float64(spent)/100)
	}
	figure("tls: 3 instances started at once on an empty database behind nginx terminating TLS: forms and cookie calls over https work; 8 sign-ups from 8 forwarded addresses, %d refused", refused)
	if refused != 0 {
		t.Errorf("%d of 8 sign-ups from 8 addresses refused: the clients share one limit", refused)
	}
}

func mustRead(t *testing.T, path string) string {
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
