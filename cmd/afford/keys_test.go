package main

import (
	"bytes"
	"crypto/ed25519"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"

	"github.com/affordances-go/affordances/botauth"
	"github.com/affordances-go/affordances/site"
)

// afford keys makes a key; with --key every request is signed, and a site
// that verifies agents knows which one calls: by a configured key, or by
// the directory --agent names.
func TestKeys_AffordSignsItsRequests(t *testing.T) {
	file := filepath.Join(t.TempDir(), "key.json")
	if code, out, errs := afford(t, nil, "keys", "new", file); code != 0 || !strings.Contains(out, "keyid: ") {
		t.Fatalf("keys new: %d %s %s", code, out, errs)
	}
	if code, _, _ := afford(t, nil, "keys", "new", file); code == 0 {
		t.Error("keys new overwrote a key")
	}
	priv, err := loadKey(file)
	if err != nil {
		t.Fatal(err)
	}
	_, dir, _ := afford(t, nil, "keys", "directory", file)
	directory := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == botauth.DirectoryPath {
			w.Write([]byte(dir))
		}
	}))
	defer directory.Close()

	for name, verifier := range map[string]*botauth.Verifier{
		"a configured key": {Keys: []botauth.Key{{Name: "my-agent", Public: priv.Public().(ed25519.PublicKey)}}},
		"the directory":    {Directories: &botauth.DirectoryFetcher{AllowHTTP: true, AllowPrivate: true}},
	} {
		s := site.New(site.Options{Agents: verifier})
		s.Page("/", site.PageOptions{Description: "home", Load: func(r *site.Request) (*site.State, error) {
			return withEntities(&site.State{}, map[string]any{"agent": "agent=" + r.Caller.Agent}), nil
		}})
		srv := httptest.NewServer(s)
		want := "agent=my-agent"
		if verifier.Directories != nil {
			want = "agent=" + strings.TrimPrefix(directory.URL, "http://")
		}
		code, out, errs := afford(t, nil, "get", srv.URL+"/", "--key", file, "--agent", directory.URL)
		if code != 0 || !strings.Contains(out, want) {
			t.Errorf("%s: signed: %d %s %s", name, code, out, errs)
		}
		code, out, _ = afford(t, nil, "get", srv.URL+"/")
		if code != 0 || !strings.Contains(out, "agent=") || strings.Contains(out, want) {
			t.Errorf("%s: unsigned: %d %s", name, code, out)
		}
		srv.Close()
	}
	var b bytes.Buffer
	if code := keysCmd([]string{"show", file}, &b, &b); code != 0 || !strings.Contains(b.String(), botauth.Thumbprint(priv.Public().(ed25519.PublicKey))) {
		t.Errorf("keys show: %s", b.String())
	}
}

// withEntities stores each entity of m in st under its name, as a page's
// keys would.
func withEntities(st *site.State, m map[string]any) *site.State {
	for name, v := range m {
		site.NewKey[any](name).Set(st, v)
	}
	return st
}
