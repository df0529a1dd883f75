package site_test

import (
	"log/slog"
	"testing"

	"github.com/affordances-go/affordances/protocol"
	"github.com/affordances-go/affordances/site"
	"github.com/affordances-go/affordances/site/sitetest"
)

// messageInput has one field per kind of constraint whose message a person
// reads.
type messageInput struct {
	SKU     string          `json:"sku" description:"the SKU to add" pattern:"^[A-Z]{3}-[A-Z]{3}-[A-Z]+$" example:"TEE-BLK-M"`
	Code    string          `json:"code,omitempty" description:"a promotion code, capitals and digits" pattern:"^[A-Z0-9]+$"`
	Qty     int             `json:"qty,omitempty" minimum:"1" maximum:"10"`
	Size    string          `json:"size,omitempty" enum:"S,M,L,XL"`
	Note    string          `json:"note,omitempty" minLength:"1" maxLength:"5"`
	Email   string          `json:"email,omitempty" format:"email"`
	Tags    []string        `json:"tags,omitempty" maxItems:"2"`
	Address *messageAddress `json:"address,omitempty"`
}

type messageAddress struct {
	Name     string `json:"name" minLength:"1"`
	Postcode string `json:"postcode" description:"the postcode, such as 75001" pattern:"^[0-9]{5}$" example:"75001"`
}

func TestIssues_AreWrittenInPlainWords(t *testing.T) {
	s := site.New(site.Options{Name: "Messages", Logger: slog.New(slog.DiscardHandler)})
	p := s.Page("/", site.PageOptions{})
	site.Handle(p, site.Action{Name: "add", Description: "Add", Expose: protocol.ExposePublic},
		func(r *site.Request, in messageInput) (site.Done, error) { return site.Done{}, nil })
	c := sitetest.New(t, s)

	cases := []struct {
		input         string
		path, kw, msg string
	}{
		{`{}`, "/sku", "required", "required"},
		{`{"sku":"tee"}`, "/sku", "pattern", "must look like TEE-BLK-M"},
		{`{"sku":"TEE-BLK-M","code":"x y"}`, "/code", "pattern", "is not in the expected form: a promotion code, capitals and digits"},
		{`{"sku":"TEE-BLK-M","qty":0}`, "/qty", "minimum", "must be at least 1"},
		{`{"sku":"TEE-BLK-M","qty":11}`, "/qty", "maximum", "must be at most 10"},
		{`{"sku":"TEE-BLK-M","qty":"two"}`, "/qty", "type", "must be a whole number"},
		{`{"sku":"TEE-BLK-M","size":"XXL"}`, "/size", "enum", "must be one of S, M, L, XL"},
		{`{"sku":"TEE-BLK-M","note":""}`, "/note", "minLength", "must not be empty"},
		{`{"sku":"TEE-BLK-M","note":"too long"}`, "/note", "maxLength", "must be at most 5 characters long"},
		{`{"sku":"TEE-BLK-M","email":"nobody"}`, "/email", "format", "must be an email address"},
		{`{"sku":"TEE-BLK-M","tags":["a","b","c"]}`, "/tags", "maxItems", "must have at most 2 items"},
		{`{"sku":"TEE-BLK-M","colour":"red"}`, "/colour", "additionalProperties", "is not a field here; the fields are sku, code, qty, size, note, email, tags, address"},
		{`{"sku":"TEE-BLK-M","address":{"name":"Ada"}}`, "/address/postcode", "required", "required"},
		{`{"sku":"TEE-BLK-M","address":{"name":"Ada","postcode":"7500"}}`, "/address/postcode", "pattern", "must look like 75001"},
		{`{"sku":"TEE-BLK-M","address":{"name":"Ada","postcode":"75001","zip":1}}`, "/address/zip", "additionalProperties", "is not a field here; the fields are name, postcode"},
	}
	for _, tc := range cases {
		d := c.CallBody("/", `{"action":"add","input":`+tc.input+`}`).Delta()
		if d.Error == nil || len(d.Error.Issues) != 1 {
			t.Errorf("%s: want one issue, got %+v", tc.input, d.Error)
			continue
		}
		want := protocol.Issue{Path: tc.path, Keyword: tc.kw, Message: tc.msg}
		if got := d.Error.Issues[0]; got != want {
			t.Errorf("%s:\n got %+v\nwant %+v", tc.input, got, want)
		}
	}
}

func TestExampleTag_MustMatchItsPattern(t *testing.T) {
	s := site.New(site.Options{Name: "Bad", Logger: slog.New(slog.DiscardHandler)})
	p := s.Page("/", site.PageOptions{})
	defer func() {
		if recover() == nil {
			t.Error("an example that does not match its pattern was accepted")
		}
	}()
	site.Handle(p, site.Action{Name: "add", Description: "Add", Expose: protocol.ExposePublic},
		func(r *site.Request, in struct {
			SKU string `json:"sku" pattern:"^[A-Z]+$" example:"tee"`
		}) (site.Done, error) {
			return site.Done{}, nil
		})
}
