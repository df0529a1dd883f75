package tokens

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"time"

	"github.com/affordances-go/affordances/protocol"
	"github.com/affordances-go/affordances/site"
	"github.com/affordances-go/affordances/site/safetext"
)

// Kit is the token kit of one site: its store and what the person's page
// offers. Make it with [New] at start-up; it is safe for concurrent use.
type Kit struct {
	store Store
	opts  Options
}

// Options shape a [Kit]. The zero value is a kit whose tokens may do
// everything their owner may, never expire unless the person says so, and
// approve nothing in advance.
type Options struct {
	// Prefix starts every secret; DefaultPrefix when empty.
	Prefix string
	// Actions are the actions the person may limit a token to, with what
	// each does in their words, in the order the page lists them. Empty:
	// the page offers no choice and every token may run every action its
	// owner may.
	Actions []Choice
	// Standing, when set, lets the person approve calls in advance on the
	// page: so much per call and per day, in Unit.
	Standing *StandingOffer
	// Write runs the kit's writes (making and revoking tokens) with the
	// store they must use. Set it to run them in the application's
	// transaction, so that they commit with what it commits beside them
	// (the row of a call's Idempotency-Key): with a [SQL] store, call f
	// with store.Tx(tx). Nil runs f with the kit's store.
	Write func(ctx context.Context, f func(Store) error) error
	// Reveal keeps a new secret from the form that made it to the next
	// view of the page, where the person sees it once. Nil: a cookie
	// (see [CookieReveal]).
	Reveal Reveal
	// Now is the clock; time.Now when nil.
	Now func() time.Time
	// Logger logs what the kit cannot report to a caller (a failed
	// record of last use); slog.Default when nil.
	Logger *slog.Logger
}

// Choice is an action a token can be limited to, and what it does in the
// person's words ("place orders").
type Choice struct {
	Action string `json:"action"`
	Words  string `json:"words"`
}

// StandingOffer is the standing approval the person's page offers: calls
// of Action approved in advance up to an amount per call and per day,
// which the person types in Unit ("EUR") and the kit keeps multiplied by
// Scale (100: cents), never above MaxPerCall and MaxPerDay units.
type StandingOffer struct {
	Action     string `json:"action"`
	Unit       string `json:"unit"`
	Scale      int64  `json:"scale"`
	MaxPerCall int64  `json:"maxPerCall"`
	MaxPerDay  int64  `json:"maxPerDay"`
}

// New returns the kit of a site over store. It panics on options that
// cannot work (a standing approval without its action), a programming
// error found at start-up.
func New(store Store, opts Options) *Kit {
	if store == nil {
		panic("tokens.New: nil store")
	}
	if opts.Prefix == "" {
		opts.Prefix = DefaultPrefix
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	if opts.Reveal == nil {
		opts.Reveal = CookieReveal{}
	}
	if o := opts.Standing; o != nil {
		if o.Action == "" || o.Scale <= 0 || o.MaxPerCall <= 0 || o.MaxPerDay < o.MaxPerCall {
			panic("tokens.New: a StandingOffer needs an Action, a Scale above zero and MaxPerDay ≥ MaxPerCall > 0")
		}
	}
	return &Kit{store: store, opts: opts}
}

// Store returns the kit's store.
func (k *Kit) Store() Store { return k.store }

// Issue makes a token for account and returns its secret, which is kept
// nowhere: give it to the person once. For an application's own flows
// (a token printed at start, a command-line tool); the person's page
// uses it too.
func (k *Kit) Issue(ctx context.Context, account, label string, g Grant) (secret string, t Token, err error) {
	if account == "" {
		return "", Token{}, errors.New("tokens: a token needs an account")
	}
	secret, hash := NewSecret(k.opts.Prefix)
	now := k.opts.Now()
	err = k.write(ctx, func(s Store) error {
		t, err = s.Create(ctx, account, CleanLabel(label, now), hash, g, now)
		return err
	})
	if err != nil {
		return "", Token{}, err
	}
	return secret, t, nil
}

// Revoke revokes one of account's tokens: it stops working at once.
func (k *Kit) Revoke(ctx context.Context, account string, id int64) error {
	return k.write(ctx, func(s Store) error { return s.Revoke(ctx, account, id, k.opts.Now()) })
}

func (k *Kit) write(ctx context.Context, f func(Store) error) error {
	if k.opts.Write != nil {
		return k.opts.Write(ctx, f)
	}
	return f(k.store)
}

// Lookup returns the live token of a secret: ErrNotFound for a secret
// that names no token, a revoked one or an expired one.
func (k *Kit) Lookup(ctx context.Context, secret string) (Token, error) {
	t, err := k.store.Lookup(ctx, Hash(secret))
	if err != nil {
		return Token{}, err
	}
	if !t.Live(k.opts.Now()) {
		return Token{}, ErrNotFound
	}
	return t, nil
}

// usedEvery is how often a token's last use is written: a busy token is
// one write a minute, not one per request.
const usedEvery = time.Minute

// Caller authenticates a request's bearer token. Without an
// Authorization: Bearer header it returns ok false, and the application's
// Auth goes on to its sessions. With one, it returns the [site.Caller] of
// the token's owner (Account, the token's scopes, a Label naming the token
// for the approval page, User the *Token) and ok true, or
// [site.ErrBadToken] for a token that is unknown, revoked or expired,
// which the site answers 401. The token's last use is recorded, once a
// minute at most.
//
// An application that keeps its own value in Caller.User replaces it and
// keeps the token with it; [FromCaller] finds a token the kit put there.
func (k *Kit) Caller(r *http.Request) (c site.Caller, ok bool, err error) {
	secret, found := site.BearerToken(r)
	if !found {
		return site.Caller{}, false, nil
	}
	ctx := r.Context()
	agent := site.VerifiedAgent(ctx)
	if agent == "" {
		agent = r.UserAgent()
	}
	t, err := k.Authenticate(ctx, secret, agent)
	if errors.Is(err, ErrNotFound) {
		return site.Caller{}, true, site.ErrBadToken
	}
	if err != nil {
		return site.Caller{}, true, err
	}
	return site.Caller{
		ID:       fmt.Sprintf("tok:%d", t.ID),
		Account:  t.Account,
		Mode:     protocol.AuthBearer,
		SignedIn: true,
		User:     &t,
		Scopes:   t.Grant.Actions,
		Label:    "the agent with your token " + safetext.Quote(t.Label),
	}, true, nil
}

// Authenticate returns the live token of a secret, as [Kit.Lookup] does,
// and records its use by agent (once a minute at most, or when the agent
// changes): what [Kit.Caller] does for a request, for a door of the
// application's own.
func (k *Kit) Authenticate(ctx context.Context, secret, agent string) (Token, error) {
	t, err := k.Lookup(ctx, secret)
	if err != nil {
		return Token{}, err
	}
	agent = clip(agent, 200)
	if now := k.opts.Now(); now.Sub(t.LastUsed) >= usedEvery || agent != t.LastAgent {
		if err := k.store.Used(ctx, t.ID, agent, now); err != nil {
			k.opts.Logger.WarnContext(ctx, "tokens: recording a token's use", "token", t.ID, "err", err)
		} else {
			t.LastUsed, t.LastAgent = now, agent
		}
	}
	return t, nil
}

// FromCaller returns the token a [Kit.Caller] put in c.User, if it is
// there.
func FromCaller(c site.Caller) (*Token, bool) {
	t, ok := c.User.(*Token)
	return t, ok && t != nil
}

// clip keeps the first n runes of s.
func clip(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n])
	}
	return s
}
