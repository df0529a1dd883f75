package botauth

import (
	"context"
	"crypto/ed25519"
	"encoding/base64"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"sync"
	"testing"
	"time"
)

// signWith signs r with key over items and ps exactly as given: for
// requests a Signer would never make.
func signWith(t *testing.T, r *http.Request, key ed25519.PrivateKey, items []string, ps params) {
	t.Helper()
	base, err := signatureBase(r, items, ps)
	if err != nil {
		t.Fatal(err)
	}
	r.Header.Set("Signature-Input", "sig1="+serializeParams(items, ps))
	r.Header.Set("Signature", "sig1=:"+base64.StdEncoding.EncodeToString(ed25519.Sign(key, base))+":")
}

func stdParams(key ed25519.PrivateKey, now time.Time, alg any) params {
	return params{{"created", now.Unix()}, {"expires", now.Unix() + 60},
		{"keyid", Thumbprint(key.Public().(ed25519.PublicKey))}, {"alg", alg}, {"tag", Tag}}
}

// alg names the algorithm whatever its type: given as a token, another
// algorithm is refused as it is given as a string.
func TestVerify_AlgAsATokenIsChecked(t *testing.T) {
	key := newKey(t)
	v := &Verifier{Keys: []Key{{Name: "a", Public: key.Public().(ed25519.PublicKey)}}}
	for _, alg := range []any{token("rsa-pss-sha512"), token("ed25519"), int64(1), true} {
		r := httptest.NewRequest("GET", "https://shop.example/", nil)
		signWith(t, r, key, []string{"@authority"}, stdParams(key, time.Now(), alg))
		if _, err := v.Verify(r); err == nil {
			t.Errorf("alg %#v verified", alg)
		}
	}
	r := httptest.NewRequest("GET", "https://shop.example/", nil)
	signWith(t, r, key, []string{"@authority"}, stdParams(key, time.Now(), "ed25519"))
	if _, err := v.Verify(r); err != nil {
		t.Fatalf("the string ed25519: %v", err)
	}
}

// A dictionary's member given twice is its last value (RFC 8941): a
// Signature-Input member appended after a good one is the one checked.
func TestVerify_DuplicateMembersAreLastWins(t *testing.T) {
	key := newKey(t)
	v := &Verifier{Keys: []Key{{Name: "a", Public: key.Public().(ed25519.PublicKey)}}}
	good := func() *http.Request { return signed(t, &Signer{Key: key}, "https://shop.example/cart") }
	r := good()
	in := r.Header.Get("Signature-Input")
	bad := strings.Replace(in, `("@authority")`, `("@method")`, 1)
	r.Header.Set("Signature-Input", in+", "+bad)
	if _, err := v.Verify(r); err == nil {
		t.Error("a good member followed by a bad one of the same label verified (first wins)")
	}
	r = good()
	in = r.Header.Get("Signature-Input")
	bad = strings.Replace(in, `("@authority")`, `("@method")`, 1)
	r.Header.Set("Signature-Input", bad+", "+in)
	if _, err := v.Verify(r); err != nil {
		t.Errorf("a bad member replaced by a good one: %v", err)
	}
	ms, err := parseDictionary(`a=("x"), b=("y"), a=("z")`)
	if err != nil || len(ms) != 2 || ms[0].label != "a" || ms[0].items[0] != "z" || ms[1].label != "b" {
		t.Errorf("last wins, in the first one's place: %+v %v", ms, err)
	}
}

// Tokens are ASCII; byte sequences may come without their padding.
func TestSFV_TokensAndByteSequences(t *testing.T) {
	for _, s := range []string{"sig1=(\"@authority\");alg=ed\u00e925519", "sig1=(\"@authority\");alg=ed\x7f", "sig1=(\"@authority\");alg=e{d}"} {
		if _, err := parseDictionary(s); err == nil {
			t.Errorf("%q parsed", s)
		}
	}
	if _, err := parseDictionary(`sig1=("@authority");alg=ed25519:x/y`); err != nil {
		t.Errorf("a token with ':' and '/': %v", err)
	}
	key := newKey(t)
	v := &Verifier{Keys: []Key{{Name: "a", Public: key.Public().(ed25519.PublicKey)}}}
	r := signed(t, &Signer{Key: key}, "https://shop.example/")
	sig := r.Header.Get("Signature") // an Ed25519 signature is 64 bytes: "==" padded
	r.Header.Set("Signature", strings.TrimSuffix(sig, "==:")+":")
	if _, err := v.Verify(r); err != nil {
		t.Errorf("an unpadded signature: %v", err)
	}
}

// Every Signature-Agent line counts: one the signature does not cover is
// refused, wherever it is.
func TestVerify_EverySignatureAgentLine(t *testing.T) {
	key := newKey(t)
	v := &Verifier{Keys: []Key{{Name: "a", Public: key.Public().(ed25519.PublicKey)}}}
	r := signed(t, &Signer{Key: key}, "https://shop.example/")
	r.Header.Add("Signature-Agent", "")
	r.Header.Add("Signature-Agent", `"https://agent.example"`)
	if _, err := v.Verify(r); err == nil {
		t.Error("an uncovered second Signature-Agent line verified")
	}
}

// A caller that hangs up does not make the directory's failure the next
// caller's: the fetch does not run on its context, and callers at once
// share one fetch.
func TestDirectory_ACallerThatHangsUpPoisonsNothing(t *testing.T) {
	key := newKey(t)
	pub := key.Public().(ed25519.PublicKey)
	srv, fetches := directory(t, func(w http.ResponseWriter) { time.Sleep(150 * time.Millisecond); keysBody("max-age=300", pub)(w) })
	f := &DirectoryFetcher{AllowHTTP: true, AllowPrivate: true}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Millisecond)
	defer cancel()
	if _, err := f.Keys(ctx, srv.URL); err == nil {
		t.Fatal("a caller that hung up got keys")
	}
	keys, err := f.Keys(context.Background(), srv.URL)
	if err != nil || len(keys) != 1 {
		t.Fatalf("the next caller: %v %v", keys, err)
	}
	srv2, fetches2 := directory(t, func(w http.ResponseWriter) { time.Sleep(100 * time.Millisecond); keysBody("max-age=300", pub)(w) })
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			if _, err := f.Keys(context.Background(), srv2.URL); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	if fetches2.Load() != 1 || fetches.Load() != 1 {
		t.Errorf("fetches: %d for eight callers at once, %d for the first directory", fetches2.Load(), fetches.Load())
	}
}

// The directory's address filter follows the IANA special-purpose
// address registries, IPv4 and IPv6, in full.
func TestDirectory_SpecialPurposeAddressesAreBlocked(t *testing.T) {
	blocked := []string{"0.1.2.3", "10.0.0.1", "100.64.0.1", "100.100.100.200", "127.0.0.1", "169.254.169.254", "172.16.0.1",
		"192.0.0.9", "192.0.2.1", "192.31.196.1", "192.52.193.1", "192.88.99.1", "192.168.1.1", "192.175.48.1", "198.18.0.1",
		"198.19.255.255", "198.51.100.1", "203.0.113.1", "224.0.0.1", "240.0.0.1", "255.255.255.255",
		"::", "::1", "::ffff:127.0.0.1", "::ffff:100.64.0.1", "64:ff9b::a9fe:a9fe", "64:ff9b:1::1", "100::1", "2001::1",
		"2001:2::1", "2001:db8::1", "2002:a9fe:a9fe::1", "3fff::1", "5f00::1", "fc00::1", "fd00:ec2::254", "fe80::1", "fec0::1", "ff02::1"}
	for _, s := range blocked {
		if !specialPurpose(netip.MustParseAddr(s)) {
			t.Errorf("%s is not blocked", s)
		}
	}
	for _, s := range []string{"8.8.8.8", "1.1.1.1", "100.63.255.255", "100.128.0.1", "198.17.255.255", "198.20.0.1", "2606:4700::1111", "2a00:1450::1"} {
		if specialPurpose(netip.MustParseAddr(s)) {
			t.Errorf("%s is blocked", s)
		}
	}
	f := &DirectoryFetcher{}
	if _, err := f.Keys(context.Background(), "https://[64:ff9b::7f00:1]:1"); err == nil || !errors.Is(err, errBlocked) && !strings.Contains(err.Error(), "private") {
		t.Errorf("a NAT64 loopback directory: %v", err)
	}
}
