package botauth

import (
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
)

// JWK is an Ed25519 public key as a JSON Web Key (RFC 8037): kty "OKP",
// crv "Ed25519", x the key's 32 bytes in base64url. A directory lists
// its keys so; D, the private part, is set only in a key file of the
// signer's.
type JWK struct {
	Kty string `json:"kty"`
	Crv string `json:"crv"`
	X   string `json:"x"`
	D   string `json:"d,omitempty"`
	Kid string `json:"kid,omitempty"`
	// Nbf and Exp bound when the key may be used (Unix seconds), when set.
	Nbf int64 `json:"nbf,omitempty"`
	Exp int64 `json:"exp,omitempty"`
}

// Directory is an HTTP message signatures directory
// (/.well-known/http-message-signatures-directory): the keys an agent
// signs with.
type Directory struct {
	Keys []JWK `json:"keys"`
}

// DirectoryPath is where an agent serves its key directory.
const DirectoryPath = "/.well-known/http-message-signatures-directory"

// DirectoryMediaType is the directory's media type.
const DirectoryMediaType = "application/http-message-signatures-directory+json"

// PublicKey returns the Ed25519 key of a JWK.
func (k JWK) PublicKey() (ed25519.PublicKey, error) {
	if k.Kty != "OKP" || k.Crv != "Ed25519" {
		return nil, fmt.Errorf("not an Ed25519 key (kty %q, crv %q)", k.Kty, k.Crv)
	}
	x, err := base64.RawURLEncoding.DecodeString(k.X)
	if err != nil || len(x) != ed25519.PublicKeySize {
		return nil, errors.New("the key's x is not 32 bytes of base64url")
	}
	return ed25519.PublicKey(x), nil
}

// PublicJWK returns the JWK of an Ed25519 public key.
func PublicJWK(pub ed25519.PublicKey) JWK {
	return JWK{Kty: "OKP", Crv: "Ed25519", X: base64.RawURLEncoding.EncodeToString(pub)}
}

// PrivateJWK returns the JWK of an Ed25519 private key, with its private
// part, for a key file.
func PrivateJWK(priv ed25519.PrivateKey) JWK {
	k := PublicJWK(priv.Public().(ed25519.PublicKey))
	k.D = base64.RawURLEncoding.EncodeToString(priv.Seed())
	return k
}

// PrivateKey returns the private key of a JWK that has its private part.
func (k JWK) PrivateKey() (ed25519.PrivateKey, error) {
	pub, err := k.PublicKey()
	if err != nil {
		return nil, err
	}
	seed, err := base64.RawURLEncoding.DecodeString(k.D)
	if err != nil || len(seed) != ed25519.SeedSize {
		return nil, errors.New("the key's d is not 32 bytes of base64url")
	}
	priv := ed25519.NewKeyFromSeed(seed)
	if !priv.Public().(ed25519.PublicKey).Equal(pub) {
		return nil, errors.New("the key's d and x do not match")
	}
	return priv, nil
}

// Thumbprint is the key's JWK thumbprint (RFC 7638, SHA-256, base64url):
// the keyid of its signatures.
func Thumbprint(pub ed25519.PublicKey) string {
	// The required members in lexicographic order, with no white space.
	canon := `{"crv":"Ed25519","kty":"OKP","x":"` + base64.RawURLEncoding.EncodeToString(pub) + `"}`
	h := sha256.Sum256([]byte(canon))
	return base64.RawURLEncoding.EncodeToString(h[:])
}
