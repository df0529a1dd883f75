// Package body reads a request's body against a slow or large sender: a
// body declared larger than the limit is refused before any of it is
// read (so that a client that sent Expect: 100-continue is answered
// without sending it), a body is cut at the limit, and it must arrive
// within a timeout, so that a sender that dribbles it holds nothing.
package body

import (
	"net/http"
	"time"
)

// Read runs read on r's body, which it limits to limit bytes, giving the
// body timeout to arrive on a connection that allows a deadline (not a
// recorder). It returns read's error: an *http.MaxBytesError over the
// limit, os.ErrDeadlineExceeded for a body that came too late. Once the
// body is read whole the deadline is lifted, so that the connection's
// next request is not cut short; a body that failed to arrive keeps it
// and closes the connection, where the server would otherwise wait,
// without a deadline, for the rest of it before answering.
func Read(w http.ResponseWriter, r *http.Request, limit int64, timeout time.Duration, read func() error) error {
	if r.ContentLength > limit {
		return &http.MaxBytesError{Limit: limit}
	}
	rc := http.NewResponseController(w)
	timed := rc.SetReadDeadline(time.Now().Add(timeout)) == nil
	r.Body = http.MaxBytesReader(w, r.Body, limit)
	err := read()
	switch {
	case !timed:
	case err != nil:
		w.Header().Set("Connection", "close")
	default:
		_ = rc.SetReadDeadline(time.Time{})
	}
	return err
}
