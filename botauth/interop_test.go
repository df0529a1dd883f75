package botauth

import (
	"bytes"
	"crypto/ed25519"
	"encoding/json"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// node runs testdata/interop/interop.mjs, the other side of the interop
// tests, on Cloudflare's web-bot-auth package. By hand the tests skip
// without node or the package (npm ci --prefix botauth/testdata/interop);
// in CI they run.
func node(t *testing.T, stdin []byte, args ...string) ([]byte, error) {
	t.Helper()
	dir := filepath.Join("testdata", "interop")
	_, errNode := exec.LookPath("node")
	_, errPkg := os.Stat(filepath.Join(dir, "node_modules", "web-bot-auth"))
	if errNode != nil || errPkg != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("node and web-bot-auth are needed: .ci/run runs npm ci --prefix botauth/testdata/interop")
		}
		t.Skip("node or web-bot-auth missing: npm ci --prefix botauth/testdata/interop")
	}
	cmd := exec.Command("node", append([]string{"interop.mjs"}, args...)...)
	cmd.Dir = dir
	cmd.Stdin = bytes.NewReader(stdin)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Logf("node %v: %s", args, stderr.String())
	}
	return out, err
}

func rfcPublic(t *testing.T) ed25519.PublicKey {
	pub, err := rfcKey.PublicKey()
	if err != nil {
		t.Fatal(err)
	}
	return pub
}

// Requests web-bot-auth signs verify here, with and without a key
// directory named.
func TestInterop_TheirSignaturesVerifyHere(t *testing.T) {
	for _, agent := range []string{"", "https://agent.example"} {
		out, err := node(t, nil, "sign", "https://shop.example/cart", agent)
		if err != nil {
			t.Fatal(err)
		}
		var headers map[string]string
		if err := json.Unmarshal(out, &headers); err != nil {
			t.Fatalf("%v: %s", err, out)
		}
		r := httptest.NewRequest("GET", "https://shop.example/cart", nil)
		for k, v := range headers {
			r.Header.Set(k, v)
		}
		v := &Verifier{Keys: []Key{{Name: "rfc", Public: rfcPublic(t)}}}
		if a, err := v.Verify(r); err != nil || a.Name != "rfc" {
			t.Errorf("agent %q: %+v %v\n%v", agent, a, err, headers)
		}
		// Sent to another host, the same headers do not verify.
		r.Host = "other.example"
		if _, err := v.Verify(r); err == nil {
			t.Errorf("agent %q: their signature verified for another authority", agent)
		}
	}
}

// Requests signed here verify with web-bot-auth, and a tampered one does
// not.
func TestInterop_OurSignaturesVerifyThere(t *testing.T) {
	priv, err := rfcKey.PrivateKey()
	if err != nil {
		t.Fatal(err)
	}
	for _, agent := range []string{"", "https://agent.example"} {
		r := httptest.NewRequest("GET", "https://shop.example/cart", nil)
		if err := (&Signer{Key: priv, Agent: agent}).Sign(r); err != nil {
			t.Fatal(err)
		}
		headers := map[string]string{}
		for _, k := range []string{"Signature", "Signature-Input", "Signature-Agent"} {
			if v := r.Header.Get(k); v != "" {
				headers[k] = v
			}
		}
		b, _ := json.Marshal(headers)
		if _, err := node(t, b, "verify", "https://shop.example/cart"); err != nil {
			t.Errorf("agent %q: web-bot-auth refused our signature: %v\n%s", agent, err, b)
		}
		if _, err := node(t, b, "verify", "https://other.example/cart"); err == nil {
			t.Errorf("agent %q: web-bot-auth verified our signature for another authority", agent)
		}
	}
}
