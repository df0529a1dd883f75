package tasks

import (
	"context"
	"fmt"
	"net"
	"strconv"
	"strings"
	"time"

	"github.com/chromedp/cdproto/target"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/remote"
)

// person is the one whose browser it is, on the WebMCP path: when the
// agent calls the tool of a form that changes something, the browser
// fills the form in and waits; the person sees it marked
// (:tool-submit-active on its button) and presses the button. The person
// reaches the same browser over its DevTools port, beside the agent's
// Playwright MCP, so that what they do costs the agent nothing: the agent
// reads only its tool's result, as it would with a person at the screen.
type person struct {
	port int    // the browser's DevTools port
	site string // the site's URL: the tab to watch is on it
}

// newPerson picks a free loopback port for the browser's DevTools.
func newPerson(site string) (*person, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	return &person{port: port, site: site}, nil
}

// flag is the browser's command-line flag that opens the port.
func (p *person) flag() string { return "--remote-debugging-port=" + strconv.Itoa(p.port) }

// pressWhenAsked starts watching the site's tab, and presses the button
// the browser marks as the one the filled form waits for, once. The
// returned stop ends the watch (the tool answered); it reports an error
// if the person never found a button to press.
func (p *person) pressWhenAsked(ctx context.Context) (stop func() error) {
	ctx, cancel := context.WithTimeout(ctx, 60*time.Second)
	done := make(chan error, 1)
	go func() { done <- p.press(ctx) }()
	return func() error {
		cancel()
		return <-done
	}
}

func (p *person) press(ctx context.Context) error {
	alloc, cancel := remote.NewAllocator(ctx, "http://127.0.0.1:"+strconv.Itoa(p.port))
	defer cancel()
	// The browser's own context, to list its tabs; then the site's tab.
	bctx, bcancel := chromedp.NewContext(alloc)
	defer bcancel()
	var tab target.ID
	for tab == "" {
		ts, err := chromedp.Targets(bctx)
		if err != nil {
			return fmt.Errorf("the person's view of the browser: %w", err)
		}
		for _, t := range ts {
			if t.Type == "page" && strings.HasPrefix(t.URL, p.site) {
				tab = t.TargetID
			}
		}
		if tab == "" {
			select {
			case <-ctx.Done():
				return fmt.Errorf("no tab on %s to watch", p.site)
			case <-time.After(100 * time.Millisecond):
			}
		}
	}
	// Detached, not closed, when done: the tab is the agent's too.
	tctx, tcancel := chromedp.NewContext(bctx, chromedp.WithTargetID(tab), chromedp.WithDetachOnCancel())
	defer tcancel()
	// A real press (input events), on the button the browser marks.
	if err := chromedp.Do(tctx, chromedp.Click(chromedp.CSS("button:tool-submit-active"))); err != nil {
		return fmt.Errorf("the person found no button to press: %w", err)
	}
	return nil
}
