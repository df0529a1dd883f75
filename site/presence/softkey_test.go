package presence

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"testing"

	"github.com/fxamacker/cbor/v2"
)

// softKey is an authenticator in software, for the tests: a P-256 key
// that answers WebAuthn's create and get as a browser would hand the
// answers to a site, with its user-verified flag and counter ours to set.
type softKey struct {
	priv    *ecdsa.PrivateKey
	id      []byte
	user    []byte // the user handle it was created for
	counter uint32
	rpID    string
	origin  string
	uv      bool // the person verified (a fingerprint, a PIN)
}

func newSoftKey(t *testing.T, rpID, origin string) *softKey {
	t.Helper()
	priv, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	id := make([]byte, 16)
	rand.Read(id)
	return &softKey{priv: priv, id: id, rpID: rpID, origin: origin, uv: true}
}

var b64 = base64.RawURLEncoding

// ask reads the challenge (and the user handle, for a creation) of an Ask.
func readAsk(t *testing.T, raw []byte) (challenge []byte, userID []byte, nonce string) {
	t.Helper()
	var a struct {
		PublicKey struct {
			Challenge string `json:"challenge"`
			User      struct {
				ID string `json:"id"`
			} `json:"user"`
		} `json:"publicKey"`
		Nonce string `json:"nonce"`
	}
	if err := json.Unmarshal(raw, &a); err != nil || a.PublicKey.Challenge == "" {
		t.Fatalf("an ask without a challenge: %s (%v)", raw, err)
	}
	c, err := b64.DecodeString(a.PublicKey.Challenge)
	if err != nil {
		t.Fatal(err)
	}
	u, _ := b64.DecodeString(a.PublicKey.User.ID)
	return c, u, a.Nonce
}

func (k *softKey) flags() byte {
	f := byte(0x01) // user present
	if k.uv {
		f |= 0x04
	}
	return f
}

func (k *softKey) authData(extra byte, rest []byte) []byte {
	rp := sha256.Sum256([]byte(k.rpID))
	out := append([]byte{}, rp[:]...)
	out = append(out, k.flags()|extra)
	out = binary.BigEndian.AppendUint32(out, k.counter)
	return append(out, rest...)
}

func clientData(typ string, challenge []byte, origin string) []byte {
	b, _ := json.Marshal(map[string]any{"type": typ, "challenge": b64.EncodeToString(challenge), "origin": origin, "crossOrigin": false})
	return b
}

// create answers a creation Ask, as navigator.credentials.create would.
func (k *softKey) create(t *testing.T, ask []byte) json.RawMessage {
	t.Helper()
	challenge, user, _ := readAsk(t, ask)
	k.user = user
	point, err := k.priv.PublicKey.Bytes() // 0x04 || X || Y
	if err != nil {
		t.Fatal(err)
	}
	x, y := point[1:33], point[33:65]
	cose, err := cbor.Marshal(map[int]any{1: 2, 3: -7, -1: 1, -2: x, -3: y})
	if err != nil {
		t.Fatal(err)
	}
	att := make([]byte, 16) // AAGUID: none
	att = binary.BigEndian.AppendUint16(att, uint16(len(k.id)))
	att = append(att, k.id...)
	att = append(att, cose...)
	obj, err := cbor.Marshal(map[string]any{"fmt": "none", "attStmt": map[string]any{}, "authData": k.authData(0x40, att)})
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(map[string]any{"id": b64.EncodeToString(k.id), "rawId": b64.EncodeToString(k.id), "type": "public-key",
		"response": map[string]any{"clientDataJSON": b64.EncodeToString(clientData("webauthn.create", challenge, k.origin)),
			"attestationObject": b64.EncodeToString(obj)}})
	return b
}

// get answers a request Ask, as navigator.credentials.get would, and
// returns the proof a page posts (Proof's JSON).
func (k *softKey) get(t *testing.T, ask []byte) (proof string, credential json.RawMessage) {
	t.Helper()
	challenge, _, nonce := readAsk(t, ask)
	return k.proofFor(t, challenge, nonce)
}

func (k *softKey) proofFor(t *testing.T, challenge []byte, nonce string) (string, json.RawMessage) {
	t.Helper()
	k.counter++
	ad := k.authData(0, nil)
	cd := clientData("webauthn.get", challenge, k.origin)
	h := sha256.Sum256(cd)
	digest := sha256.Sum256(append(append([]byte{}, ad...), h[:]...))
	sig, err := ecdsa.SignASN1(rand.Reader, k.priv, digest[:])
	if err != nil {
		t.Fatal(err)
	}
	cred, _ := json.Marshal(map[string]any{"id": b64.EncodeToString(k.id), "rawId": b64.EncodeToString(k.id), "type": "public-key",
		"response": map[string]any{"clientDataJSON": b64.EncodeToString(cd), "authenticatorData": b64.EncodeToString(ad),
			"signature": b64.EncodeToString(sig), "userHandle": b64.EncodeToString(k.user)}})
	p, _ := json.Marshal(Proof{Nonce: nonce, Credential: cred})
	return string(p), cred
}
