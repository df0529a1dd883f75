package mcp_test

import (
	"context"
	"fmt"
	"log/slog"
	"net/http/httptest"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/affordances-go/affordances/protocol"
	"github.com/affordances-go/affordances/site"
	"github.com/affordances-go/affordances/site/mcp"
)

// Mount gives a site an MCP endpoint: every action becomes a tool, beside
// readPage and siteIndex, and a tool call goes through the same pipeline
// as a POST of the page.
func ExampleMount() {
	quiet := slog.New(slog.DiscardHandler)
	s := site.New(site.Options{Name: "Counter", AuditLogger: quiet, Logger: quiet})
	n := 0
	p := s.Page("/counter", site.PageOptions{})
	type Add struct {
		By int `json:"by" minimum:"1" maximum:"10"`
	}
	site.Handle(p, site.Action{Name: "add", Description: "Add to the counter", Expose: protocol.ExposePublic},
		func(r *site.Request, in Add) (site.Done, error) {
			n += in.By
			return site.Done{Message: fmt.Sprintf("The counter is at %d.", n)}, nil
		})
	mcp.Mount(s, "/mcp", &mcp.Options{Logger: quiet})
	srv := httptest.NewServer(s)
	defer srv.Close()

	ctx := context.Background()
	client := sdk.NewClient(&sdk.Implementation{Name: "example", Version: "1"}, nil)
	session, err := client.Connect(ctx, &sdk.StreamableClientTransport{Endpoint: srv.URL + "/mcp"}, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer session.Close()
	tools, err := session.ListTools(ctx, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, t := range tools.Tools {
		fmt.Println(t.Name)
	}
	res, err := session.CallTool(ctx, &sdk.CallToolParams{Name: "add", Arguments: map[string]any{"by": 3}})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(res.IsError, res.Content[0].(*sdk.TextContent).Text)
	// Output:
	// add
	// readPage
	// siteIndex
	// false Done: The counter is at 3.
}
