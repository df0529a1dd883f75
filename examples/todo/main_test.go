package main

import (
	"net/url"
	"strings"
	"testing"

	"github.com/affordances-go/affordances/site/sitetest"
)

func TestTodo_APersonAndAnAgentShareTheList(t *testing.T) {
	c := sitetest.New(t, newSite(&List{}))

	// A person adds an item with the form.
	if res := c.PostForm("/", url.Values{"_action": {"add"}, "text": {"water the plants"}}); res.Code != 303 {
		t.Fatalf("form: %d %s", res.Code, res.Body)
	}
	// An agent sees it and finishes it.
	g := c.Graph("/")
	items := sitetest.Entity[[]Item](t, g, "items")
	if len(items) != 1 || items[0].Text != "water the plants" || g.Action("finish") == nil || !g.Action("finish").Available {
		t.Fatalf("graph %+v", g)
	}
	if res := c.Call("/", "finish", map[string]int{"id": 1}); res.ErrorCode() != "ok" {
		t.Fatalf("finish: %s", res.Body)
	}
	if res := c.Call("/", "finish", map[string]int{"id": 7}); res.ErrorCode() != "unavailable" {
		t.Errorf("finish with nothing left: %s", res.Body)
	}

	// The page: the field's label is its title, the buttons read the
	// action's name in words or the text the template gave.
	page := c.Get("/").Body.String()
	for _, want := range []string{`>New item</label>`, `>Add</button>`, `water the plants (done)`} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %s:\n%s", want, page)
		}
	}
	c.PostForm("/", url.Values{"_action": {"add"}, "text": {"post a letter"}})
	if page := c.Get("/").Body.String(); !strings.Contains(page, `>Done</button>`) {
		t.Errorf("the finish button does not read Done:\n%s", page)
	}

	// A failed form shows the page again with the error.
	res := c.PostForm("/", url.Values{"_action": {"add"}, "text": {""}})
	if res.Code != 400 || !strings.Contains(res.Body.String(), `role="alert">Not done:`) {
		t.Errorf("failed form: %d %s", res.Code, res.Body)
	}
}
