package e2e_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/affordances-go/affordances/examples/shop/shoptest"
	"github.com/affordances-go/affordances/protocol"
)

// exampleBlock finds the JSON examples of protocol.md that say where they
// come from, in an HTML comment just above the block:
//
//	<!-- answer: GET /products/heavyweight-tee -->
//	<!-- answer: POST /products/heavyweight-tee {"action":…} -->
//	<!-- answer (abridged): GET /products/heavyweight-tee -->
//
// "abridged" lets the block leave out fields and array items; every
// value it shows must still be the server's.
var exampleBlock = regexp.MustCompile("(?s)<!-- answer( \\(abridged\\))?: (GET|POST) (\\S+)( [^\n]*?)? -->\n```json\n(.*?)```")

// TestProtocolGuide_ExamplesAreWhatTheStoreAnswers sends each marked
// example's request to a fresh demo store, as the demo account's bearer
// token, in the order of the guide, and compares the answer.
func TestProtocolGuide_ExamplesAreWhatTheStoreAnswers(t *testing.T) {
	s := shoptest.Start(t)
	blocks := exampleBlock.FindAllStringSubmatch(readDoc(t, "protocol.md"), -1)
	if len(blocks) < 3 {
		t.Fatalf("found %d marked examples in protocol.md", len(blocks))
	}
	for _, b := range blocks {
		abridged, method, path, body, doc := b[1] != "", b[2], b[3], strings.TrimSpace(b[4]), b[5]
		req, err := http.NewRequest(method, s.URL+path, strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Authorization", "Bearer "+s.Token)
		req.Header.Set("Accept", protocol.MediaType)
		if method == "POST" {
			req.Header.Set("Content-Type", protocol.MediaType)
		}
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		got, _ := io.ReadAll(res.Body)
		res.Body.Close()
		var want, have any
		if err := json.Unmarshal([]byte(doc), &want); err != nil {
			t.Errorf("%s %s: the guide's block is not JSON: %v", method, path, err)
			continue
		}
		if err := json.Unmarshal(got, &have); err != nil {
			t.Errorf("%s %s: the answer is not JSON: %s", method, path, got)
			continue
		}
		if abridged && !within(want, have) || !abridged && !sameJSON(want, have) {
			var pretty bytes.Buffer
			json.Indent(&pretty, got, "", "  ")
			t.Errorf("%s %s %s: protocol.md shows\n%s\nthe store answers\n%s", method, path, body, doc, pretty.String())
		}
	}
}

func sameJSON(a, b any) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return bytes.Equal(x, y)
}

// within reports whether doc shows only what real has: an object's keys
// are a subset, an array's items appear in the same order, other values
// are equal.
func within(doc, real any) bool {
	switch d := doc.(type) {
	case map[string]any:
		r, ok := real.(map[string]any)
		if !ok {
			return false
		}
		for k, v := range d {
			rv, ok := r[k]
			if !ok || !within(v, rv) {
				return false
			}
		}
		return true
	case []any:
		r, ok := real.([]any)
		if !ok {
			return false
		}
		i := 0
		for _, v := range d {
			for i < len(r) && !within(v, r[i]) {
				i++
			}
			if i == len(r) {
				return false
			}
			i++
		}
		return true
	}
	return sameJSON(doc, real)
}

// readDoc reads a guide of docs/.
func readDoc(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "..", "docs", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
