package botauth

import (
	"context"
	"crypto/ed25519"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

func newKey(t *testing.T) ed25519.PrivateKey {
	t.Helper()
	_, priv, err := ed25519.GenerateKey(nil)
	if err != nil {
		t.Fatal(err)
	}
	return priv
}

func signed(t *testing.T, s *Signer, url string) *http.Request {
	t.Helper()
	r := httptest.NewRequest("GET", url, nil)
	if err := s.Sign(r); err != nil {
		t.Fatal(err)
	}
	return r
}

func TestVerify_ASignedRequestNamesItsAgent(t *testing.T) {
	key := newKey(t)
	v := &Verifier{Keys: []Key{{Name: "shopping-agent", Public: key.Public().(ed25519.PublicKey)}}}
	a, err := v.Verify(signed(t, &Signer{Key: key}, "https://shop.example/cart"))
	if err != nil || a.Name != "shopping-agent" || a.KeyID != Thumbprint(key.Public().(ed25519.PublicKey)) {
		t.Fatalf("%+v %v", a, err)
	}
	// No signature: not verified, not refused.
	if a, err := v.Verify(httptest.NewRequest("GET", "https://shop.example/", nil)); err != nil || a != (Agent{}) {
		t.Fatalf("unsigned: %+v %v", a, err)
	}
}

// Every way a signature can be wrong is refused with a reason.
func TestVerify_RefusesWhatIsWrong(t *testing.T) {
	key, other := newKey(t), newKey(t)
	known := []Key{{Name: "agent", Public: key.Public().(ed25519.PublicKey)}}
	now := time.Unix(1_800_000_000, 0)
	clock := func() time.Time { return now }
	v := &Verifier{Keys: known, Now: clock}
	s := &Signer{Key: key, Now: clock}
	good := func() *http.Request { return signed(t, s, "https://shop.example/cart") }
	cases := map[string]func() *http.Request{
		"another authority": func() *http.Request { r := good(); r.Host = "evil.example"; return r },
		"the same authority on another port": func() *http.Request {
			r := good()
			r.Host = "shop.example:8443"
			return r
		},
		"a forged signature": func() *http.Request {
			r := good()
			sig := r.Header.Get("Signature")
			r.Header.Set("Signature", sig[:10]+strings.ToUpper(sig[10:11])+sig[11:])
			if r.Header.Get("Signature") == sig {
				r.Header.Set("Signature", "sig1=:"+strings.Repeat("A", 86)+"==:")
			}
			return r
		},
		"another key's signature under this keyid": func() *http.Request {
			r := signed(t, &Signer{Key: other, Now: clock}, "https://shop.example/cart")
			r.Header.Set("Signature-Input", strings.Replace(r.Header.Get("Signature-Input"),
				Thumbprint(other.Public().(ed25519.PublicKey)), Thumbprint(key.Public().(ed25519.PublicKey)), 1))
			return r
		},
		"an unknown key": func() *http.Request { return signed(t, &Signer{Key: other, Now: clock}, "https://shop.example/cart") },
		"expired": func() *http.Request {
			return signed(t, &Signer{Key: key, Now: func() time.Time { return now.Add(-10 * time.Minute) }}, "https://shop.example/cart")
		},
		"created in the future": func() *http.Request {
			return signed(t, &Signer{Key: key, Now: func() time.Time { return now.Add(10 * time.Minute) }}, "https://shop.example/cart")
		},
		"valid for too long": func() *http.Request {
			return signed(t, &Signer{Key: key, Now: clock, Validity: 48 * time.Hour}, "https://shop.example/cart")
		},
		"no Signature": func() *http.Request { r := good(); r.Header.Del("Signature"); return r },
		"a Signature of another label": func() *http.Request {
			r := good()
			r.Header.Set("Signature", strings.Replace(r.Header.Get("Signature"), "sig1=", "sig2=", 1))
			return r
		},
		"@authority not covered": func() *http.Request {
			r := good()
			r.Header.Set("Signature-Input", strings.Replace(r.Header.Get("Signature-Input"), `("@authority")`, `("@method")`, 1))
			return r
		},
		"Signature-Agent added and not covered": func() *http.Request {
			r := good()
			r.Header.Set("Signature-Agent", `"https://agent.example"`)
			return r
		},
		"another algorithm": func() *http.Request {
			r := good()
			r.Header.Set("Signature-Input", strings.Replace(r.Header.Get("Signature-Input"), `alg="ed25519"`, `alg="rsa-pss-sha512"`, 1))
			return r
		},
		"no expires": func() *http.Request {
			r := good()
			in := r.Header.Get("Signature-Input")
			i := strings.Index(in, ";expires=")
			j := strings.Index(in[i+1:], ";") + i + 1
			r.Header.Set("Signature-Input", in[:i]+in[j:])
			return r
		},
		"no keyid": func() *http.Request {
			r := good()
			in := r.Header.Get("Signature-Input")
			i := strings.Index(in, ";keyid=")
			j := strings.Index(in[i+1:], ";") + i + 1
			r.Header.Set("Signature-Input", in[:i]+in[j:])
			return r
		},
		"a malformed Signature-Input": func() *http.Request {
			r := good()
			r.Header.Set("Signature-Input", `sig1=("@authority";tag="web-bot-auth"`)
			return r
		},
		"a malformed Signature": func() *http.Request { r := good(); r.Header.Set("Signature", "sig1=:not base64!:"); return r },
		"a component twice": func() *http.Request {
			r := good()
			r.Header.Set("Signature-Input", strings.Replace(r.Header.Get("Signature-Input"), `("@authority")`, `("@authority" "@authority")`, 1))
			return r
		},
		"a covered header that is missing": func() *http.Request {
			r := good()
			r.Header.Set("Signature-Input", strings.Replace(r.Header.Get("Signature-Input"), `("@authority")`, `("@authority" "x-missing")`, 1))
			return r
		},
	}
	for name, build := range cases {
		a, err := v.Verify(build())
		var e *Error
		if !errors.As(err, &e) || e.Reason == "" || a != (Agent{}) {
			t.Errorf("%s: agent %+v, err %v", name, a, err)
		}
	}
	if _, err := v.Verify(good()); err != nil {
		t.Fatalf("the good request: %v", err)
	}
}

// directory serves a key directory with the given keys, counting fetches.
func directory(t *testing.T, body func(w http.ResponseWriter)) (*httptest.Server, *atomic.Int64) {
	var n atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != DirectoryPath {
			http.NotFound(w, r)
			return
		}
		n.Add(1)
		body(w)
	}))
	t.Cleanup(srv.Close)
	return srv, &n
}

func keysBody(cacheControl string, keys ...ed25519.PublicKey) func(w http.ResponseWriter) {
	return func(w http.ResponseWriter) {
		d := Directory{}
		for _, k := range keys {
			d.Keys = append(d.Keys, PublicJWK(k))
		}
		w.Header().Set("Content-Type", DirectoryMediaType)
		w.Header().Set("Cache-Control", cacheControl)
		json.NewEncoder(w).Encode(d)
	}
}

func TestVerify_KeysFromTheAgentsDirectory(t *testing.T) {
	key := newKey(t)
	pub := key.Public().(ed25519.PublicKey)
	srv, fetches := directory(t, keysBody("max-age=300", pub))
	v := &Verifier{Directories: &DirectoryFetcher{AllowHTTP: true, AllowPrivate: true}}
	s := &Signer{Key: key, Agent: srv.URL}
	for range 3 {
		a, err := v.Verify(signed(t, s, "https://shop.example/"))
		if err != nil || a.Directory != srv.URL || a.KeyID != Thumbprint(pub) {
			t.Fatalf("%+v %v", a, err)
		}
	}
	if fetches.Load() != 1 {
		t.Errorf("the directory was fetched %d times, want once (max-age=300)", fetches.Load())
	}
	// Its Signature-Agent changed after signing: refused.
	r := signed(t, s, "https://shop.example/")
	r.Header.Set("Signature-Agent", `"https://other.example"`)
	if _, err := v.Verify(r); err == nil {
		t.Error("a changed Signature-Agent verified")
	}
}

func TestVerify_DirectoriesThatMisbehave(t *testing.T) {
	key := newKey(t)
	pub := key.Public().(ed25519.PublicKey)
	huge, _ := directory(t, func(w http.ResponseWriter) {
		w.Write([]byte(`{"keys":[` + strings.Repeat(`{"kty":"OKP","crv":"Ed25519","x":"AAAA"},`, 5000) + `{}]}`))
	})
	slow, _ := directory(t, func(w http.ResponseWriter) { time.Sleep(2 * time.Second); keysBody("", pub)(w) })
	liar, _ := directory(t, keysBody("", newKey(t).Public().(ed25519.PublicKey)))
	broken, _ := directory(t, func(w http.ResponseWriter) { w.Write([]byte("<html>not keys</html>")) })
	gone, _ := directory(t, func(w http.ResponseWriter) { w.WriteHeader(500) })
	redirect, _ := directory(t, func(w http.ResponseWriter) {
		w.Header().Set("Location", "http://169.254.169.254/")
		w.WriteHeader(302)
	})
	fetcher := &DirectoryFetcher{AllowHTTP: true, AllowPrivate: true, Timeout: 500 * time.Millisecond}
	v := &Verifier{Directories: fetcher}
	for name, srv := range map[string]*httptest.Server{"huge": huge, "slow": slow, "lying about its keys": liar,
		"not JSON": broken, "failing": gone, "redirecting": redirect} {
		start := time.Now()
		_, err := v.Verify(signed(t, &Signer{Key: key, Agent: srv.URL}, "https://shop.example/"))
		var e *Error
		if !errors.As(err, &e) || time.Since(start) > 1500*time.Millisecond {
			t.Errorf("%s: %v after %s", name, err, time.Since(start))
		}
	}
	// By default: no http, no loopback, only allowed origins when listed.
	strict := &Verifier{Directories: &DirectoryFetcher{}}
	ok, _ := directory(t, keysBody("", pub))
	if _, err := strict.Verify(signed(t, &Signer{Key: key, Agent: ok.URL}, "https://shop.example/")); err == nil {
		t.Error("an http directory on loopback was fetched by default")
	}
	https := &DirectoryFetcher{AllowHTTP: false}
	if keys, err := https.Keys(context.Background(), "https://127.0.0.1:1"); err == nil || keys != nil {
		t.Errorf("a loopback https directory: %v", err)
	}
	listed := &Verifier{Directories: &DirectoryFetcher{AllowHTTP: true, AllowPrivate: true, Origins: []string{"https://agent.example"}}}
	if _, err := listed.Verify(signed(t, &Signer{Key: key, Agent: ok.URL}, "https://shop.example/")); err == nil {
		t.Error("a directory off the allowed list was fetched")
	}
}
