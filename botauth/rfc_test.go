package botauth

import (
	"crypto/ed25519"
	"encoding/base64"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// The test key of RFC 9421, appendix B.1.4, as the web-bot-auth package
// gives it in JWK form.
var rfcKey = JWK{Kty: "OKP", Crv: "Ed25519",
	D: "n4Ni-HpISpVObnQMW0wOhCKROaIKqKtW_2ZYb2p9KcU",
	X: "JrQLj5P_89iXES9-vFgrIy29clF9CC_oPPsw3c5D0bs"}

// rfcRequest is the test-request of RFC 9421, appendix B.2.
func rfcRequest() *http.Request {
	r := httptest.NewRequest("POST", "http://example.com/foo?param=Value&Pet=dog", strings.NewReader(`{"hello": "world"}`))
	r.Header.Set("Date", "Tue, 20 Apr 2021 02:07:55 GMT")
	r.Header.Set("Content-Type", "application/json")
	r.Header.Set("Content-Length", "18")
	r.Header.Set("Content-Digest", "sha-512=:WZDPaVn/7XgHaAy8pmojAkGWoRx2UFChF41A2svX+TaPm+AbwAgBWnrIiYllu7BNNyealdVLvRwEmTHWXvJwew==:")
	return r
}

// The signature of appendix B.2.6: its base is built byte for byte, it
// verifies with the test key, and signing the same base with the test key
// gives the same signature (Ed25519 is deterministic).
func TestRFC9421_Ed25519Vector(t *testing.T) {
	r := rfcRequest()
	const input = `sig-b26=("date" "@method" "@path" "@authority" "content-type" "content-length");created=1618884473;keyid="test-key-ed25519"`
	const signature = `sig-b26=:wqcAqbmYJ2ji2glfAMaRy4gruYYnx2nEFN2HN6jrnDnQCK1u02Gb04v9EDgwUPiu4A0w6vuQv5lIp5WPpBKRCw==:`
	ins, err := parseDictionary(input)
	if err != nil || len(ins) != 1 {
		t.Fatalf("Signature-Input: %v", err)
	}
	sigs, err := parseDictionary(signature)
	if err != nil || len(sigs) != 1 {
		t.Fatalf("Signature: %v", err)
	}
	base, err := signatureBase(r, ins[0].items, ins[0].params)
	if err != nil {
		t.Fatal(err)
	}
	want := `"date": Tue, 20 Apr 2021 02:07:55 GMT
"@method": POST
"@path": /foo
"@authority": example.com
"content-type": application/json
"content-length": 18
"@signature-params": ("date" "@method" "@path" "@authority" "content-type" "content-length");created=1618884473;keyid="test-key-ed25519"`
	if string(base) != want {
		t.Fatalf("signature base:\n%s\nwant:\n%s", base, want)
	}
	pub, err := rfcKey.PublicKey()
	if err != nil {
		t.Fatal(err)
	}
	if !ed25519.Verify(pub, base, sigs[0].bytes) {
		t.Fatal("the RFC's signature does not verify")
	}
	priv, err := rfcKey.PrivateKey()
	if err != nil {
		t.Fatal(err)
	}
	if got := base64.StdEncoding.EncodeToString(ed25519.Sign(priv, base)); "sig-b26=:"+got+":" != signature {
		t.Errorf("signing the base gives %s", got)
	}
	// The serialization of the parameters is the Signature-Input member.
	if got := "sig-b26=" + serializeParams(ins[0].items, ins[0].params); got != input {
		t.Errorf("parameters serialize as %s", got)
	}
}

// The thumbprint of RFC 8037's Ed25519 example key (appendix A.3).
func TestThumbprint_RFC8037(t *testing.T) {
	x, _ := base64.RawURLEncoding.DecodeString("11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo")
	if got := Thumbprint(ed25519.PublicKey(x)); got != "kPrK_qmxVWaYVA9wwBF6Iuo3vVzz7TxHCTwXBygrS4k" {
		t.Errorf("thumbprint %s", got)
	}
}
