package sitetest_test

import (
	"html/template"
	"slices"
	"testing"

	"github.com/affordances-go/affordances/site"
	"github.com/affordances-go/affordances/site/sitetest"
)

// member is an application's model type: what it stores.
type member struct {
	Name         string `json:"name"`
	Email        string `json:"email"`
	PasswordHash string `json:"passwordHash"`
	LastLoginIP  string `json:"lastLoginIp"`
}

// memberView is what the page shows of a member.
type memberView struct {
	Name string `json:"name"`
}

var membersPage = template.Must(template.New("m").Parse(
	`<!doctype html><ul>{{range .Entities.members}}<li><a href="/members/{{.Name}}">{{.Name}}</a></li>{{end}}</ul>`))

func membersSite(entity any) *site.Site {
	s := site.New(site.Options{})
	s.Page("/members", site.PageOptions{Description: "members", View: membersPage,
		Load: func(*site.Request) (*site.State, error) {
			return withEntities(&site.State{}, map[string]any{"members": entity}), nil
		}})
	return s
}

func TestLeaks_TheModelTypeLeaksAViewTypeDoesNot(t *testing.T) {
	model := []member{{Name: "Ann", Email: "ann@example.com", PasswordHash: "$2a$10$abc", LastLoginIP: "203.0.113.7"}}
	c := sitetest.New(t, membersSite(model))
	var paths []string
	for _, l := range c.Leaks("/members") {
		paths = append(paths, l.Path)
	}
	want := []string{"/members/0/email", "/members/0/lastLoginIp", "/members/0/passwordHash"}
	if !slices.Equal(paths, want) {
		t.Errorf("leaks %q, want %q", paths, want)
	}
	if l := c.Leaks("/members", sitetest.AllowLeak("/members/*/lastLoginIp")); len(l) != 2 {
		t.Errorf("with the address allowed: %v", l)
	}
	view := sitetest.New(t, membersSite([]memberView{{Name: "Ann"}}))
	view.CheckNoLeaks("/members")
}
