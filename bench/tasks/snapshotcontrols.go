package tasks

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"strings"

	"github.com/affordances-go/affordances/protocol"
)

// The snapshot agent's hands: finding an element of the last snapshot and
// working it, and what a form of the page names and leaves to the person.

var refLine = regexp.MustCompile(`- (\w+) "([^"]*)"[^\n]*\[ref=([^\]]+)\]`)

// ref finds an element of the last snapshot by role and the start of its
// name.
func (a *SnapshotAgent) ref(role, name string) (string, error) {
	for _, m := range refLine.FindAllStringSubmatch(a.snap, -1) {
		if m[1] == role && strings.HasPrefix(m[2], name) {
			return m[3], nil
		}
	}
	return "", fmt.Errorf("no %s %q on the page", role, name)
}

// on works the element of the last snapshot with this role and name
// (taken first if the page was read as Markdown): tool with the element's
// ref and args.
func (a *SnapshotAgent) on(ctx context.Context, role, name, tool string, args map[string]any) error {
	if err := a.snapshot(ctx); err != nil {
		return err
	}
	r, err := a.ref(role, name)
	if err != nil {
		return err
	}
	args["element"], args["target"] = name, r
	_, err = a.act(ctx, tool, args)
	return err
}

func (a *SnapshotAgent) click(ctx context.Context, role, name string) error {
	return a.on(ctx, role, name, "browser_click", map[string]any{})
}

// selectIn picks the option whose value is value in the select named name.
func (a *SnapshotAgent) selectIn(ctx context.Context, name, value string) error {
	return a.on(ctx, "combobox", name, "browser_select_option", map[string]any{"values": []string{value}})
}

func (a *SnapshotAgent) typeIn(ctx context.Context, role, name, text string, submit bool) error {
	return a.on(ctx, role, name, "browser_type", map[string]any{"text": text, "submit": submit})
}

// formFields is an action's input as a form's fields name it: an
// object's fields as dotted names (address.city).
func formFields(in map[string]any) map[string]any {
	out := map[string]any{}
	for k, v := range in {
		if m, ok := v.(map[string]any); ok {
			for sk, sv := range m {
				out[k+"."+sk] = sv
			}
			continue
		}
		out[k] = v
	}
	return out
}

// personPresses reports whether the page's own form declares the action's
// tool without toolautosubmit: the browser then fills the form for the
// agent and sends nothing until the person presses its button. (A model
// reads it in the tool's description, "the person presses ...".)
func (a *SnapshotAgent) personPresses(ctx context.Context, page, action string) bool {
	req, _ := http.NewRequestWithContext(ctx, "GET", a.w.URL+page, nil)
	req.Header.Set("Accept", "text/html")
	res, err := a.eyes.Do(req)
	if err != nil {
		return false
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	form := regexp.MustCompile(`<form[^>]*\btoolname="` + regexp.QuoteMeta(action) + `"[^>]*>`).Find(b)
	return form != nil && !bytes.Contains(form, []byte("toolautosubmit"))
}

// cartLine names a line of the cart in g by what it is, as the cart page
// names its controls: "Heavyweight Tee (Black, M)".
func cartLine(g *protocol.Graph, sku string) (string, error) {
	var c struct {
		Lines []struct {
			SKU     string `json:"sku"`
			Product string `json:"product"`
			Colour  string `json:"colour"`
			Size    string `json:"size"`
		} `json:"lines"`
	}
	if err := Entity(g, "cart", &c); err != nil {
		return "", err
	}
	for _, l := range c.Lines {
		if l.SKU == sku {
			return fmt.Sprintf("%s (%s, %s)", l.Product, l.Colour, l.Size), nil
		}
	}
	return "", fmt.Errorf("no line %s in the cart", sku)
}
