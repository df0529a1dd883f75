package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"os"
	"strings"
	"sync"
	"time"
)

// fileJar is a cookie jar kept in a JSON file between runs, so that a
// sequence of commands (signIn, then calls) shares one session. Cookies
// are stored per origin; the standard jar applies the rules.
type fileJar struct {
	path string
	jar  *cookiejar.Jar
	mu   sync.Mutex
	seen map[string]*url.URL // origins whose cookies are saved
}

type savedCookie struct {
	Origin string      `json:"origin"`
	Cookie http.Cookie `json:"cookie"`
}

func openJar(path string) (*fileJar, error) {
	jar, _ := cookiejar.New(nil)
	j := &fileJar{path: path, jar: jar, seen: map[string]*url.URL{}}
	if path == "" {
		return j, nil
	}
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return j, nil
	}
	if err != nil {
		return nil, fmt.Errorf("reading the cookie jar: %w", err)
	}
	var saved []savedCookie
	if err := json.Unmarshal(b, &saved); err != nil {
		return nil, fmt.Errorf("the cookie jar %s is not one of afford's: %w", path, err)
	}
	for _, s := range saved {
		u, err := url.Parse(s.Origin)
		if err != nil {
			continue
		}
		c := s.Cookie
		if !c.Expires.IsZero() && c.Expires.Before(time.Now()) {
			continue
		}
		jar.SetCookies(u, []*http.Cookie{&c})
		j.seen[s.Origin] = u
	}
	return j, nil
}

func (j *fileJar) SetCookies(u *url.URL, cookies []*http.Cookie) {
	j.jar.SetCookies(u, cookies)
	j.mu.Lock()
	o := &url.URL{Scheme: u.Scheme, Host: u.Host, Path: "/"}
	j.seen[o.Scheme+"://"+o.Host] = o
	j.mu.Unlock()
}

func (j *fileJar) Cookies(u *url.URL) []*http.Cookie { return j.jar.Cookies(u) }

// add puts cookies given as NAME=VALUE (--cookie) in the jar for the site
// of target, on its every path, as a browser would send them there.
func (j *fileJar) add(target string, cookies []string) error {
	u, err := url.Parse(target)
	if err != nil || u.Host == "" {
		return fmt.Errorf("--cookie: %q is no URL to send the cookie to", target)
	}
	site := &url.URL{Scheme: u.Scheme, Host: u.Host, Path: "/"}
	for _, c := range cookies {
		name, value, _ := strings.Cut(c, "=")
		ck := &http.Cookie{Name: strings.TrimSpace(name), Value: strings.TrimSpace(value), Path: "/"}
		if ck.String() == "" {
			return fmt.Errorf("--cookie: %q is not a cookie a site could have set", c)
		}
		j.SetCookies(site, []*http.Cookie{ck})
	}
	return nil
}

// lost reports whether a site set cookies that this run will not keep:
// no --cookie-jar file to save them in.
func (j *fileJar) lost() bool {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.path == "" && len(j.seen) > 0
}

// save writes the cookies of every origin seen to the file. Expiry is not
// visible through the standard jar, so saved cookies last a day unless the
// server refreshes them; the server's own expiry still rules.
func (j *fileJar) save() error {
	if j.path == "" {
		return nil
	}
	j.mu.Lock()
	defer j.mu.Unlock()
	saved := []savedCookie{}
	for origin, u := range j.seen {
		for _, c := range j.jar.Cookies(u) {
			saved = append(saved, savedCookie{Origin: origin, Cookie: http.Cookie{Name: c.Name, Value: c.Value,
				Path: "/", Expires: time.Now().Add(24 * time.Hour), HttpOnly: true, Secure: u.Scheme == "https"}})
		}
	}
	b, err := json.MarshalIndent(saved, "", "  ")
	if err != nil {
		return err
	}
	if err := os.WriteFile(j.path, b, 0o600); err != nil {
		return fmt.Errorf("saving the cookie jar: %w", err)
	}
	return nil
}
