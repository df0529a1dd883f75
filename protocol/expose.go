package protocol

// Expose says who may call an action. An action without one is not part of
// the protocol at all: servers never list it and never run it.
type Expose string

const (
	// ExposePublic actions may be called by anyone, signed in or not.
	ExposePublic Expose = "public"
	// ExposeSession actions need a caller the site has authenticated, by its
	// session cookie or by a bearer token it accepts. Callers without a
	// session still see them in graphs, marked unavailable.
	ExposeSession Expose = "session"
	// ExposeConfirm actions need a session, and each call must also carry
	// confirm: true, which an agent sends only after a person approved the
	// summary the server gave it.
	ExposeConfirm Expose = "confirm"
)

// Exposes lists every valid [Expose] value, in the order of increasing
// requirements.
func Exposes() []Expose { return []Expose{ExposePublic, ExposeSession, ExposeConfirm} }

// Valid reports whether e is one of the protocol's expose values.
func (e Expose) Valid() bool {
	switch e {
	case ExposePublic, ExposeSession, ExposeConfirm:
		return true
	}
	return false
}

// NeedsSession reports whether calling an action with this expose requires
// an authenticated caller.
func (e Expose) NeedsSession() bool { return e == ExposeSession || e == ExposeConfirm }
