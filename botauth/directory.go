package botauth

import (
	"context"
	"crypto/ed25519"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// DirectoryFetcher fetches and caches the key directories agents name in
// their Signature-Agent header. A request's signature makes the site
// fetch a URL the request chose, so the fetcher is bounded: https only
// (AllowHTTP for tests), no private, loopback, link-local or other
// special-purpose address unless AllowPrivate (every block of the IANA
// registries, their NAT64 and IPv4-mapped forms included), an optional
// list of allowed origins, a size and a time limit, one fetch at a time
// per directory, and a bounded cache that keeps each directory as long as
// its Cache-Control says (within MinTTL and MaxTTL).
type DirectoryFetcher struct {
	// Origins, when set, are the only directories fetched
	// ("https://agent.example").
	Origins []string
	// AllowHTTP allows http:// directories; AllowPrivate allows private,
	// loopback and link-local addresses. For tests and closed networks.
	AllowHTTP, AllowPrivate bool
	// MaxBytes bounds a directory. Default: 64 KiB.
	MaxBytes int64
	// Timeout bounds a fetch. Default: 3 seconds.
	Timeout time.Duration
	// MinTTL and MaxTTL bound how long a directory is kept. Defaults: one
	// minute and one day; a directory without max-age is kept an hour.
	MinTTL, MaxTTL time.Duration
	// MaxEntries bounds the cache. Default: 1,000 directories.
	MaxEntries int

	once     sync.Once
	client   *http.Client
	mu       sync.Mutex
	cache    map[string]cached
	inflight map[string]*flight // the fetch under way of each directory
}

// flight is one fetch of a directory, which every caller that asks for it
// meanwhile waits for.
type flight struct {
	done chan struct{}
	keys []ed25519.PublicKey
	err  error
}

type cached struct {
	keys    []ed25519.PublicKey
	err     error
	expires time.Time
}

// errBlocked is a directory on an address the fetcher does not reach.
var errBlocked = errors.New("its address is private, loopback, link-local or otherwise special-purpose")

func (f *DirectoryFetcher) init() {
	f.once.Do(func() {
		dialer := &net.Dialer{Timeout: f.timeout()}
		if !f.AllowPrivate {
			dialer.Control = func(_, address string, _ syscall.RawConn) error {
				host, _, err := net.SplitHostPort(address)
				if err != nil {
					return err
				}
				ip, err := netip.ParseAddr(host)
				if err != nil || specialPurpose(ip) {
					return errBlocked
				}
				return nil
			}
		}
		f.client = &http.Client{
			Timeout:   f.timeout(),
			Transport: &http.Transport{DialContext: dialer.DialContext, ResponseHeaderTimeout: f.timeout(), MaxIdleConnsPerHost: 2},
			// A directory is where the agent says: no redirect elsewhere.
			CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
		}
		f.cache = map[string]cached{}
		f.inflight = map[string]*flight{}
	})
}

func (f *DirectoryFetcher) timeout() time.Duration {
	if f.Timeout > 0 {
		return f.Timeout
	}
	return 3 * time.Second
}

// Keys returns the Ed25519 keys of the directory at origin, from the
// cache or fetched.
//
// The fetch is the fetcher's, not the caller's: it runs within its own
// Timeout whether or not the caller waits for it, and callers that ask
// for one directory at once share one fetch. So a caller that sends a
// signature naming a directory and hangs up cannot make the fetch fail,
// and its failure, cached briefly, the real agent's. A caller whose
// context ends stops waiting, with an error.
func (f *DirectoryFetcher) Keys(ctx context.Context, origin string) ([]ed25519.PublicKey, error) {
	f.init()
	if !f.allowed(origin) {
		return nil, errors.New("this directory is not allowed here")
	}
	f.mu.Lock()
	c, ok := f.cache[origin]
	if ok && time.Now().Before(c.expires) {
		f.mu.Unlock()
		return c.keys, c.err
	}
	fl := f.inflight[origin]
	if fl == nil {
		fl = &flight{done: make(chan struct{})}
		f.inflight[origin] = fl
		go f.fly(origin, fl)
	}
	f.mu.Unlock()
	select {
	case <-fl.done:
		return fl.keys, fl.err
	case <-ctx.Done():
		return nil, errors.New("the request ended before the directory answered")
	}
}

// fly fetches a directory for every caller waiting on fl, and caches what
// it got.
func (f *DirectoryFetcher) fly(origin string, fl *flight) {
	keys, ttl, err := f.fetch(context.Background(), origin)
	if err != nil {
		ttl = 30 * time.Second // a failure is remembered briefly
	}
	now := time.Now()
	f.mu.Lock()
	defer close(fl.done)
	defer f.mu.Unlock()
	fl.keys, fl.err = keys, err
	delete(f.inflight, origin)
	if limit := f.maxEntries(); len(f.cache) >= limit {
		for k, v := range f.cache { // the expired first
			if now.After(v.expires) {
				delete(f.cache, k)
			}
		}
		for k := range f.cache { // then any, until there is room
			if len(f.cache) < limit {
				break
			}
			delete(f.cache, k)
		}
	}
	f.cache[origin] = cached{keys: keys, err: err, expires: now.Add(ttl)}
}

func (f *DirectoryFetcher) maxEntries() int {
	if f.MaxEntries > 0 {
		return f.MaxEntries
	}
	return 1000
}

func (f *DirectoryFetcher) allowed(origin string) bool {
	if strings.HasPrefix(origin, "http://") && !f.AllowHTTP {
		return false
	}
	if len(f.Origins) == 0 {
		return true
	}
	for _, o := range f.Origins {
		if strings.EqualFold(strings.TrimSuffix(o, "/"), origin) {
			return true
		}
	}
	return false
}

// fetch reads a directory and how long to keep it.
func (f *DirectoryFetcher) fetch(ctx context.Context, origin string) ([]ed25519.PublicKey, time.Duration, error) {
	ctx, cancel := context.WithTimeout(ctx, f.timeout())
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, origin+DirectoryPath, nil)
	if err != nil {
		return nil, 0, err
	}
	req.Header.Set("Accept", DirectoryMediaType+", application/json")
	res, err := f.client.Do(req)
	if err != nil {
		if errors.Is(err, errBlocked) {
			return nil, 0, errBlocked
		}
		return nil, 0, errors.New("it did not answer in time")
	}
	defer res.Body.Close()
	if res.StatusCode != http.StatusOK {
		return nil, 0, fmt.Errorf("it answered %d", res.StatusCode)
	}
	limit := f.MaxBytes
	if limit <= 0 {
		limit = 64 << 10
	}
	body, err := io.ReadAll(io.LimitReader(res.Body, limit+1))
	if err != nil {
		return nil, 0, errors.New("it could not be read in time")
	}
	if int64(len(body)) > limit {
		return nil, 0, fmt.Errorf("it is larger than %d bytes", limit)
	}
	var d Directory
	if err := json.Unmarshal(body, &d); err != nil {
		return nil, 0, errors.New("it is not a JSON key directory")
	}
	var keys []ed25519.PublicKey
	now := time.Now().Unix()
	for _, k := range d.Keys {
		pub, err := k.PublicKey()
		if err != nil || (k.Nbf != 0 && now < k.Nbf) || (k.Exp != 0 && now > k.Exp) {
			continue // not an Ed25519 key, or not now
		}
		keys = append(keys, pub)
	}
	return keys, f.ttl(res.Header.Get("Cache-Control")), nil
}

// ttl reads max-age, within MinTTL and MaxTTL.
func (f *DirectoryFetcher) ttl(cc string) time.Duration {
	minTTL, maxTTL := f.MinTTL, f.MaxTTL
	if minTTL <= 0 {
		minTTL = time.Minute
	}
	if maxTTL <= 0 {
		maxTTL = 24 * time.Hour
	}
	ttl := time.Hour
	for part := range strings.SplitSeq(cc, ",") {
		k, v, _ := strings.Cut(strings.TrimSpace(part), "=")
		switch strings.ToLower(k) {
		case "max-age":
			if n, err := strconv.Atoi(v); err == nil {
				ttl = time.Duration(n) * time.Second
			}
		case "no-store", "no-cache":
			ttl = 0
		}
	}
	return min(max(ttl, minTTL), maxTTL)
}
