package body

import (
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// A body declared over the limit is refused before read runs; one that
// turns out longer is cut at the limit; one within it is read whole.
func TestRead(t *testing.T) {
	big := httptest.NewRequest("POST", "/", strings.NewReader("0123456789"))
	ran := false
	err := Read(httptest.NewRecorder(), big, 4, time.Second, func() error { ran = true; return nil })
	var tooBig *http.MaxBytesError
	if !errors.As(err, &tooBig) || ran {
		t.Errorf("declared too large: %v, read ran %v", err, ran)
	}

	undeclared := httptest.NewRequest("POST", "/", strings.NewReader("0123456789"))
	undeclared.ContentLength = -1
	err = Read(httptest.NewRecorder(), undeclared, 4, time.Second, func() error {
		_, err := io.ReadAll(undeclared.Body)
		return err
	})
	if !errors.As(err, &tooBig) {
		t.Errorf("longer than declared: %v", err)
	}

	small := httptest.NewRequest("POST", "/", strings.NewReader("0123"))
	var got []byte
	err = Read(httptest.NewRecorder(), small, 4, time.Second, func() (err error) {
		got, err = io.ReadAll(small.Body)
		return err
	})
	if err != nil || string(got) != "0123" {
		t.Errorf("within the limit: %q, %v", got, err)
	}
}
