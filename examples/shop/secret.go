package main

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"strings"

	"github.com/affordances-go/affordances/examples/shop/shop"
)

// readSecret reads the shop's secret (shop.Options.Secret) from path, or
// from the default beside the database: the SQLite file's path with
// ".secret", or shop.secret in the working directory for PostgreSQL. A
// missing file is created with 32 random bytes, readable by its owner
// only, so that the shop keeps its key across restarts (a retried call
// is still recognised) and instances on one host share it. The secret
// never goes into the database.
func readSecret(path, dbPath string) ([]byte, error) {
	if path == "" {
		path = "shop.secret"
		if !strings.HasPrefix(dbPath, "postgres://") && !strings.HasPrefix(dbPath, "postgresql://") {
			path = dbPath + ".secret"
		}
	}
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		if err := createSecret(path); err != nil {
			return nil, fmt.Errorf("creating the secret file: %w", err)
		}
		b, err = os.ReadFile(path) // ours, or the one another instance made first
	}
	if err != nil {
		return nil, fmt.Errorf("reading the secret file: %w", err)
	}
	if len(b) < 16 {
		return nil, fmt.Errorf("the secret file %s holds %d bytes; it needs at least 16", path, len(b))
	}
	return b, nil
}

// createSecret creates the secret file at path with 32 random bytes, or
// leaves the one another instance created first: the bytes are written to
// a file of their own, then linked at path, which fails when path exists,
// so that a file at path is always whole and never replaced.
func createSecret(path string) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), ".secret-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	b := make([]byte, 32)
	rand.Read(b)
	if _, err := tmp.Write(b); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	if err := os.Link(tmp.Name(), path); err != nil && !errors.Is(err, fs.ErrExist) {
		return err
	}
	return nil
}

// passkeyOrigins are the origins people use passkeys from: the public
// origins when set, else http://localhost on the port the shop listens on
// (a passkey's RP ID is a domain, never 127.0.0.1: open the shop at
// http://localhost:PORT to use them).
func passkeyOrigins(origins []string, addr string) []string {
	if len(origins) > 0 {
		return origins
	}
	_, port, err := net.SplitHostPort(addr)
	if err != nil {
		return nil
	}
	return []string{"http://localhost:" + port}
}

// startTokenPath is where the demo account's printed token is kept
// between starts: beside the secret file.
func startTokenPath(secretFile, dbPath string) string {
	if secretFile == "" {
		secretFile = "shop.secret"
		if !strings.HasPrefix(dbPath, "postgres://") && !strings.HasPrefix(dbPath, "postgresql://") {
			secretFile = dbPath + ".secret"
		}
	}
	return strings.TrimSuffix(secretFile, ".secret") + ".token"
}

// startToken is the demo account's token the shop prints: the one of the
// last start while it still works (so that an exported AFFORD_TOKEN keeps
// working across restarts), else a new one, which revokes the earlier
// starts' and is kept in path (mode 0600; the database keeps its hash
// only).
func startToken(ctx context.Context, store *shop.Store, demo int64, path string) (string, error) {
	if b, err := os.ReadFile(path); err == nil {
		tok := strings.TrimSpace(string(b))
		if id, err := store.TokenOwner(ctx, tok); err == nil && id == demo {
			return tok, nil
		}
	}
	tok, err := store.NewStartToken(ctx, demo) // and the earlier starts' tokens are revoked
	if err != nil {
		return "", err
	}
	if err := os.WriteFile(path, []byte(tok+"\n"), 0o600); err != nil {
		return "", fmt.Errorf("keeping the start token: %w", err)
	}
	return tok, nil
}
