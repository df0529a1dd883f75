package main

import (
	"crypto/ed25519"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/affordances-go/affordances/botauth"
)

const keysUsage = `afford keys: the key afford signs its requests with (Web Bot Auth).

  afford keys new FILE            make an Ed25519 key pair, saved in FILE (0600, a JWK)
  afford keys show FILE           its keyid (the key's JWK thumbprint) and public key
  afford keys directory FILE      the key directory an agent publishes, as JSON
  afford keys serve FILE [--addr 127.0.0.1:8090]
                                  serve that directory at ` + botauth.DirectoryPath + `

With --key FILE (or $AFFORD_KEY), every request of afford index, get, call
and mcp is signed; with --agent URL (or $AFFORD_AGENT), the signature names
the origin where the key directory is served (Signature-Agent), so that a
site that fetches directories can verify it without knowing the key.
`

// keysCmd runs afford keys.
func keysCmd(args []string, stdout, stderr io.Writer) int {
	if len(args) < 2 || args[0] == "-h" || args[0] == "--help" {
		fmt.Fprint(stdout, keysUsage)
		if len(args) == 0 || (args[0] != "-h" && args[0] != "--help") {
			return exitUsage
		}
		return exitOK
	}
	sub, file := args[0], args[1]
	fail := func(err error) int {
		fmt.Fprintf(stderr, "afford keys %s: %v\n", sub, err)
		return exitUsage
	}
	if sub == "new" {
		_, priv, err := ed25519.GenerateKey(nil)
		if err != nil {
			return fail(err)
		}
		// O_EXCL: an existing key is never overwritten, even by a race.
		f, err := os.OpenFile(file, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
		if errors.Is(err, os.ErrExist) {
			return fail(fmt.Errorf("%s exists: keep it, or remove it first", file))
		}
		if err != nil {
			return fail(err)
		}
		b, _ := json.MarshalIndent(botauth.PrivateJWK(priv), "", "  ")
		if _, err := f.Write(append(b, '\n')); err != nil {
			f.Close()
			return fail(err)
		}
		if err := f.Close(); err != nil {
			return fail(err)
		}
		fmt.Fprintf(stdout, "a new key in %s\nkeyid: %s\n", file, botauth.Thumbprint(priv.Public().(ed25519.PublicKey)))
		return exitOK
	}
	priv, err := loadKey(file)
	if err != nil {
		return fail(err)
	}
	pub := priv.Public().(ed25519.PublicKey)
	dir, _ := json.MarshalIndent(botauth.Directory{Keys: []botauth.JWK{botauth.PublicJWK(pub)}}, "", "  ")
	switch sub {
	case "show":
		b, _ := json.Marshal(botauth.PublicJWK(pub))
		fmt.Fprintf(stdout, "keyid: %s\npublic key: %s\n", botauth.Thumbprint(pub), b)
	case "directory":
		fmt.Fprintf(stdout, "%s\n", dir)
	case "serve":
		addr := "127.0.0.1:8090"
		if len(args) > 3 && args[2] == "--addr" {
			addr = args[3]
		}
		ln, err := net.Listen("tcp", addr)
		if err != nil {
			return fail(err)
		}
		fmt.Fprintf(stdout, "the key directory is at http://%s%s\n", ln.Addr(), botauth.DirectoryPath)
		mux := http.NewServeMux()
		mux.HandleFunc("GET "+botauth.DirectoryPath, func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", botauth.DirectoryMediaType)
			w.Header().Set("Cache-Control", "max-age=3600")
			w.Write(dir)
		})
		srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
		return fail(srv.Serve(ln))
	default:
		return fail(errors.New("no such command: new, show, directory or serve"))
	}
	return exitOK
}

// loadKey reads a key file of afford keys new.
func loadKey(file string) (ed25519.PrivateKey, error) {
	b, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	var k botauth.JWK
	if err := json.Unmarshal(b, &k); err != nil {
		return nil, fmt.Errorf("%s is not a JWK: %v", file, err)
	}
	return k.PrivateKey()
}

// signer is afford's signer, when a key is configured.
func signer(keyFile, agent string) (*botauth.Signer, error) {
	if keyFile == "" {
		return nil, nil
	}
	priv, err := loadKey(keyFile)
	if err != nil {
		return nil, fmt.Errorf("the signing key: %w", err)
	}
	return &botauth.Signer{Key: priv, Agent: strings.TrimSuffix(agent, "/")}, nil
}
